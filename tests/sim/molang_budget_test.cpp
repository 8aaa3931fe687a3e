// The per-tick Molang operation budgets (players.md §8.6, R74-R78): a session over its own budget,
// or over what the server has left in the tick, stops with MOLANG_BUDGET; the counts are
// operations, so the same inputs stop the same sessions at the same ticks.

#include "support.hpp"


using namespace simtest;

namespace {

/// `demo:heavy<n>`: from tick `from` on, every tick runs 1,000 × `inner` loop iterations in a
/// track expression (about 8 operations each); before that, a handful of operations.
std::string heavy(const std::string& id, int inner, int from = 2) {
  anim_spec a;
  a.id = id;
  a.tracks =
      R"({"d0": {"position": [{"time": "0t", "value": ["t.x = 0; loop(q.anim_time_ticks >= )" +
      std::to_string(from) + R"( ? 1000 : 0, { loop()" + std::to_string(inner) +
      R"(, { t.x = t.x + 1; }); }); return 0;", 0, 0]}]}})";
  return animation_json(a);
}

sim::engine_config budgets(std::uint64_t session, std::uint64_t server) {
  sim::engine_config c;
  c.molang_session_tick_ops = session;
  c.molang_server_tick_ops = server;
  return c;
}

} // namespace

TEST_CASE("R74 a session over its per-tick budget stops with MOLANG_BUDGET in that tick") {
  harness h(budgets(50'000, 0), {heavy("demo:heavy", 10)}); // ~80,000 operations from tick 2
  h.join("alice", {0, 64, 0});
  CHECK(code(h.play("alice", "demo:heavy")) == "ok");
  h.run_to(5);
  CHECK(h.all_records() == strings{"0:started(1,alice,demo:heavy,solo)",
                                   "2:stopped(1,alice,demo:heavy,MOLANG_BUDGET)"});
}

TEST_CASE("R75 under the budget, or with the budget off, the session plays on") {
  for (const std::uint64_t session : {std::uint64_t{200'000}, std::uint64_t{0}}) {
    CAPTURE(session);
    harness h(budgets(session, 0), {heavy("demo:heavy", 10)});
    h.join("alice", {0, 64, 0});
    CHECK(code(h.play("alice", "demo:heavy")) == "ok");
    h.run_to(6);
    CHECK(h.all_records() == strings{"0:started(1,alice,demo:heavy,solo)"});
  }
}

TEST_CASE("R76 the server budget stops the session that runs it out, in creation order") {
  // Each session needs ~80,000 operations per tick from tick 2; the server allows 100,000.
  harness h(budgets(0, 100'000), {heavy("demo:heavy", 10)});
  h.join("alice", {0, 64, 0});
  h.join("bob", {10, 64, 0});
  CHECK(code(h.play("alice", "demo:heavy")) == "ok");
  CHECK(code(h.play("bob", "demo:heavy")) == "ok");
  h.run_to(6);
  CHECK(h.all_records() == strings{"0:started(1,alice,demo:heavy,solo)",
                                   "0:started(2,bob,demo:heavy,solo)",
                                   "2:stopped(2,bob,demo:heavy,MOLANG_BUDGET)"});
}

TEST_CASE("R77 the budgets start afresh every tick") {
  // ~80,000 operations in every tick from 2: always under 100,000 per tick, far over in total.
  harness h(budgets(100'000, 100'000), {heavy("demo:heavy", 10)});
  h.join("alice", {0, 64, 0});
  CHECK(code(h.play("alice", "demo:heavy")) == "ok");
  h.run_to(12);
  CHECK(h.all_records() == strings{"0:started(1,alice,demo:heavy,solo)"});
}

TEST_CASE(
    "R78 over the budget while starting: the start fails and the session stops MOLANG_BUDGET") {
  harness h(budgets(50'000, 0), {heavy("demo:heavy", 10, 0)});
  h.join("alice", {0, 64, 0});
  const api::reply r = h.play("alice", "demo:heavy");
  CHECK(code(r) == "molang_budget");
  h.step();
  CHECK(h.all_records() == strings{"0:stopped(1,alice,demo:heavy,MOLANG_BUDGET)"});
}

// players.md §6.2: a start whose Molang fails on its own (here recursion past the depth limit,
// molang.md §6) is refused `molang_error`, not `internal` (which is kept for bugs).
TEST_CASE("recursion while starting: the start is refused molang_error, the session stops ERROR") {
  anim_spec a;
  a.id = "demo:recurse";
  a.tracks = R"({"d0": {"position": [{"time": "0t", "value": ["t.f = { return t.f(); }; )"
             R"(return t.f();", 0, 0]}]}})";
  harness h(budgets(0, 0), {animation_json(a)});
  h.join("alice", {0, 64, 0});
  const api::reply r = h.play("alice", "demo:recurse");
  CHECK(code(r) == "molang_error");
  h.step();
  CHECK(h.all_records() == strings{"0:stopped(1,alice,demo:recurse,ERROR)"});
  // With the default budgets too (the recursion is not a budget matter).
  harness d(sim::engine_config{}, {animation_json(a)});
  d.join("alice", {0, 64, 0});
  CHECK(code(d.play("alice", "demo:recurse")) == "molang_error");
}

// The attack of an emote that `check` passes calling q.scoreboard in loops on players with many
// scores: a lookup is keyed (molang.md §5.3), so a tick costs about the same with 20,000 scores
// as with one, and each lookup is charged its probes (molang.md §6).
// Whether a lookup's time stays flat in the number of scores is a benchmark's question
// (bench/molang_bench.cpp, bm_scoreboard_1000_lookups), not a timed test's.
TEST_CASE("scoreboard lookups among 20,000 scores stay within the default budgets") {
  anim_spec a;
  a.id = "demo:scores";
  a.duration = 400;
  a.tracks = R"({"d0": {"position": [{"time": "0t", "value": ["t.x = 0; loop(1000, { t.x = )"
             R"(t.x + q.scoreboard('k10000'); }); return 0;", 0, 0]}]}})";
  const auto play_with = [&](int scores) {
    harness h(sim::engine_config{}, {animation_json(a)});
    api::player_fields f;
    std::map<std::string, std::int32_t> m;
    for (int i = 0; i < scores; ++i) {
      m.emplace("k" + std::to_string(10000 + i), i);
    }
    f.scores = std::move(m);
    h.join("alice", {0, 64, 0}, 0, f);
    REQUIRE(code(h.play("alice", "demo:scores")) == "ok");
    h.run_to(45);
    CHECK(h.find("stopped").empty()); // within the default budgets either way
  };
  play_with(1);
  play_with(20000);
}

