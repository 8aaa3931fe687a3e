// Operation counts (molang.md §6): every evaluation reports the operations it executed, the same
// count for the same program on the same state, and an operation limit stops it deterministically.
#include "engine/molang/cost.hpp"
#include "engine/molang/queries.hpp"
#include "engine/molang/molang.hpp"

#include "tests/molang/support.hpp"

#include <cstdio>

using namespace molang_test;

TEST_CASE("an evaluation counts its operations, the same every time") {
  harness h;
  const auto constant = h.build("1");
  const auto sum = h.build("1 + 2 * q.anim_time");
  const auto looped = h.build("t.x = 0; loop(10, { t.x = t.x + 1; }); return t.x;");
  const auto looped20 = h.build("t.x = 0; loop(20, { t.x = t.x + 1; }); return t.x;");
  session& s = h.sess();
  const auto ops = [&](const auto& p) {
    const eval_result a = evaluate(*p, s, h.frame, &h.player, h.rng);
    const eval_result b = evaluate(*p, s, h.frame, &h.player, h.rng);
    REQUIRE(a.status == eval_status::ok);
    CHECK(a.ops == b.ops);
    return a.ops;
  };
  const std::uint64_t c = ops(constant);
  CHECK(c >= 1);
  CHECK(ops(sum) > c);
  const std::uint64_t l10 = ops(looped);
  const std::uint64_t l20 = ops(looped20);
  // Ten more iterations cost ten times the body: the count grows linearly with the work.
  CHECK(l20 > l10);
  CHECK((l20 - l10) % 10 == 0);
  const std::uint64_t body = (l20 - l10) / 10;
  CHECK(body >= 4); // load, push, add, store at least, plus the iteration
  CHECK(l10 > 10 * body);
}

TEST_CASE("random draws count as operations") {
  harness h;
  const auto few = h.build("math.die_roll(1, 1, 2)");
  const auto many = h.build("math.die_roll(101, 1, 2)");
  session& s = h.sess();
  const auto a = evaluate(*few, s, h.frame, &h.player, h.rng);
  const auto b = evaluate(*many, s, h.frame, &h.player, h.rng);
  CHECK(b.ops - a.ops == 100);
}

TEST_CASE("an operation limit stops the evaluation exactly past it") {
  harness h;
  const auto p = h.build("t.x = 0; loop(100, { t.x = t.x + 1; }); return t.x;");
  session& s = h.sess();
  const eval_result full = evaluate(*p, s, h.frame, &h.player, h.rng);
  REQUIRE(full.status == eval_status::ok);
  CHECK(full.value == 100);
  const eval_result at = evaluate(*p, s, h.frame, &h.player, h.rng, full.ops);
  CHECK(at.status == eval_status::ok);
  CHECK(at.ops == full.ops);
  const eval_result under = evaluate(*p, s, h.frame, &h.player, h.rng, full.ops - 1);
  CHECK(under.status == eval_status::op_limit_exceeded);
  CHECK(under.ops == full.ops);
  const eval_result tiny = evaluate(*p, s, h.frame, &h.player, h.rng, 3);
  CHECK(tiny.status == eval_status::op_limit_exceeded);
  CHECK(tiny.ops == 4); // stopped at the first operation past the limit
  // The session stays usable after a stop.
  CHECK(evaluate(*p, s, h.frame, &h.player, h.rng).value == 100);
}

TEST_CASE("a per-evaluation budget failure reports its operations too") {
  harness h;
  const auto p = h.build("loop(1024,{loop(1024,{})})");
  session& s = h.sess();
  const eval_result r = evaluate(*p, s, h.frame, &h.player, h.rng);
  CHECK(r.status == eval_status::budget_exceeded);
  CHECK(r.ops > iteration_budget);
}

