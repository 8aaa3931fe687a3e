#include "engine/core/java_random.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>

using emote::core::java_random;

namespace {
struct java_case {
  std::int64_t seed;
  std::int32_t ints[6]; // nextInt(), nextInt(6), nextInt(100), nextInt(1<<20), nextInt(3), nextInt(MAX)
  std::int64_t next_long;
  double next_double;
};

// Produced by OpenJDK 17's java.util.Random with the same call sequence.
constexpr java_case java_cases[] = {
    {0, {-1155484576, 4, 29, 635799, 2, 663681053}, -8292973307042192125LL, 0.5975452777972018},
    {1, {-1155869325, 4, 47, 427231, 2, 77814904}, 6137546356583794141LL, 0.9677559094241207},
    {42, {-1170105035, 3, 48, 50268, 0, 2023087525}, 5111195811822994797LL, 0.6655489517945736},
    {7, {-1156638823, 2, 85, 10096, 1, 1053566254}, -1894902459288369262LL, 0.7081771577767972},
    {-1, {1155099827, 5, 79, 574655, 2, 1290198438}, 7681931065131779340LL, 0.8261659004768312},
    {123456789, {-1442945365, 0, 83, 267250, 0, 465137554}, -1967508324443428465LL, 0.749641708001546},
    {0xE607E, {-801735060, 3, 49, 786515, 2, 1911302350}, 5827577084104793810LL, 0.4468484124579609},
    {std::numeric_limits<std::int64_t>::min(), {-1155484576, 4, 29, 635799, 2, 663681053},
     -8292973307042192125LL, 0.5975452777972018},
    {std::numeric_limits<std::int64_t>::max(), {1155099827, 5, 79, 574655, 2, 1290198438},
     7681931065131779340LL, 0.8261659004768312},
};
} // namespace

TEST_CASE("java_random matches java.util.Random for several seeds") {
  for (const auto& c : java_cases) {
    CAPTURE(c.seed);
    java_random r(c.seed);
    CHECK(r.next_int() == c.ints[0]);
    CHECK(r.next_int(6) == c.ints[1]);
    CHECK(r.next_int(100) == c.ints[2]);
    CHECK(r.next_int(1 << 20) == c.ints[3]);
    CHECK(r.next_int(3) == c.ints[4]);
    CHECK(r.next_int(std::numeric_limits<std::int32_t>::max()) == c.ints[5]);
    CHECK(r.next_long() == c.next_long);
    CHECK(r.next_double() == c.next_double);
  }
}

TEST_CASE("java_random set_seed restarts the sequence") {
  java_random r(5);
  const auto first = r.next_long();
  r.next_int(10);
  r.set_seed(5);
  CHECK(r.next_long() == first);
}
