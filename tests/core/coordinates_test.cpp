#include "engine/core/coordinates.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace emote::core;

namespace {

std::string pos_error(const char* s) {
  const auto r = parse_position(s);
  REQUIRE_MESSAGE(!r.ok(), s);
  return r.error();
}
std::string rot_error(const char* s) {
  const auto r = parse_rotation(s);
  REQUIRE_MESSAGE(!r.ok(), s);
  return r.error();
}

constexpr const char* not_relative = "must use only relative ~ or local ^ coordinates";
constexpr const char* trailing = "contains trailing input";
bool invalid(const std::string& e) { return e.rfind("invalid Minecraft coordinates: ", 0) == 0; }

} // namespace

TEST_CASE("participant positions: accepted forms (formats.md §2.4)") {
  auto p = parse_position("~ ~ ~");
  REQUIRE(p.ok());
  CHECK_FALSE(p->local);
  for (const auto& c : p->components) {
    CHECK(c.relative);
    CHECK(c.value == 0);
  }
  p = parse_position("~1 ~-0.5 ~");
  REQUIRE(p.ok());
  CHECK(p->components[0].value == 1);
  CHECK(p->components[1].value == -0.5);
  p = parse_position("^ ^ ^1.2");
  REQUIRE(p.ok());
  CHECK(p->local);
  CHECK(p->components[2].value == 1.2);
  p = parse_position("^0.5 ^ ^1.2");
  REQUIRE(p.ok());
  CHECK(p->components[0].value == 0.5);
  CHECK(p->components[1].value == 0);
}

TEST_CASE("participant positions: failures") {
  CHECK(pos_error("0 64 0") == not_relative);
  CHECK(pos_error("~ 64 ~") == not_relative);
  CHECK(pos_error(" ~ ~") == not_relative); // a space reads as absolute 0
  for (const char* s : {"^ ^ ~", "~ ^ ~", "~ ~", "~+1 ~ ~", "~1e3 ~ ~", "", "~ ~ 1-"}) {
    CHECK_MESSAGE(invalid(pos_error(s)), s);
  }
  for (const char* s : {"~  ~ ~", "~ ~ ~ ", "~ ~ ~ ~"}) {
    CHECK_MESSAGE(pos_error(s) == trailing, s);
  }
}

TEST_CASE("participant rotations") {
  auto r = parse_rotation("~ 0");
  REQUIRE(r.ok());
  CHECK(r->yaw.relative);
  CHECK_FALSE(r->pitch.relative);
  r = parse_rotation("~180 0");
  REQUIRE(r.ok());
  CHECK(r->yaw.value == 180);
  r = parse_rotation("90 ~");
  REQUIRE(r.ok());
  CHECK_FALSE(r->yaw.relative);
  CHECK(r->yaw.value == 90);
  CHECK(parse_rotation("~ ~-10").ok());
  r = parse_rotation(" 0");
  REQUIRE(r.ok());
  CHECK_FALSE(r->yaw.relative);
  CHECK(r->yaw.value == 0);
  CHECK(invalid(rot_error("^ 0")));
  CHECK(invalid(rot_error("~")));
  CHECK(rot_error("~ 0 0") == trailing);
}
