#include "engine/math/scalar.hpp"

#include <cmath>
#include <limits>

namespace emote::math {

std::int32_t java_f2i(float f) noexcept {
  return java_d2i(static_cast<double>(f));
}

std::int32_t java_d2i(double d) noexcept {
  if (std::isnan(d)) {
    return 0;
  }
  if (d >= 2147483647.0) {
    return std::numeric_limits<std::int32_t>::max();
  }
  if (d <= -2147483648.0) {
    return std::numeric_limits<std::int32_t>::min();
  }
  return static_cast<std::int32_t>(d);
}

std::int64_t java_d2l(double d) noexcept {
  if (std::isnan(d)) {
    return 0;
  }
  if (d >= 9223372036854775807.0) {
    return std::numeric_limits<std::int64_t>::max();
  }
  if (d <= -9223372036854775808.0) {
    return std::numeric_limits<std::int64_t>::min();
  }
  return static_cast<std::int64_t>(d);
}

float sin_f(float x) noexcept {
  return static_cast<float>(std::sin(static_cast<double>(x)));
}

float cos_from_sin(float s, float h) noexcept {
  const float c0 = std::sqrt(1.0f - s * s);
  const float a = h + half_pi_f;
  float b = a - static_cast<float>(java_f2i(a / two_pi_f)) * two_pi_f;
  if (b < 0.0f) {
    b = two_pi_f + b;
  }
  return b >= pi_f ? -c0 : c0;
}

float wrap_degrees(float v) noexcept {
  float m = std::fmod(v, 360.0f);
  if (m >= 180.0f) {
    m -= 360.0f;
  }
  if (m < -180.0f) {
    m += 360.0f;
  }
  return m;
}

std::int8_t pack_degrees(float v) noexcept {
  const float scaled = (v * 256.0f) / 360.0f;
  const std::int32_t i = java_d2i(std::floor(static_cast<double>(scaled)));
  return static_cast<std::int8_t>(static_cast<std::uint8_t>(static_cast<std::uint32_t>(i) & 0xFFu));
}

} // namespace emote::math
