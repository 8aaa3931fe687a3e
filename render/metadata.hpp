#pragma once
// A display entity's metadata values (render.md §5.3) apart from its content, and the NBT rules
// that set some of them: the effective NBT (`entity_nbt` merged with the NBT-track state) read
// the way vanilla's Display codecs read it. Values are version independent; the version tables
// give each index its serializer and default.

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

/// Metadata indexes of display entities (render.md §5.3).
namespace mi {
inline constexpr std::uint8_t flags = 0;
inline constexpr std::uint8_t interpolation_start = 8;
inline constexpr std::uint8_t interpolation_duration = 9;
inline constexpr std::uint8_t teleport_duration = 10;
inline constexpr std::uint8_t translation = 11;
inline constexpr std::uint8_t scale = 12;
inline constexpr std::uint8_t left_rotation = 13;
inline constexpr std::uint8_t right_rotation = 14;
inline constexpr std::uint8_t billboard = 15;
inline constexpr std::uint8_t brightness = 16;
inline constexpr std::uint8_t view_range = 17;
inline constexpr std::uint8_t shadow_radius = 18;
inline constexpr std::uint8_t shadow_strength = 19;
inline constexpr std::uint8_t width = 20;
inline constexpr std::uint8_t height = 21;
inline constexpr std::uint8_t glow_color = 22;
inline constexpr std::uint8_t content = 23;      ///< item stack / block state / text
inline constexpr std::uint8_t item_display = 24; ///< item displays
inline constexpr std::uint8_t line_width = 24;   ///< text displays
inline constexpr std::uint8_t background = 25;
inline constexpr std::uint8_t text_opacity = 26;
inline constexpr std::uint8_t text_style = 27;
inline constexpr std::size_t count = 28;
} // namespace mi

inline constexpr std::int32_t glowing_flag = 0x40;

/// One value: `i` for byte and int entries, `f` for float, vector3 and quaternion entries.
struct entry_value {
  std::int32_t i = 0;
  std::array<float, 4> f{};
};

/// Bitwise equality (render.md §5.2: −0.0 ≠ 0.0, as JOML's equals).
[[nodiscard]] bool same_bits(const entry_value& a, const entry_value& b) noexcept;

/// The values of indexes 0..27 but the content entries (23, and 24 of item displays), which
/// depend on the version.
using display_values = std::array<entry_value, mi::count>;

entity_kind to_entity_kind(api::display_kind k) noexcept;

/// The slot of `index` for a display of `kind` in `v`; nullptr when that kind has no such index.
/// Index 0 (the shared flags byte) is not in the tables: see flags_slot().
const metadata_slot* find_slot(const version_table& v, entity_kind kind,
                               std::uint8_t index) noexcept;
/// The shared-flags entry (index 0, byte, default 0).
const metadata_slot& flags_slot() noexcept;
/// The slot of `index` for `kind` in `v`, the shared flags (index 0) included; nullptr when
/// that kind has no such index.
const metadata_slot* entry_slot(const version_table& v, entity_kind kind,
                                std::uint8_t index) noexcept;
/// The default of a slot as a value.
entry_value default_value(const metadata_slot& s) noexcept;
/// The entry of a value index (not a content entry: 23, or 24 of item displays) of slot `s`,
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

/// The content entry (23) of slot `s`: the encoded content (`raw`, or `state` for a block) when
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

/// Every value at its default (from `v`'s slots).
display_values default_values(const version_table& v, entity_kind kind);

/// Set the transform entries 11-14 from a frame transform.
void set_transform(display_values& out, const api::transform_record& t) noexcept;

/// Apply a display.update's transform and interpolation duration to `values` (render.md §5.2):
/// the bits (1 << index) of the entries among 9 and 11-14 whose value changed, bitwise. Index 8
/// is the caller's: the renderer sends it with every transform, stress does not.
std::uint32_t update_transform(display_values& values, const api::transform_record& t,
                               std::int32_t interpolation_duration) noexcept;
/// The same on the entries 9..14 alone (`motion[k]` is index 9 + k; 10 is left alone).
std::uint32_t update_transform(std::span<entry_value, 6> motion, const api::transform_record& t,
                               std::int32_t interpolation_duration) noexcept;
/// The bits (1 << index) of the entries that differ between `a` and `b`, bitwise.
std::uint32_t changed_entries(const display_values& a, const display_values& b) noexcept;

/// Set the NBT-derived entries (0, 15-22, and 24-27 of text displays) from the effective NBT,
/// every key absent from it at its default of `v`. One message per ignored key or unreadable
/// value is appended to `warn`.
void apply_nbt(display_values& out, const core::nbt_compound& effective, const version_table& v,
               entity_kind kind, std::vector<std::string>& warn);

} // namespace emote::render
