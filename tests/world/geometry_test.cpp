#include "engine/world/geometry.hpp"

#include <doctest/doctest.h>

#include <limits>

using emote::core::dvec3;
using emote::world::facing;
using emote::world::facing_threshold;
using emote::world::geometry;

namespace {
double dot(const dvec3& a, const dvec3& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
} // namespace

TEST_CASE("facing vectors come from table trigonometry") {
  // fwd(0) is not exactly +Z: its x is −Tb[32768] (values from a JVM running the same formula).
  CHECK(facing(0.0f).x == -1.2246468525851679e-16);
  CHECK(facing(0.0f).y == 0.0);
  CHECK(facing(0.0f).z == 1.0);
  CHECK(facing(45.0f).x == -0.7071067811865475);
  CHECK(facing(45.0f).z == 0.7071067811865475);
  CHECK(facing(90.0f).x == -1.0);
  CHECK(facing(-135.0f).x == 0.7071406672395502);
  CHECK(facing(-135.0f).z == -0.7070728935095758);
  CHECK(facing_threshold == 0.7071067811865476);
}

TEST_CASE("R34-R38: distance, height and facing") {
  CHECK(geometry({0, 0, 0}, 0, {0, 0, 1.2}, 180));          // R34 match
  CHECK_FALSE(geometry({0, 0, 0}, 0, {0, 0, 2.01}, 180));   // R35 far
  CHECK_FALSE(geometry({0, 0, 0}, 0, {0, 1.01, 1.2}, 180)); // R36 height
  CHECK_FALSE(geometry({0, 0, 0}, 0, {0, 0, 1.2}, 90));     // R37 the second faces −X
  CHECK_FALSE(geometry({0, 0, 0}, 90, {0, 0, 1.2}, 180));   // R38 the first faces −X
}

TEST_CASE("R39: head-on along a diagonal") {
  CHECK(geometry({0, 0, 0}, 45, {-1, 0, 1}, -135));
}

TEST_CASE("R40: exactly 45 degrees fails by rounding") {
  CHECK(geometry({0, 0, 0}, 44, {0, 0, 1.5}, 180));
  CHECK_FALSE(geometry({0, 0, 0}, 45, {0, 0, 1.5}, 180));
  CHECK_FALSE(geometry({0, 0, 0}, 46, {0, 0, 1.5}, 180));
  const dvec3 u{0, 0, 1};
  CHECK(dot(facing(45.0f), u) == 0.7071067811865475);
  CHECK(dot(facing(45.0f), u) < facing_threshold);
  CHECK(dot(facing(44.0f), u) == 0.7194034366276565);
}

TEST_CASE("R41: the bounds are inclusive, coincident players never match") {
  CHECK(geometry({0, 0, 0}, 0, {0, 0, 2.0}, 180));   // h2 = 4.0 exactly
  CHECK(geometry({0, 0, 0}, 0, {0, 1.0, 1.2}, 180)); // |dy| = 1.0 exactly
  CHECK_FALSE(geometry({0, 0, 0}, 0, {0, 0, 0}, 180));
  CHECK_FALSE(geometry({0, 0, 0}, 0, {5e-5, 0, 5e-5}, 180)); // h2 = 5e-9 < 1e-8
  CHECK_FALSE(geometry({0, 0, 0}, 0, {0, -1.01, 1.2}, 180));
}

TEST_CASE("R42: yaw is never wrapped, yet whole turns give the same table entry") {
  CHECK(geometry({0, 0, 0}, 360, {0, 0, 1.5}, -180));
  CHECK(geometry({0, 0, 0}, 360, {0, 0, 1.5}, 540));
}

TEST_CASE("geometry is symmetric in its checks but not in its arguments' roles") {
  // The partner must face the initiator too: swapping the yaws of R37 still fails.
  CHECK_FALSE(geometry({0, 0, 0}, 90, {0, 0, 1.2}, 0));
  // Away from the origin and across the diagonal.
  CHECK(geometry({100.5, 64, -20.5}, -90, {101.7, 64.5, -20.5}, 90));
}

TEST_CASE("non-finite input never matches and never traps") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const float fnan = std::numeric_limits<float>::quiet_NaN();
  CHECK_FALSE(geometry({nan, 0, 0}, 0, {0, 0, 1.2}, 180));
  CHECK_FALSE(geometry({0, 0, 0}, 0, {0, 0, inf}, 180));
  CHECK_FALSE(geometry({0, nan, 0}, 0, {0, 0, 1.2}, 180));
  CHECK_FALSE(geometry({0, 0, 0}, 1e30f, {0, 0, 1.2}, 180));
  CHECK_FALSE(geometry({0, 0, 0}, 0, {0, 0, 1.2}, fnan));
}
