#pragma once
// Plain decimal numbers as Minecraft's argument readers take them (formats.md §2.3, §2.4):
// the longest run of `0-9 . -`, which must match -?([0-9]+(\.[0-9]*)?|\.[0-9]+).

#include <string_view>

namespace emote::core {

/// A character of the run a decimal reader consumes: 0-9, '.', '-'.
constexpr bool is_decimal_char(char c) noexcept {
  return (c >= '0' && c <= '9') || c == '.' || c == '-';
}

/// Whether `s` matches -?([0-9]+(\.[0-9]*)?|\.[0-9]+) exactly.
bool is_plain_decimal(std::string_view s) noexcept;

/// The one decimal reader (JSON numbers, Molang numbers, coordinates): a decimal number (a
/// leading '-', digits, an optional fraction, an optional exponent) to the nearest binary32,
/// overflow to +-infinity, underflow to zero or a subnormal. The text must already match the
/// caller's grammar.
float decimal_to_float(std::string_view digits) noexcept;
/// Same to the nearest binary64.
double decimal_to_double(std::string_view digits) noexcept;

} // namespace emote::core
