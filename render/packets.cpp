#include "render/packets.hpp"

#include "engine/core/sha256.hpp"
#include "engine/math/scalar.hpp"
#include "render/content.hpp"
#include "render/renderer.hpp"

namespace emote::render {

namespace {

void packet_id(byte_writer& w, const version_table& v, packet_kind k) {
  w.varint(v.packet_ids[static_cast<std::size_t>(k)]);
}

std::int32_t serializer_id(const version_table& v, serializer s) {
  return v.serializer_ids[static_cast<std::size_t>(s)];
}

} // namespace

std::int8_t angle_byte(float degrees) noexcept {
  return math::pack_degrees(degrees); // render.md §5.1: Mth.packDegrees
}

std::array<std::uint8_t, 16> display_uuid(std::int64_t uuid_seed, std::int32_t entity_id,
                                          std::uint32_t n) {
  // render.md §3: SHA-256("emote-sim-uuid" || be64(seed) || be32(entity id) || be32(n)), first
  // 16 bytes, version 4 and IETF variant bits.
  std::string msg = "emote-sim-uuid";
  byte_writer w(msg);
  w.i64(uuid_seed);
  w.i32(entity_id);
  w.i32(static_cast<std::int32_t>(n));
  core::sha256 h;
  h.update(msg);
  const core::sha256::digest d = h.finish();
  std::array<std::uint8_t, 16> b{};
  for (std::size_t i = 0; i < b.size(); ++i) {
    b[i] = d[i];
  }
  b[6] = static_cast<std::uint8_t>((b[6] & 0x0F) | 0x40);
  b[8] = static_cast<std::uint8_t>((b[8] & 0x3F) | 0x80);
  return b;
}

void write_bundle_delimiter(byte_writer& w, const version_table& v) {
  packet_id(w, v, packet_kind::bundle_delimiter);
}

void write_spawn_entity(byte_writer& w, const version_table& v, std::int32_t entity_id,
                        const std::array<std::uint8_t, 16>& uuid, entity_kind kind,
                        const core::dvec3& position, float yaw) {
  packet_id(w, v, packet_kind::spawn_entity);
  w.varint(entity_id);
  w.uuid(uuid);
  w.varint(v.entity_types[static_cast<std::size_t>(kind)]);
  w.f64(position.x);
  w.f64(position.y);
  w.f64(position.z);
  if (v.spawn == spawn_layout::velocity_after_position) {
    w.u8(0); // lpVec3 zero: one byte (minecraft-protocol src/datatypes/lpVec3.js)
  }
  w.i8(0); // pitch
  w.i8(angle_byte(yaw));
  w.i8(0);     // head yaw
  w.varint(0); // object data
  if (v.spawn == spawn_layout::velocity_last) {
    w.i16(0);
    w.i16(0);
    w.i16(0);
  }
}

void write_entity_metadata(byte_writer& w, const version_table& v, std::int32_t entity_id,
                           std::span<const metadata_entry> entries) {
  packet_id(w, v, packet_kind::entity_metadata);
  w.varint(entity_id);
  for (const metadata_entry& e : entries) {
    w.u8(e.index);
    w.varint(serializer_id(v, e.kind));
    switch (e.kind) {
    case serializer::byte:
      w.i8(static_cast<std::int8_t>(e.i));
      break;
    case serializer::int_:
    case serializer::block_state:
      w.varint(e.i);
      break;
    case serializer::float_:
      w.f32(e.f[0]);
      break;
    case serializer::vector3:
      w.f32(e.f[0]);
      w.f32(e.f[1]);
      w.f32(e.f[2]);
      break;
    case serializer::quaternion:
      w.f32(e.f[0]);
      w.f32(e.f[1]);
      w.f32(e.f[2]);
      w.f32(e.f[3]);
      break;
    case serializer::item_stack:
    case serializer::component:
      w.bytes(e.raw);
      break;
    }
  }
  w.u8(0xFF);
}

void write_entity_destroy(byte_writer& w, const version_table& v,
                          std::span<const std::int32_t> entity_ids) {
  packet_id(w, v, packet_kind::entity_destroy);
  w.varint(static_cast<std::int32_t>(entity_ids.size()));
  for (std::int32_t id : entity_ids) {
    w.varint(id);
  }
}

void write_absolute_move(byte_writer& w, const version_table& v, std::int32_t entity_id,
                         const core::dvec3& position, float yaw) {
  if (v.move == move_layout::sync_entity_position) {
    packet_id(w, v, packet_kind::sync_entity_position);
    w.varint(entity_id);
    w.f64(position.x);
    w.f64(position.y);
    w.f64(position.z);
    w.f64(0);
    w.f64(0);
    w.f64(0);
    w.f32(yaw);
    w.f32(0);
    w.boolean(false);
    return;
  }
  packet_id(w, v, packet_kind::entity_teleport);
  w.varint(entity_id);
  w.f64(position.x);
  w.f64(position.y);
  w.f64(position.z);
  w.i8(angle_byte(yaw));
  w.i8(0);
  w.boolean(false);
}

void write_entity_look(byte_writer& w, const version_table& v, std::int32_t entity_id, float yaw) {
  packet_id(w, v, packet_kind::entity_look);
  w.varint(entity_id);
  w.i8(angle_byte(yaw));
  w.i8(0);
  w.boolean(false);
}

void write_blank_equipment(byte_writer& w, const version_table& v, std::int32_t entity_id) {
  packet_id(w, v, packet_kind::entity_equipment);
  w.varint(entity_id);
  // topBitSetTerminatedArray: the slot byte has 0x80 set while another entry follows.
  constexpr std::int8_t last_slot = 5;
  for (std::int8_t slot = 0; slot <= last_slot; ++slot) {
    w.u8(static_cast<std::uint8_t>(slot | (slot < last_slot ? 0x80 : 0)));
    warnings none;
    write_item_stack(w, v, "", nullptr, none);
  }
}

std::int8_t shared_flags_byte(const player_flags& f) noexcept {
  // render.md §5.5: on fire 0x01, sneaking 0x02, sprinting 0x08, swimming 0x10, invisible 0x20,
  // glowing 0x40, gliding 0x80.
  unsigned b = 0;
  b |= f.on_fire ? 0x01u : 0u;
  b |= f.sneaking ? 0x02u : 0u;
  b |= f.sprinting ? 0x08u : 0u;
  b |= f.swimming ? 0x10u : 0u;
  b |= f.invisible ? 0x20u : 0u;
  b |= f.glowing ? 0x40u : 0u;
  b |= f.gliding ? 0x80u : 0u;
  return static_cast<std::int8_t>(static_cast<std::uint8_t>(b));
}

} // namespace emote::render
