#pragma once
// Minecraft time strings (formats.md §2.3): "20", "20t", "1.5s", "1d". The number is rounded to
// binary32 and multiplied by the unit in binary32, exactly as the mod's parser does.

#include "engine/core/result.hpp"

#include <cstdint>
#include <string_view>

namespace emote::core {

enum class time_error : unsigned char {
  expected_float,
  invalid_float,
  invalid_unit,
  too_low,
  trailing_input,
};

/// The detail text, e.g. "expected float" (the message is
/// "must be a valid Minecraft time: <detail>").
std::string_view time_error_detail(time_error e) noexcept;

/// Parse a time string into ticks; `minimum` is the field minimum m (0 or 1).
result<std::int32_t, time_error> parse_time(std::string_view s, std::int32_t minimum = 0) noexcept;

/// Parse a decimal number (no sign other than a leading '-', no exponent needed) to the nearest
/// binary32, overflow to +-infinity. The text must already match the caller's grammar.
float decimal_to_float(std::string_view digits) noexcept;
/// Same to the nearest binary64.
double decimal_to_double(std::string_view digits) noexcept;

} // namespace emote::core
