#include "engine/molang/text.hpp"

#include <array>

namespace emote::molang {

decoded_char decode_utf8(std::string_view text, std::size_t at) noexcept {
  const auto b0 = static_cast<unsigned char>(text[at]);
  if (b0 < 0x80) {
    return {b0, 1};
  }
  const auto cont = [&](std::size_t i) {
    return at + i < text.size() && (static_cast<unsigned char>(text[at + i]) & 0xC0) == 0x80;
  };
  const auto bits = [&](std::size_t i) {
    return static_cast<char32_t>(static_cast<unsigned char>(text[at + i]) & 0x3F);
  };
  if (b0 >= 0xC2 && b0 <= 0xDF && cont(1)) {
    return {(static_cast<char32_t>(b0 & 0x1F) << 6) | bits(1), 2};
  }
  if (b0 >= 0xE0 && b0 <= 0xEF && cont(1) && cont(2)) {
    const char32_t c = (static_cast<char32_t>(b0 & 0x0F) << 12) | (bits(1) << 6) | bits(2);
    if (c >= 0x800 && (c < 0xD800 || c > 0xDFFF)) {
      return {c, 3};
    }
  }
  if (b0 >= 0xF0 && b0 <= 0xF4 && cont(1) && cont(2) && cont(3)) {
    const char32_t c =
        (static_cast<char32_t>(b0 & 0x07) << 18) | (bits(1) << 12) | (bits(2) << 6) | bits(3);
    if (c >= 0x10000 && c <= 0x10FFFF) {
      return {c, 4};
    }
  }
  return {0xFFFD, 1};
}

std::size_t utf16_length(std::string_view text) noexcept {
  std::size_t units = 0;
  for (std::size_t i = 0; i < text.size();) {
    const auto d = decode_utf8(text, i);
    units += d.code >= 0x10000 ? 2 : 1;
    i += d.bytes;
  }
  return units;
}

namespace {
// First code point of each run of ten Nd digits in the BMP, excluding ASCII (Unicode 14; the
// BMP set is unchanged through Unicode 15, which Java 21 uses).
constexpr std::array<char32_t, 36> digit_zeros = {
    0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6, 0x0D66,
    0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90,
    0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10,
};
} // namespace

bool is_non_ascii_digit(char32_t c) noexcept {
  if (c < 0x0660 || c > 0xFF19) {
    return false;
  }
  for (const char32_t zero : digit_zeros) {
    if (c >= zero && c < zero + 10) {
      return true;
    }
  }
  return false;
}

} // namespace emote::molang
