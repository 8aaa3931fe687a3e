#include "engine/playback/handles.hpp"
#include "engine/playback/roots.hpp"

#include <doctest/doctest.h>

#include <vector>

using namespace emote;
using namespace emote::playback;

TEST_CASE("handle pool: smallest ids not held, ascending") {
  handle_pool pool;
  std::vector<api::handle_id> a;
  std::vector<api::handle_id> b;
  pool.acquire(3, a);
  pool.acquire(2, b);
  CHECK(a == std::vector<api::handle_id>{1, 2, 3});
  CHECK(b == std::vector<api::handle_id>{4, 5});
  pool.release(a);
  CHECK(pool.held() == 2);
  std::vector<api::handle_id> c;
  pool.acquire(4, c);
  CHECK(c == std::vector<api::handle_id>{1, 2, 3, 6});
  pool.release(b);
  pool.release(c);
  CHECK(pool.held() == 0);
  std::vector<api::handle_id> d;
  pool.acquire(1, d);
  CHECK(d == std::vector<api::handle_id>{1});
  // Releasing an id twice or one never held changes nothing.
  pool.release(std::vector<api::handle_id>{1, 1, 99});
  CHECK(pool.held() == 0);
}

TEST_CASE("P9 display limit admission") {
  CHECK(admit_display_start(0, 0, 512, 512));
  CHECK_FALSE(admit_display_start(0, 0, 513, 512));
  CHECK(admit_display_start(0, 0, 10000, 0));
  // projected = 480 active − 80 replaced + 100 new = 500
  CHECK(admit_display_start(480, 80, 100, 512));
  CHECK(admit_display_start(480, 80, 112, 512));
  CHECK_FALSE(admit_display_start(480, 80, 113, 512));
}

namespace {
content::placement placement(const char* pos, const char* rot) {
  content::placement p;
  p.position = core::parse_position(pos).value();
  p.rotation = core::parse_rotation(rot).value();
  return p;
}
} // namespace

TEST_CASE("P31 participant placements") {
  {
    const resolved_placement r = resolve_placement(placement("~ ~ ~", "~ 0"), 0.0f);
    const core::dvec3 pos = offset_position({0, 64, 0}, r.offset);
    CHECK(pos == core::dvec3{0, 64, 0});
    CHECK(r.yaw == 0.0f);
  }
  {
    const resolved_placement r = resolve_placement(placement("^ ^ ^1.2", "~180 0"), 0.0f);
    const core::dvec3 pos = offset_position({0, 64, 0}, r.offset);
    CHECK(pos.x == 1.4695762231022014e-16);
    CHECK(pos.y == 64.0);
    CHECK(pos.z == 1.2);
    CHECK(r.yaw == 180.0f);
  }
  {
    const resolved_placement r = resolve_placement(placement("^0.5 ^ ^1.2", "~ 0"), 90.0f);
    const core::dvec3 pos = offset_position({10, 64, -3}, r.offset);
    CHECK(pos.x == doctest::Approx(8.8).epsilon(1e-12));
    CHECK(pos.y == 64.0);
    CHECK(pos.z == doctest::Approx(-2.5).epsilon(1e-12));
  }
  {
    const resolved_placement r = resolve_placement(placement("~1 ~-0.5 ~", "~180 0"), 170.0f);
    CHECK(r.yaw == 350.0f);
    CHECK(offset_position({0, 64, 0}, r.offset) == core::dvec3{1, 63.5, 0});
    const resolved_placement a = resolve_placement(placement("~ ~ ~", "90 ~"), 170.0f);
    CHECK(a.yaw == 90.0f);
  }
}
