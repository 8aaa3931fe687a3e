#include "engine/core/decimal.hpp"

#include <charconv>
#include <cstdlib>
#include <string>

namespace emote::core {
namespace {
bool digit(char c) noexcept {
  return c >= '0' && c <= '9';
}
} // namespace

// -?([0-9]+(\.[0-9]*)?|\.[0-9]+)
bool is_plain_decimal(std::string_view s) noexcept {
  std::size_t i = 0;
  if (i < s.size() && s[i] == '-') {
    ++i;
  }
  std::size_t int_digits = 0;
  while (i < s.size() && digit(s[i])) {
    ++i;
    ++int_digits;
  }
  if (i == s.size()) {
    return int_digits > 0;
  }
  if (s[i] != '.') {
    return false;
  }
  ++i;
  std::size_t frac_digits = 0;
  while (i < s.size() && digit(s[i])) {
    ++i;
    ++frac_digits;
  }
  return i == s.size() && (int_digits > 0 || frac_digits > 0);
}

float decimal_to_float(std::string_view s) noexcept {
  float f = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), f);
  if (r.ec == std::errc::result_out_of_range) {
    // from_chars leaves the value untouched on overflow/underflow; strtof rounds both correctly.
    const std::string copy(s);
    return std::strtof(copy.c_str(), nullptr);
  }
  return f;
}

double decimal_to_double(std::string_view s) noexcept {
  double d = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), d);
  if (r.ec == std::errc::result_out_of_range) {
    const std::string copy(s);
    return std::strtod(copy.c_str(), nullptr);
  }
  return d;
}

} // namespace emote::core
