// The stress test's instances (players.md §8.3): assignment, start phases, grid, restart of
// finished instances, display accounting and determinism, through sim::stress_run.
#include "engine/rules/stress.hpp"
#include "engine/sim/stress_run.hpp"
#include "support.hpp"

#include <cmath>

using namespace simtest;

namespace {

/// An Animation whose one display moves along x by exactly one block per tick (x = t), so a
/// transform's translation tells the tick the instance is at.
std::string ramp(const std::string& id, std::int64_t duration, const std::string& mode) {
  anim_spec a;
  a.id = id;
  a.duration = duration;
  a.mode = mode;
  a.tracks = R"({"d0": {"position": [{"time": "0t", "value": [0, 0, 0]}, {"time": ")" +
             std::to_string(duration) + R"(t", "value": [)" + std::to_string(duration) +
             R"(, 0, 0]}]}})";
  return animation_json(a);
}

/// The x each display handle of `f` is at (spawn or update), by handle.
std::map<api::handle_id, float> xs(const api::frame& f) {
  std::map<api::handle_id, float> out;
  for (const auto* s : all_of<api::ev_display_spawn>(f)) {
    out[s->handle] = std::fabs(s->transform.translation[0]);
  }
  for (const auto* u : all_of<api::ev_display_update>(f)) {
    if (u->transform) {
      out[u->handle] = std::fabs(u->transform->translation[0]);
    }
  }
  return out;
}

sim::stress_config instances(std::size_t n) {
  sim::stress_config c;
  c.instances = n;
  return c;
}

} // namespace

TEST_CASE("stress instances: Animations only, assigned and phased by the fixed-seed plan") {
  const auto catalog = load({ramp("t:a", 40, "once"), ramp("t:b", 40, "loop")}, {}, false);
  sim::stress_run run(catalog, instances(5));
  const auto plan = rules::make_stress_plan({"t:b", "t:a"}, 5);
  CHECK(run.assignment() == plan.animations);
  const api::frame& f = run.create();
  CHECK(f.tick == 0);
  const auto spawns = all_of<api::ev_display_spawn>(f);
  REQUIRE(spawns.size() == 5); // one display each
  for (std::size_t i = 0; i < spawns.size(); ++i) {
    CHECK(spawns[i]->session == i + 1);
    CHECK(spawns[i]->handle == i + 1);
    const core::dvec3 want = rules::stress_grid_position(i, 5, {0.5, 64.0, 0.5}, 0.0F);
    CHECK(spawns[i]->position == want);
    CHECK(spawns[i]->dimension == "minecraft:overworld");
  }
  CHECK(run.requested() == 5);
  CHECK(run.active() == 5);
  CHECK(run.failures() == 0);
  CHECK(run.displays() == 5);
  CHECK(run.peak_displays() == 5);
}

TEST_CASE("stress instances: once and hold start at min(phase, D-1); loops advance phase ticks") {
  // Instance 0 has phase 80 and instance 1 phase 175 (players.md §8.3).
  SUBCASE("once, D = 40: tick 39") {
    sim::stress_run run(load({ramp("t:a", 40, "once")}, {}, false), instances(2));
    const auto x = xs(run.create());
    CHECK(x.at(1) == 39.0F);
    CHECK(x.at(2) == 39.0F);
  }
  SUBCASE("hold, D = 100: ticks 80 and 99") {
    sim::stress_run run(load({ramp("t:a", 100, "hold")}, {}, false), instances(2));
    const auto x = xs(run.create());
    CHECK(x.at(1) == 80.0F);
    CHECK(x.at(2) == 99.0F);
  }
  SUBCASE("loop, D = 50: 80 advances end at tick 30, 175 at tick 25") {
    // A loop reaching D begins again at 0 in the same advance: 80 = 50 + 30, 175 = 3·50 + 25.
    sim::stress_run run(load({ramp("t:a", 50, "loop")}, {}, false), instances(2));
    const auto x = xs(run.create());
    CHECK(x.at(1) == 30.0F);
    CHECK(x.at(2) == 25.0F);
  }
}

TEST_CASE("stress instances: a finished `once` instance begins again at tick 0") {
  sim::stress_run run(load({ramp("t:a", 40, "once")}, {}, false), instances(1));
  CHECK(xs(run.create()).at(1) == 39.0F);
  // Tick 1 reaches D = 40 and finishes; the instance begins again at 0 in the same tick, as a
  // `loop` with no delay does, so the frame shows pose 0.
  CHECK(xs(run.step()).at(1) == 0.0F);
  auto f = run.step();
  CHECK(f.tick == 2);
  CHECK(xs(f).at(1) == 1.0F);
  CHECK(all_of<api::ev_display_remove>(f).empty());
  CHECK(run.active() == 1);
  CHECK(xs(run.step()).at(1) == 2.0F);
}

TEST_CASE("stress instances: finish removes every display once and frees the handles") {
  sim::stress_run run(load({ramp("t:a", 40, "loop")}, {}, false), instances(3));
  run.create();
  run.step();
  const api::frame& f = run.finish();
  const auto removes = all_of<api::ev_display_remove>(f);
  REQUIRE(removes.size() == 3);
  CHECK(removes[0]->handles == std::vector<api::handle_id>{1});
  CHECK(run.active() == 0);
  CHECK(run.displays() == 0);
  CHECK(run.peak_displays() == 3);
  CHECK(run.finish().events.empty());
  CHECK(run.step().events.empty());
}

TEST_CASE("stress instances: no Animation, no instance; Sequences take no part") {
  const auto fixtures = load(); // the sim fixtures hold Animations and Sequences
  REQUIRE(fixtures->sequence_count() > 0);
  sim::stress_run run(fixtures, instances(40));
  CHECK(run.create().events.size() > 0);
  REQUIRE(run.assignment().size() == 40);
  for (const auto& id : run.assignment()) {
    const auto* e = fixtures->find(id);
    REQUIRE(e != nullptr);
    CHECK(e->kind == content::emote_kind::animation);
  }
  const auto empty = std::make_shared<const content::catalog>();
  sim::stress_run none(empty, instances(4));
  CHECK(none.create().events.empty());
  CHECK(none.step().events.empty());
  CHECK(none.active() == 0);
  CHECK(none.assignment().empty());
}

TEST_CASE("stress instances: the same plan twice, baked or not, gives the same records") {
  const auto catalog = load({ramp("t:a", 30, "once"), ramp("t:b", 45, "loop")});
  auto run_all = [&](std::size_t bake) {
    sim::stress_config c = instances(25);
    c.bake_budget = bake;
    sim::stress_run run(catalog, c);
    std::vector<std::string> out;
    auto take = [&](const api::frame& f) {
      for (const auto& e : f.events) {
        std::ostringstream o;
        o << describe(e);
        if (const auto* u = std::get_if<api::ev_display_update>(&e); u && u->transform) {
          for (float v : u->transform->translation) {
            o << ' ' << std::hash<float>{}(v);
          }
        }
        out.push_back(o.str());
      }
    };
    take(run.create());
    for (int i = 0; i < 120; ++i) {
      take(run.step());
    }
    take(run.finish());
    return out;
  };
  const auto a = run_all(std::size_t{64} << 20);
  CHECK(a.size() > 300);
  CHECK(a == run_all(std::size_t{64} << 20));
  CHECK(a == run_all(0));
}
