#include "engine/rules/stress.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <vector>

using namespace emote;
using namespace emote::rules;

TEST_CASE("R68: p95 and median") {
  std::vector<double> v(100);
  std::iota(v.begin(), v.end(), 1.0);
  CHECK(stress_p95(v) == 95);
  CHECK(stress_p95({}) == 0);
  CHECK(stress_median({50, 10, 40, 20, 30}) == 30);
  CHECK(stress_median({40, 10, 30, 20}) == 25);
  CHECK(stress_median({}) == 0);
  CHECK(stress_p95({7}) == 7);
  CHECK(stress_p95({3, 1, 2}) == 3); // ceil(2.85) − 1 = 2
  std::vector<double> twenty(20);
  std::iota(twenty.begin(), twenty.end(), 1.0);
  CHECK(stress_p95(twenty) == 19);
}

TEST_CASE("R69: completion counts engine ticks") {
  CHECK_FALSE(stress_complete(199, 200));
  CHECK(stress_complete(200, 200));
  CHECK(stress_complete(201, 200));
}

TEST_CASE("R70: a sample is the whole tick, stress work included") {
  stress_meter m;
  const std::int64_t ms = 1000000;
  m.tick_begin(5, 1000 * ms);
  m.emote_begin(1004 * ms); // 4 ms of other work before the stress advance
  m.emote_end(1074 * ms);   // 70 ms of stress work
  m.tick_end(1079 * ms);    // 5 ms more of other work
  REQUIRE(m.samples_ms().size() == 1);
  CHECK(m.samples_ms()[0] == 79);
  CHECK(m.emote_ms()[0] == 70);
  // The same tick is never sampled twice, and empty samples are dropped.
  m.tick_begin(5, 2000 * ms);
  m.tick_end(2010 * ms);
  m.tick_begin(6, 3000 * ms);
  m.tick_end(3000 * ms);
  CHECK(m.samples_ms().size() == 1);
  m.tick_begin(7, 4000 * ms);
  m.network_begin(4001 * ms);
  m.network_end(4003 * ms);
  m.tick_end(4010 * ms);
  CHECK(m.samples_ms() == std::vector<double>{79, 10});
  CHECK(m.network_ms() == std::vector<double>{0, 2});
}

TEST_CASE("R71: start phases and the once/hold clamp") {
  core::java_random g(stress_seed);
  const auto phases = stress_phases(200, g);
  CHECK(phases[0] == 80);
  CHECK(phases[1] == 175);
  for (std::size_t i = 2; i < phases.size(); ++i) {
    CHECK(phases[i] >= 80);
    CHECK(phases[i] <= 175);
  }
  CHECK(stress_start_tick(false, 175, 100) == 99);
  CHECK(stress_start_tick(false, 80, 100) == 80);
  CHECK(stress_start_tick(true, 175, 100) == 175);
}

TEST_CASE("R72: estimated TPS") {
  CHECK(estimated_tps(10) == 20);
  CHECK(estimated_tps(50) == 20);
  CHECK(estimated_tps(100) == 10);
  CHECK(estimated_tps(0) == 20);
  CHECK(estimated_tps(-3) == 20);
}

TEST_CASE("R73: grid slots") {
  CHECK(stress_grid_side(10) == 4);
  CHECK(stress_grid_slot(9, 10).col == 1);
  CHECK(stress_grid_slot(9, 10).row == 2);
  CHECK(stress_grid_side(1) == 1);
  CHECK(stress_grid_side(9) == 3);
  CHECK(stress_grid_side(500) == 23);
  CHECK(stress_grid_side(0) == 0);
}

