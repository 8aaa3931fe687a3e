#pragma once
// Minecraft Java Edition wire primitives (render.md §5): a growing byte buffer with the writers
// every packet is made of. Big-endian fixed-width numbers, LEB128 varints, UUIDs as two longs.

#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <string_view>

namespace emote::render {

class byte_writer {
public:
  explicit byte_writer(std::string& out) noexcept : out_(&out) {}

  void u8(std::uint8_t v) { out_->push_back(static_cast<char>(v)); }
  void i8(std::int8_t v) { u8(static_cast<std::uint8_t>(v)); }
  void boolean(bool v) { u8(v ? 1 : 0); }
  void i16(std::int16_t v) { be(static_cast<std::uint16_t>(v)); }
  void i32(std::int32_t v) { be(static_cast<std::uint32_t>(v)); }
  void i64(std::int64_t v) { be(static_cast<std::uint64_t>(v)); }
  void f32(float v) { be(std::bit_cast<std::uint32_t>(v)); }
  void f64(double v) { be(std::bit_cast<std::uint64_t>(v)); }
  /// VarInt: 7 bits per byte, low groups first; negative values take 5 bytes.
  void varint(std::int32_t v) {
    auto u = static_cast<std::uint32_t>(v);
    if (u < 0x80) {
      u8(static_cast<std::uint8_t>(u));
      return;
    }
    char b[5];
    std::size_t n = 0;
    while (u >= 0x80) {
      b[n++] = static_cast<char>(u | 0x80);
      u >>= 7;
    }
    b[n++] = static_cast<char>(u);
    out_->append(b, n);
  }
  void uuid(const std::array<std::uint8_t, 16>& b) {
    bytes({reinterpret_cast<const char*>(b.data()), b.size()});
  }
  /// A protocol string: varint byte length, then UTF-8.
  void string(std::string_view s) {
    varint(static_cast<std::int32_t>(s.size()));
    bytes(s);
  }
  void bytes(std::string_view b) { out_->append(b); }

  [[nodiscard]] std::size_t size() const noexcept { return out_->size(); }
  [[nodiscard]] std::string& buffer() noexcept { return *out_; }

private:
  /// Big-endian, appended as one piece.
  template <class U>
  void be(U v) {
    char b[sizeof(U)];
    for (std::size_t k = 0; k < sizeof(U); ++k) {
      b[k] = static_cast<char>(v >> (8 * (sizeof(U) - 1 - k)));
    }
    out_->append(b, sizeof(U));
  }
  std::string* out_;
};

/// The number of bytes varint(v) takes.
constexpr std::size_t varint_size(std::int32_t v) noexcept {
  auto u = static_cast<std::uint32_t>(v);
  std::size_t n = 1;
  while (u >= 0x80) {
    u >>= 7;
    ++n;
  }
  return n;
}

} // namespace emote::render
