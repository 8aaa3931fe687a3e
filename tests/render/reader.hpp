#pragma once
// A small test-side decoder of the packets rendering writes (render.md §5), written from the
// packet layouts of minecraft-data, independent of render/packets.cpp: it reads the packet id
// and fields back so the tests can check them field by field, and reports whether every byte
// was consumed.

#include "render/tables.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace emote::render::test {

struct decoded_entry {
  std::uint8_t index = 0;
  std::int32_t serializer = 0;
  std::int32_t i = 0;       ///< byte, int, block_state
  std::array<float, 4> f{}; ///< float, vector3, quaternion
  std::string raw;          ///< item_stack, component: the value's bytes
};

struct decoded {
  packet_kind kind = packet_kind::bundle_delimiter;
  std::int32_t entity_id = 0;
  std::vector<std::int32_t> ids; ///< entity_destroy
  std::array<std::uint8_t, 16> uuid{};
  std::int32_t type = 0;
  double x = 0, y = 0, z = 0;
  std::int8_t pitch = 0, yaw = 0, head_yaw = 0;
  std::int32_t data = 0;
  float yaw_f = 0, pitch_f = 0;
  double dx = 0, dy = 0, dz = 0;
  bool on_ground = true;
  bool velocity_zero = false;
  std::vector<decoded_entry> metadata;
  std::vector<std::pair<std::int8_t, std::string>>
      equipment; ///< slot (top bit cleared), Slot bytes
  [[nodiscard]] std::vector<int> keys() const {
    std::vector<int> k;
    for (const auto& e : metadata) {
      k.push_back(e.index);
    }
    return k;
  }
  [[nodiscard]] const decoded_entry* entry(int index) const {
    for (const auto& e : metadata) {
      if (e.index == index) {
        return &e;
      }
    }
    return nullptr;
  }
};

class reader {
public:
  reader(const version_table& v, std::string_view b) : v_(v), b_(b) {}

