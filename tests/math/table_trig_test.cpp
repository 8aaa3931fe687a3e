#include "engine/math/table_trig.hpp"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

using namespace emote::math;

namespace {
std::uint32_t bits(float f) {
  return std::bit_cast<std::uint32_t>(f);
}
} // namespace

TEST_CASE("the sine table holds f32(sin(i / 10430.378350470453))") {
  const auto& tb = sin_table();
  REQUIRE(tb.size() == 65536);
  // Values printed by a JVM computing (float)Math.sin(i / 10430.378350470453).
  CHECK(bits(tb[0]) == 0x00000000U);
  CHECK(bits(tb[1]) == 0x38c90fdbU);
  CHECK(bits(tb[1000]) == 0x3dc40c83U);
  CHECK(bits(tb[12345]) == 0x3f6d0b85U);
  CHECK(bits(tb[16384]) == 0x3f800000U);
  CHECK(bits(tb[32768]) == 0x250d3132U); // about 1.2246469e-16, not 0
  CHECK(bits(tb[40000]) == 0xbf239da9U);
  CHECK(bits(tb[49152]) == 0xbf800000U);
  CHECK(bits(tb[65535]) == 0xb8c90fdbU);
  for (std::size_t i = 0; i < tb.size(); i += 997) {
    CHECK(tb[i] == static_cast<float>(std::sin(static_cast<double>(i) / 10430.378350470453)));
  }
}

TEST_CASE("sinT and cosT index the table by truncation toward zero, low 16 bits") {
  const auto& tb = sin_table();
  // -0.5 · scale = -5215.18..., truncated to -5215, two's complement & 65535 = 60321.
  CHECK(trig_index(-0.5f) == 60321);
  CHECK(sin_t(-0.5f) == tb[60321]);
  CHECK(trig_index(0.5f) == 5215);
  // Truncation toward zero: a tiny negative angle maps to index 0, not 65535.
  CHECK(trig_index(-1e-9f) == 0);
  CHECK(sin_t(-1e-9f) == 0.0f);
  CHECK(cos_t(0.0f) == 1.0f);
  // playback.md §4.3: cosT(90f·k) is Tb[32768], the table's rounded sin(π).
  const float k = static_cast<float>(3.141592653589793 / 180.0);
  CHECK(bits(k) == 0x3C8EFA35U);
  const float ninety = 90.0f * k;
  CHECK(trig_index(ninety, 16384.0) == 32768);
  CHECK(cos_t(ninety) == tb[32768]);
  // cosT(−0f·k) = 1 exactly (the unit factor of playback.md's F vector).
  CHECK(cos_t(-0.0f * k) == 1.0f);
}

TEST_CASE("out-of-range angles follow Java's saturating (long) conversion") {
  const auto& tb = sin_table();
  CHECK(java_long(std::numeric_limits<double>::quiet_NaN()) == 0);
  CHECK(java_long(1e300) == std::numeric_limits<std::int64_t>::max());
  CHECK(java_long(-1e300) == std::numeric_limits<std::int64_t>::min());
  CHECK(java_long(9223372036854775808.0) == std::numeric_limits<std::int64_t>::max());
  CHECK(java_long(-9223372036854775808.0) == std::numeric_limits<std::int64_t>::min());
  CHECK(java_long(-2.9) == -2);
  CHECK(java_long(2.9) == 2);
  CHECK(sin_t(std::numeric_limits<float>::infinity()) == tb[65535]);
  CHECK(sin_t(-std::numeric_limits<float>::infinity()) == tb[0]);
  CHECK(sin_t(std::numeric_limits<float>::quiet_NaN()) == tb[0]);
  CHECK(cos_t(std::numeric_limits<float>::max()) == tb[65535]);
}
