#include "engine/molang/text.hpp"

#include <array>

namespace emote::molang {

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