TEST_CASE("a program's operation bound is at least what any evaluation executes") {
  harness h;
  const std::vector<std::string> sources = {
      "1",
      "q.anim_time * 2",
      "1 + math.sin(q.anim_time * 180) * 0.05",
      "v.time = q.anim_time < 0.1 ? 0 : (v.time + q.delta_time); return v.time;",
      "v.result = q.anim_time > 1 ? 10 : 20; q.anim_time > 2 ? { v.a = v.a + 1; } : { v.b = v.b + 1; }; "
      "return v.result;",
      "t.x = 0; loop(10, { t.x = t.x + 1; t.x > 5 ? break; }); return t.x;",
      "t.x = 0; loop(3, { loop(4, { t.x = t.x + q.position(1); }); }); return t.x;",
      "t.x = 0; loop(v.n, { t.x = t.x + 1; }); return t.x;",
      "math.die_roll(50, 1, 2) + math.die_roll_integer(3, 1, 6)",
      "q.is_item_name_any('main_hand', 'minecraft:bow', 'minecraft:stick')",
      "return 1 ? 2 : 3 ?? 4;",
  };
  session& s = h.sess();
  for (const std::string& src : sources) {
    CAPTURE(src);
    const auto p = h.build(src);
    for (int i = 0; i < 3; ++i) { // v.* change between evaluations
      const eval_result r = evaluate(*p, s, h.frame, &h.player, h.rng);
      REQUIRE(r.status == eval_status::ok);
      CHECK(r.ops <= p->op_bound());
    }
  }
  // A non-constant count is taken at the 1,024-iteration cap: v.n = 2000 runs 1,024 times.
  const auto set = h.build("v.n = 2000;");
  evaluate(*set, s, h.frame, &h.player, h.rng);
  const auto capped = h.build("t.x = 0; loop(v.n, { t.x = t.x + 1; }); return t.x;");
  const eval_result r = evaluate(*capped, s, h.frame, &h.player, h.rng);
  CHECK(r.value == 1024);
  CHECK(r.ops <= capped->op_bound());
}

TEST_CASE("the bound grows with constant loop counts and is unbounded for stored functions") {
  harness h;
  const auto ten = h.build("loop(10, { t.x = t.x + 1; })");
  const auto thousand = h.build("loop(1000, { t.x = t.x + 1; })");
  CHECK(thousand->op_bound() > 50 * ten->op_bound());
  CHECK(thousand->op_bound() < 200 * ten->op_bound());
  CHECK(h.build("t.f = { return 1; }; t.f()")->op_bound() == unbounded_ops);
  CHECK(h.build("v.f = { return 1; }; loop(3, v.f)")->op_bound() == unbounded_ops);
  CHECK(h.build("math.die_roll(v.n, 1, 2)")->op_bound() > iteration_budget);
  CHECK(h.build("q.anim_time")->op_bound() < 20);
}

// molang.md §6: a scoreboard lookup is keyed, and charged its probes: the attack of an emote
// calling q.scoreboard in loops on a player with many scores is bounded by the budget again.
TEST_CASE("a scoreboard lookup is charged its probes; the bound covers a player at the cap") {
  harness h;
  const auto p = h.build("t.x = 0; loop(100, { t.x = t.x + q.scoreboard('k0512'); }); return t.x;");
  session& s = h.sess();
  const eval_result none = evaluate(*p, s, h.frame, &h.player, h.rng);
  REQUIRE(none.status == eval_status::ok);
  CHECK(none.value == 0);
  // At the cap (1,024 scores, sorted as player_view keeps them): 11 probes per lookup.
  for (int i = 0; i < static_cast<int>(max_scores); ++i) {
    char name[8];
    std::snprintf(name, sizeof name, "k%04d", i);
    h.player.scores.emplace_back(name, i);
  }
  const eval_result full = evaluate(*p, s, h.frame, &h.player, h.rng);
  REQUIRE(full.status == eval_status::ok);
  CHECK(full.value == 100 * 512);
  CHECK(score_lookup_ops(max_scores) == 11);
  CHECK(full.ops - none.ops == 100 * score_lookup_ops(max_scores));
  CHECK(full.ops <= p->op_bound());
  // The lookup is by key: missing names and the ends are found right.
  CHECK(h.eval("q.scoreboard('k0000') + q.scoreboard('k1023') + q.scoreboard('k9') + "
               "q.scoreboard('')") == 1023);
  // The charge counts against the limit like any operation.
  const eval_result limited = evaluate(*p, s, h.frame, &h.player, h.rng, none.ops + 50);
  CHECK(limited.status == eval_status::op_limit_exceeded);
}
