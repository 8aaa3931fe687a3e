#pragma once
// A display entity's metadata values (render.md §5.3) apart from its content, and the NBT rules
// that set some of them: the effective NBT (`entity_nbt` merged with the NBT-track state) read
// the way vanilla's Display codecs read it. Values are kept per field (display_field) and are
// version independent; each version's table gives every field its index, serializer and default.

#include "engine/api/event.hpp"
#include "engine/core/snbt.hpp"
#include "render/packets.hpp"
#include "render/tables.hpp"

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace emote::render {

using field = display_field;
inline constexpr std::int32_t glowing_flag = 0x40;

/// One value: `i` for byte and int entries, `f` for float, vector3 and quaternion entries.
struct entry_value {
  std::int32_t i = 0;
  std::array<float, 4> f{};
};

/// Bitwise equality (render.md §5.2: −0.0 ≠ 0.0, as JOML's equals).
[[nodiscard]] bool same_bits(const entry_value& a, const entry_value& b) noexcept;

/// The values of every field but the content entries (content, and item_display_mode, which
/// depend on the version), indexed by field.
using display_values = std::array<entry_value, display_field_count>;

/// The value of field `f` in `values`.
inline entry_value& at(display_values& values, display_field f) noexcept {
  return values[static_cast<std::size_t>(f)];
}
inline const entry_value& at(const display_values& values, display_field f) noexcept {
  return values[static_cast<std::size_t>(f)];
}

entity_kind to_entity_kind(api::display_kind k) noexcept;

/// The metadata layout of `kind` in `v`.
inline const metadata_layout& layout(const version_table& v, entity_kind kind) noexcept {
  return *v.display_layout[static_cast<std::size_t>(kind)];
}
/// The default of a slot as a value.
entry_value default_value(const metadata_slot& s) noexcept;
/// The entry of a value field (not content or item_display_mode) of slot `s`,
/// written field by field into `e` (a tick writes thousands; building a temporary and copying it
/// stalls on the partial stores).
inline void set_value_entry(metadata_entry& e, const metadata_slot& s,
                            const entry_value& value) noexcept {
  e.index = s.index;
  e.kind = s.kind;
  e.i = value.i;
  e.f = value.f;
  e.raw = {};
}
/// A version's empty content: the empty item stack and the empty text, which a hidden display
/// shows and which are index 23's defaults (render.md §5.3).
struct empty_content {
  std::string item, text;
};
empty_content empty_contents(const version_table& v);

/// The content entry of slot `s`: the encoded content (`raw`, or `state` for a block) when
/// visible, else the empty one (a block's: the slot's default).
void set_content_entry(metadata_entry& e, const metadata_slot& s, api::display_kind kind,
                       bool visible, std::string_view raw, std::int32_t state,
                       const empty_content& empty) noexcept;
/// Whether any entry differs from its default (render.md §5.1): item stacks and components
/// against the empty encodings, the rest by differs_from_default().
bool entry_differs_from_default(const metadata_slot& s, const metadata_entry& e,
                                const empty_content& empty) noexcept;

/// Whether a byte, int, float, vector3 or quaternion entry differs from its slot's default,
/// bitwise (render.md §5.1: a spawn's metadata carries only such entries).
bool differs_from_default(const metadata_slot& s, const metadata_entry& e) noexcept;

/// Every value at its default (from `v`'s slots of `kind`).
display_values default_values(const version_table& v, entity_kind kind);

/// Set the transform fields (translation, scale, left and right rotation) from a frame
/// transform.
void set_transform(display_values& out, const api::transform_record& t) noexcept;

/// The fields interpolation_duration..right_rotation, consecutive in display_field.
inline constexpr std::size_t motion_fields = 6;
/// Apply a display.update's transform and interpolation duration to `values` (render.md §5.2):
/// the field bits (field_bit) of interpolation_duration and the transform fields whose value
/// changed, bitwise. interpolation_start is the caller's: the renderer sends it with every
/// transform, stress does not.
std::uint32_t update_transform(display_values& values, const api::transform_record& t,
                               std::int32_t interpolation_duration) noexcept;
/// The same on the motion fields alone (`motion[k]` is interpolation_duration + k;
/// teleport_duration is left alone).
std::uint32_t update_transform(std::span<entry_value, motion_fields> motion,
                               const api::transform_record& t,
                               std::int32_t interpolation_duration) noexcept;
/// The field bits of the values that differ between `a` and `b`, bitwise.
std::uint32_t changed_entries(const display_values& a, const display_values& b) noexcept;

/// Set the NBT-derived fields (shared_flags, billboard..glow_color, and line_width..text_style
/// of text displays) from the effective NBT, every key absent from it at its default of `v`.
/// One message per ignored key or unreadable value is appended to `warn`.
void apply_nbt(display_values& out, const core::nbt_compound& effective, const version_table& v,
               entity_kind kind, std::vector<std::string>& warn);

} // namespace emote::render
