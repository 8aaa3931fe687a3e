#include "engine/core/time_string.hpp"

#include "engine/core/decimal.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

namespace emote::core {
namespace {

bool unit_char(char c) noexcept {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
         c == '-' || c == '.' || c == '+';
}


} // namespace

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
  while (i < s.size() && is_decimal_char(s[i])) {
    ++i;
  }
  const auto number = s.substr(0, i);
  if (number.empty()) {
    return failure{time_error::expected_float};
  }
  if (!is_plain_decimal(number)) {
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