TEST_CASE("the default budgets: a heavy emote stops, the fixtures play") {
  harness h(sim::engine_config{}, {heavy("demo:heavy", 200)}); // ~1.6 million operations
  h.join("alice", {0, 64, 0});
  h.join("bob", {10, 64, 0});
  CHECK(code(h.play("alice", "demo:heavy")) == "ok");
  CHECK(code(h.play("bob", "demo:wave")) == "ok");
  h.run_to(4);
  CHECK(h.find("MOLANG_BUDGET") == strings{"2:stopped(1,alice,demo:heavy,MOLANG_BUDGET)"});
  CHECK(h.find("bob").size() == 1); // started, still playing
}

TEST_CASE("50 players on a heavy emote: every session stops in the tick it turns heavy") {
  // ~6.3 million operations per session per tick from tick 5 (about 13 ms unbudgeted here):
  // the first sessions run out of their own budget, the rest of the server's.
  harness h(sim::engine_config{}, {heavy("demo:heavy", 700, 5)});
  for (int i = 0; i < 50; ++i) {
    const std::string p = "p" + std::to_string(i);
    h.join(p, {3.0 * i, 64, 0});
    REQUIRE(code(h.play(p, "demo:heavy")) == "ok");
  }
  h.run_to(8);
  const strings stops = h.find("MOLANG_BUDGET");
  CHECK(stops.size() == 50);
  for (const std::string& s : stops) {
    CHECK(s.rfind("5:stopped(", 0) == 0);
  }
  CHECK(h.find("stopped").size() == 50);
}
