#pragma once
// The play-state packets rendering sends (render.md §5), one builder per packet. Each writes the
// packet id varint of `v` and the packet's fields in that version's layout, uncompressed and
// without a length prefix. The renderer composes these; the golden-bytes tests call them
// directly. None of them reads anything but its arguments and the version table.

#include "engine/core/vec.hpp"
#include "render/tables.hpp"
#include "render/wire.hpp"

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace emote::render {

/// bundle_delimiter: the packet id alone (render.md §5.1).
void write_bundle_delimiter(byte_writer& w, const version_table& v);

/// spawn_entity (add_entity) of a display entity (render.md §5.1): pitch 0, yaw as an angle
/// byte, head yaw 0, data 0, zero velocity in the version's encoding (`vec3i16` zeros, or
/// `lpVec3` zero = one 0x00 byte right after the position on 773+).
void write_spawn_entity(byte_writer& w, const version_table& v, std::int32_t entity_id,
                        const std::array<std::uint8_t, 16>& uuid, entity_kind kind,
                        const core::dvec3& position, float yaw);

/// One entity metadata entry. `i` holds byte, int and block-state values; `f` float (f[0]),
/// vector3 (f[0..2]) and quaternion (x, y, z, w) values; `raw` the already encoded value of an
/// item_stack (a Slot) or component (anonymous network NBT) entry.
struct metadata_entry {
  std::uint8_t index = 0;
  serializer kind = serializer::byte;
  std::int32_t i = 0;
  std::array<float, 4> f{};
  std::string_view raw;
};

/// entity_metadata (set_entity_data): the entries in the given order, then the 0xFF end marker.
void write_entity_metadata(byte_writer& w, const version_table& v, std::int32_t entity_id,
                           std::span<const metadata_entry> entries);

/// entity_destroy (remove_entities): the ids in the given order.
void write_entity_destroy(byte_writer& w, const version_table& v,
                          std::span<const std::int32_t> entity_ids);

/// The absolute move of render.md §5.2: sync_entity_position (x/y/z, zero deltas, yaw as
/// binary32 degrees, pitch 0, onGround false) where the version has it, else entity_teleport
/// (yaw as an angle byte, pitch 0, onGround false).
void write_absolute_move(byte_writer& w, const version_table& v, std::int32_t entity_id,
                         const core::dvec3& position, float yaw);

/// entity_look (move_entity_rot): yaw angle byte, pitch 0, onGround false (render.md §5.2).
void write_entity_look(byte_writer& w, const version_table& v, std::int32_t entity_id, float yaw);

/// entity_equipment with the six slots main hand 0, off hand 1, feet 2, legs 3, chest 4, head 5,
/// all empty (render.md §5.5).
void write_blank_equipment(byte_writer& w, const version_table& v, std::int32_t entity_id);

/// The shared-flags byte of a player entity (render.md §5.5).
struct player_flags {
  bool on_fire = false, sneaking = false, sprinting = false, swimming = false, invisible = false,
       glowing = false, gliding = false;
};
[[nodiscard]] std::int8_t shared_flags_byte(const player_flags& f) noexcept;

} // namespace emote::render
