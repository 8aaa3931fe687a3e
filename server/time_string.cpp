#include "server/time_string.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>

namespace emote::server {
namespace {

bool is_float_char(char c) {
  return (c >= '0' && c <= '9') || c == '.' || c == '-';
}

bool is_unit_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
         c == '-' || c == '.' || c == '+';
}

// -?([0-9]+(\.[0-9]*)?|\.[0-9]+), written out to avoid a regex per call.
bool is_valid_float(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && s[i] == '-') {
    ++i;
  }
  std::size_t int_digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    ++i;
    ++int_digits;
  }
  std::size_t frac_digits = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      ++i;
      ++frac_digits;
    }
    if (int_digits == 0 && frac_digits == 0) {
      return false;
    }
  } else if (int_digits == 0) {
    return false;
  }
  return i == s.size();
}

} // namespace

core::result<std::int64_t, std::string> parse_time_string(std::string_view text,
                                                          std::int64_t minimum) {
  using core::failure;
  std::size_t i = 0;
  while (i < text.size() && is_float_char(text[i])) {
    ++i;
  }
  const std::string_view number = text.substr(0, i);
  if (number.empty()) {
    return failure(std::string("expected float"));
  }
  if (!is_valid_float(number)) {
    return failure(std::string("invalid float"));
  }
  // strtof rounds the decimal straight to binary32 (no double rounding), as Java's parseFloat.
  const std::string copy(number);
  const float f = std::strtof(copy.c_str(), nullptr);

  const std::size_t unit_start = i;
  while (i < text.size() && is_unit_char(text[i])) {
    ++i;
  }
  const std::string_view unit = text.substr(unit_start, i - unit_start);
  float scale = 0;
  if (unit.empty() || unit == "t") {
    scale = 1.0F;
  } else if (unit == "s") {
    scale = 20.0F;
  } else if (unit == "d") {
    scale = 24000.0F;
  } else {
    return failure(std::string("invalid unit"));
  }
  const float p = f * scale;
  const double rounded = std::floor(static_cast<double>(p) + 0.5);
  std::int64_t ticks = 0;
  constexpr double lo = -2147483648.0;
  constexpr double hi = 2147483647.0;
  if (std::isnan(rounded)) {
    ticks = 0;
  } else if (rounded <= lo) {
    ticks = static_cast<std::int64_t>(lo);
  } else if (rounded >= hi) {
    ticks = static_cast<std::int64_t>(hi);
  } else {
    ticks = static_cast<std::int64_t>(rounded);
  }
  if (ticks < minimum) {
    return failure(std::string("tick count too low"));
  }
  if (i != text.size()) {
    return failure(std::string("trailing input"));
  }
  return ticks;
}

} // namespace emote::server
