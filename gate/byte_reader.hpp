#pragma once
// Reading Minecraft wire primitives (the reverse of render/wire.hpp's byte_writer): big-endian
// numbers, VarInts, strings with a byte bound, UUIDs. A read past the end or a malformed VarInt
// sets `failed()` and returns zeros; callers check once at the end.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace emote::gate {

class byte_reader {
public:
  explicit byte_reader(std::string_view in) noexcept : in_(in) {}

  [[nodiscard]] bool failed() const noexcept { return failed_; }
  [[nodiscard]] std::size_t position() const noexcept { return pos_; }
  [[nodiscard]] std::size_t remaining() const noexcept { return failed_ ? 0 : in_.size() - pos_; }
  [[nodiscard]] bool at_end() const noexcept { return !failed_ && pos_ == in_.size(); }
  [[nodiscard]] std::string_view rest() const noexcept { return failed_ ? std::string_view{} : in_.substr(pos_); }

  std::uint8_t u8() noexcept {
    if (!need(1)) {
      return 0;
    }
    return static_cast<std::uint8_t>(in_[pos_++]);
  }
  std::int8_t i8() noexcept { return static_cast<std::int8_t>(u8()); }
  bool boolean() noexcept { return u8() != 0; }
  std::uint16_t u16() noexcept { return static_cast<std::uint16_t>(be(2)); }
  std::int32_t i32() noexcept { return static_cast<std::int32_t>(be(4)); }
  std::uint32_t u32() noexcept { return static_cast<std::uint32_t>(be(4)); }
  std::int64_t i64() noexcept { return static_cast<std::int64_t>(be(8)); }
  float f32() noexcept { return std::bit_cast<float>(static_cast<std::uint32_t>(be(4))); }
  double f64() noexcept { return std::bit_cast<double>(be(8)); }

  /// A VarInt of at most 5 bytes.
  std::int32_t varint() noexcept {
    std::uint32_t v = 0;
    for (int k = 0; k < 5; ++k) {
      const std::uint8_t b = u8();
      if (failed_) {
        return 0;
      }
      v |= static_cast<std::uint32_t>(b & 0x7F) << (7 * k);
      if ((b & 0x80) == 0) {
        return static_cast<std::int32_t>(v);
      }
    }
    failed_ = true;
    return 0;
  }
  /// A string of at most `max_bytes` bytes (its VarInt length first).
  std::string_view string(std::size_t max_bytes = std::size_t{32767} * 3) noexcept {
    const std::int32_t n = varint();
    if (failed_ || n < 0 || static_cast<std::size_t>(n) > max_bytes) {
      failed_ = true;
      return {};
    }
    return bytes(static_cast<std::size_t>(n));
  }
  std::string_view bytes(std::size_t n) noexcept {
    if (!need(n)) {
      return {};
    }
    const std::string_view s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  std::array<std::uint8_t, 16> uuid() noexcept {
    std::array<std::uint8_t, 16> u{};
    const std::string_view b = bytes(16);
    for (std::size_t k = 0; k < b.size(); ++k) {
      u[k] = static_cast<std::uint8_t>(b[k]);
    }
    return u;
  }
  void fail() noexcept { failed_ = true; }

private:
  bool need(std::size_t n) noexcept {
    if (failed_ || in_.size() - pos_ < n) {
      failed_ = true;
      return false;
    }
    return true;
  }
  std::uint64_t be(std::size_t n) noexcept {
    if (!need(n)) {
      return 0;
    }
    std::uint64_t v = 0;
    for (std::size_t k = 0; k < n; ++k) {
      v = (v << 8) | static_cast<std::uint8_t>(in_[pos_ + k]);
    }
    pos_ += n;
    return v;
  }

  std::string_view in_;
  std::size_t pos_ = 0;
  bool failed_ = false;
};

} // namespace emote::gate
