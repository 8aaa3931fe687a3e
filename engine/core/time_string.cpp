#include "engine/core/time_string.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

namespace emote::core {
namespace {

bool float_char(char c) noexcept { return (c >= '0' && c <= '9') || c == '.' || c == '-'; }
bool unit_char(char c) noexcept {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
         c == '-' || c == '.' || c == '+';
}
bool digit(char c) noexcept { return c >= '0' && c <= '9'; }

// -?([0-9]+(\.[0-9]*)?|\.[0-9]+)
bool matches_decimal(std::string_view s) noexcept {
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

} // namespace

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

std::string_view time_error_detail(time_error e) noexcept {
  switch (e) {
  case time_error::expected_float:
    return "expected float";
  case time_error::invalid_float:
    return "invalid float";
  case time_error::invalid_unit:
    return "invalid unit";
  case time_error::too_low:
    return "tick count too low";
  case time_error::trailing_input:
    return "trailing input";
  }
  return {};
}

result<std::int32_t, time_error> parse_time(std::string_view s, std::int32_t minimum) noexcept {
  std::size_t i = 0;
  while (i < s.size() && float_char(s[i])) {
    ++i;
  }
  const auto number = s.substr(0, i);
  if (number.empty()) {
    return failure{time_error::expected_float};
  }
  if (!matches_decimal(number)) {
    return failure{time_error::invalid_float};
  }
  const float f = decimal_to_float(number);
  const std::size_t unit_begin = i;
  while (i < s.size() && unit_char(s[i])) {
    ++i;
  }
  const auto unit = s.substr(unit_begin, i - unit_begin);
  float factor = 0;
  if (unit.empty() || unit == "t") {
    factor = 1.0F;
  } else if (unit == "s") {
    factor = 20.0F;
  } else if (unit == "d") {
    factor = 24000.0F;
  } else {
    return failure{time_error::invalid_unit};
  }
  const float p = f * factor;
  const double rounded = std::floor(static_cast<double>(p) + 0.5);
  std::int32_t t = 0;
  if (rounded >= 2147483647.0) {
    t = 2147483647;
  } else if (rounded <= -2147483648.0) {
    t = -2147483647 - 1;
  } else {
    t = static_cast<std::int32_t>(rounded);
  }
  if (t < minimum) {
    return failure{time_error::too_low};
  }
  if (i != s.size()) {
    return failure{time_error::trailing_input};
  }
  return t;
}

} // namespace emote::core