  std::uint8_t u8() {
    if (at_ >= b_.size()) {
      throw std::runtime_error("packet ends early");
    }
    return static_cast<std::uint8_t>(b_[at_++]);
  }
  std::int8_t i8() { return static_cast<std::int8_t>(u8()); }
  std::uint64_t be(int n) {
    std::uint64_t v = 0;
    for (int k = 0; k < n; ++k) {
      v = v << 8 | u8();
    }
    return v;
  }
  std::int16_t i16() { return static_cast<std::int16_t>(be(2)); }
  std::int32_t i32() { return static_cast<std::int32_t>(be(4)); }
  float f32() { return std::bit_cast<float>(static_cast<std::uint32_t>(be(4))); }
  double f64() { return std::bit_cast<double>(be(8)); }
  std::int32_t varint() {
    std::uint32_t v = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      const std::uint8_t b = u8();
      v |= static_cast<std::uint32_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return static_cast<std::int32_t>(v);
      }
    }
    throw std::runtime_error("varint too long");
  }
  [[nodiscard]] bool done() const { return at_ == b_.size(); }

  /// Skip one NBT payload of type `t`.
  void nbt_payload(std::uint8_t t) {
    switch (t) {
    case 1:
      at_ += 1;
      break;
    case 2:
      at_ += 2;
      break;
    case 3:
      at_ += 4;
      break;
    case 4:
      at_ += 8;
      break;
    case 5:
      at_ += 4;
      break;
    case 6:
      at_ += 8;
      break;
    case 7:
      at_ += static_cast<std::uint32_t>(i32());
      break;
    case 8:
      at_ += static_cast<std::uint16_t>(be(2));
      break;
    case 9: {
      const std::uint8_t et = u8();
      const std::int32_t n = i32();
      for (std::int32_t k = 0; k < n; ++k) {
        nbt_payload(et);
      }
      break;
    }
    case 10:
      for (;;) {
        const std::uint8_t et = u8();
        if (et == 0) {
          break;
        }
        at_ += static_cast<std::uint16_t>(be(2));
        nbt_payload(et);
      }
      break;
    case 11:
      at_ += 4 * static_cast<std::uint32_t>(i32());
      break;
    case 12:
      at_ += 8 * static_cast<std::uint32_t>(i32());
      break;
    default:
      throw std::runtime_error("bad NBT type");
    }
    if (at_ > b_.size()) {
      throw std::runtime_error("NBT past the end");
    }
  }
  /// A Slot without data components (the tests' items have none), or the empty one.
  void slot() {
    const std::int32_t count = varint();
    if (count == 0) {
      return;
    }
    varint(); // item id
    const std::int32_t added = varint();
    const std::int32_t removed = varint();
    if (added != 0 || removed != 0) {
      throw std::runtime_error("the test reader reads no data components");
    }
  }

  decoded packet() {
    decoded d;
    const std::int32_t id = varint();
    bool known = false;
    for (std::size_t k = 0; k < packet_kind_count; ++k) {
      if (v_.packet_ids[k] == id) {
        d.kind = static_cast<packet_kind>(k);
        known = true;
      }
    }
    if (!known) {
      throw std::runtime_error("unknown packet id");
    }
    switch (d.kind) {
    case packet_kind::bundle_delimiter:
      break;
    case packet_kind::spawn_entity:
      d.entity_id = varint();
      for (auto& b : d.uuid) {
        b = u8();
      }
      d.type = varint();
      d.x = f64();
      d.y = f64();
      d.z = f64();
      if (v_.spawn == spawn_layout::velocity_after_position) {
        d.velocity_zero = u8() == 0; // lpVec3 zero is the single byte 0
      }
      d.pitch = i8();
      d.yaw = i8();
      d.head_yaw = i8();
      d.data = varint();
      if (v_.spawn == spawn_layout::velocity_last) {
        const int a = i16(), b = i16(), c = i16();
        d.velocity_zero = a == 0 && b == 0 && c == 0;
      }
      break;
    case packet_kind::entity_metadata:
      d.entity_id = varint();
      for (;;) {
        const std::uint8_t index = u8();
        if (index == 0xFF) {
          break;
        }
        decoded_entry e;
        e.index = index;
        e.serializer = varint();
        const std::size_t start = at_;
        const auto& s = v_.serializer_ids;
        auto is = [&](serializer k) { return e.serializer == s[static_cast<std::size_t>(k)]; };
        if (is(serializer::byte)) {
          e.i = i8();
        } else if (is(serializer::int_) || is(serializer::block_state)) {
          e.i = varint();
        } else if (is(serializer::float_)) {
          e.f[0] = f32();
        } else if (is(serializer::vector3)) {
          e.f = {f32(), f32(), f32(), 0};
        } else if (is(serializer::quaternion)) {
          e.f = {f32(), f32(), f32(), f32()};
        } else if (is(serializer::item_stack)) {
          slot();
        } else if (is(serializer::component)) {
          nbt_payload(u8());
        } else {
          throw std::runtime_error("unexpected serializer");
        }
        e.raw = std::string(b_.substr(start, at_ - start));
        d.metadata.push_back(e);
      }
      break;
    case packet_kind::entity_destroy: {
      const std::int32_t n = varint();
      for (std::int32_t k = 0; k < n; ++k) {
        d.ids.push_back(varint());
      }
      break;
    }
    case packet_kind::sync_entity_position:
      d.entity_id = varint();
      d.x = f64();
      d.y = f64();
      d.z = f64();
      d.dx = f64();
      d.dy = f64();
      d.dz = f64();
      d.yaw_f = f32();
      d.pitch_f = f32();
      d.on_ground = u8() != 0;
      break;
    case packet_kind::entity_teleport:
      d.entity_id = varint();
      d.x = f64();
      d.y = f64();
      d.z = f64();
      d.yaw = i8();
      d.pitch = i8();
      d.on_ground = u8() != 0;
      break;
    case packet_kind::entity_look:
      d.entity_id = varint();
      d.yaw = i8();
      d.pitch = i8();
      d.on_ground = u8() != 0;
      break;
    case packet_kind::entity_equipment:
      d.entity_id = varint();
      for (;;) {
        const std::uint8_t s = u8();
        const std::size_t start = at_;
        slot();
        d.equipment.emplace_back(static_cast<std::int8_t>(s & 0x7F),
                                 std::string(b_.substr(start, at_ - start)));
        if ((s & 0x80) == 0) {
          break;
        }
      }
      break;
    }
    if (!done()) {
      throw std::runtime_error("bytes left after the packet");
    }
    return d;
  }

private:
  const version_table& v_;
  std::string_view b_;
  std::size_t at_ = 0;
};

/// Decode one packet of protocol `v`; throws when it is malformed or has bytes left over.
inline decoded decode(const version_table& v, std::string_view bytes) {
  return reader(v, bytes).packet();
}

} // namespace emote::render::test
