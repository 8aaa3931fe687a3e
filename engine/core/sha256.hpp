#pragma once
// SHA-256 (FIPS 180-2), for recording and content digests (protocol.md §8) and display-entity
// UUIDs (render.md §3).

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace emote::core {

class sha256 {
public:
  using digest = std::array<std::uint8_t, 32>;

  sha256() noexcept { reset(); }
  void reset() noexcept;
  void update(const void* data, std::size_t size) noexcept;
  void update(std::string_view s) noexcept { update(s.data(), s.size()); }
  /// The digest of everything updated since the last reset; resets afterwards.
  digest finish() noexcept;

private:
  void block(const std::uint8_t* p) noexcept;

  std::array<std::uint32_t, 8> h_{};
  std::array<std::uint8_t, 64> buf_{};
  std::size_t used_ = 0;
  std::uint64_t bits_ = 0;
};

/// Lower-case hexadecimal of a digest.
std::string to_hex(const sha256::digest& d);
/// Lower-case hexadecimal SHA-256 of `s`.
std::string sha256_hex(std::string_view s);

} // namespace emote::core
