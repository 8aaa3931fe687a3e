#include "engine/math/table_trig.hpp"

#include <cmath>
#include <limits>

namespace emote::math {
namespace {

std::array<float, trig_table_size> build_table() noexcept {
  std::array<float, trig_table_size> t{};
  for (std::size_t i = 0; i < trig_table_size; ++i) {
    t[i] = static_cast<float>(std::sin(static_cast<double>(i) / trig_table_scale));
  }
  return t;
}

} // namespace

const std::array<float, trig_table_size>& sin_table() noexcept {
  static const std::array<float, trig_table_size> table = build_table();
  return table;
}

std::int64_t java_long(double v) noexcept {
  if (std::isnan(v)) {
    return 0;
  }
  // 2^63 is exactly representable; anything at or beyond it saturates as Java's (long) does.
  constexpr double limit = 9223372036854775808.0;
  if (v >= limit) {
    return std::numeric_limits<std::int64_t>::max();
  }
  if (v <= -limit) {
    return std::numeric_limits<std::int64_t>::min();
  }
  return static_cast<std::int64_t>(v);
}

std::size_t trig_index(float v, double offset) noexcept {
  const double scaled = static_cast<double>(v) * trig_table_scale + offset;
  // Two's complement low 16 bits, as Java's `& 65535` on a long.
  return static_cast<std::size_t>(static_cast<std::uint64_t>(java_long(scaled)) & 65535U);
}

float sin_t(float v) noexcept {
  return sin_table()[trig_index(v)];
}

float cos_t(float v) noexcept {
  return sin_table()[trig_index(v, 16384.0)];
}

} // namespace emote::math