TEST_CASE("grid positions: 1-block spacing centred on the origin, rotated by the yaw") {
  const core::dvec3 o{10, 64, -5};
  // N = 9, side 3: instance 0 at (col − 1, row − 1) = (−1, −1).
  const core::dvec3 p0 = stress_grid_position(0, 9, o, 0);
  CHECK(p0.x == 10 + -1 * 1.0 + -1 * -0.0);
  CHECK(p0.z == -5 + -1 * 0.0 + -1 * 1.0);
  CHECK(p0.y == 64);
  const core::dvec3 p4 = stress_grid_position(4, 9, o, 37);
  CHECK(p4.x == 10);
  CHECK(p4.z == -5);
  const core::dvec3 p5 = stress_grid_position(5, 9, o, 90); // col 2, row 1: a = 1, b = 0
  CHECK(p5.x == doctest::Approx(10));
  CHECK(p5.z == doctest::Approx(-4));
}

TEST_CASE("assignment: shuffled copies of the sorted ids, then phases, from one generator") {
  // A JVM running Collections.shuffle with new Random(0xE607E) over copies of
  // [demo:a, demo:b, demo:c, demo:d] until 10 entries exist, then the phases.
  const stress_plan plan = make_stress_plan({"demo:d", "demo:b", "demo:a", "demo:c"}, 10);
  CHECK(plan.animations == std::vector<std::string>{"demo:c", "demo:b", "demo:a", "demo:d",
                                                    "demo:a", "demo:b", "demo:c", "demo:d",
                                                    "demo:d", "demo:c"});
  CHECK(plan.phases == std::vector<std::int64_t>{80, 175, 166, 113, 122, 129, 164, 125, 134, 167});
  CHECK(make_stress_plan({}, 10).animations.empty());

  std::vector<int> v{1, 2, 3};
  core::java_random g(1);
  java_shuffle(v, g);
  CHECK(std::is_permutation(v.begin(), v.end(), std::vector<int>{1, 2, 3}.begin()));
}

TEST_CASE("Nd loads add instances in assignment order until the displays reach the target") {
  const std::map<std::string, std::int64_t> displays{
      {"demo:a", 1}, {"demo:b", 2}, {"demo:c", 3}, {"demo:d", 4}};
  auto count = [&](const std::string& id) { return displays.at(id); };
  const std::vector<std::string> ids{"demo:a", "demo:b", "demo:c", "demo:d"};
  // Assignment order c, b, a, d, a, …: 3, 5, 6, 10, 11.
  CHECK(stress_instances_for_displays(ids, count, 1) == 1);
  CHECK(stress_instances_for_displays(ids, count, 5) == 2);
  CHECK(stress_instances_for_displays(ids, count, 7) == 4);
  CHECK(stress_instances_for_displays(ids, count, 11) == 5);
  CHECK(stress_instances_for_displays(ids, count, 1000000) == 500);
  CHECK(stress_instances_for_displays(ids, count, 1000000, 7) == 7);
}

TEST_CASE("the summary falls back to the baseline without samples") {
  tick_history history;
  CHECK(history.mean() == 0);
  for (int i = 0; i < 150; ++i) {
    history.add(i < 50 ? 1000.0 : 4.0); // only the last 100 count
  }
  CHECK(history.size() == 100);
  CHECK(history.mean() == 4.0);

  const stress_meter empty;
  const stress_summary s = summarize(empty, history.mean());
  CHECK(s.sampled == 0);
  CHECK(s.avg == 4.0);
  CHECK(s.p95 == 4.0);
  CHECK(s.max == 4.0);
  CHECK(s.median == 0);
  CHECK(s.tps.baseline == 20);

  stress_meter m;
  const std::int64_t ms = 1000000;
  for (int t = 0; t < 4; ++t) {
    m.tick_begin(t, 0);
    m.tick_end((t == 3 ? 200 : 50) * ms);
  }
  const stress_summary r = summarize(m, 25.0);
  CHECK(r.avg == 87.5);
  CHECK(r.max == 200);
  CHECK(r.p95 == 200);
  CHECK(r.median == 50);
  CHECK(r.tps.baseline == 20);
  CHECK(r.tps.average == 1000.0 / 87.5);
  CHECK(r.tps.minimum == 5);
  CHECK(r.tps.drop == 20 - 1000.0 / 87.5);
}
