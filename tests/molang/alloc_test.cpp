// No heap allocation during evaluation (molang.md §6): a counting global allocator around
// 100,000 evaluations of each conformance expression shows 0 allocations. The session is created
// (and sized) before counting starts; reset() between evaluations is counted too.
#include "engine/molang/molang.hpp"

#include "tests/molang/support.hpp"

#include "support/counting_allocator.hpp"

#include <string>
#include <vector>

using emote::testing::allocation_scope;
using namespace molang_test;

namespace {
// Every evaluated expression of molang.md §7 (M1-M94), plus the hostile budget failures.
const std::vector<std::string> conformance_sources = {
    "q.anim_time * 2",
    "q.any('bow', 'sword', 'bow')",
    "q.all(2, 2, 3)",
    "q.in_range(2, 1, 2)",
    "q.approx_eq(1, 1, 1)",
    "q.scoreboard('combo')",
    "q.scoreboard('missing')",
    "q.is_item_equipped",
    "q.is_item_equipped('off_hand')",
    "q.is_item_name_any('main_hand','minecraft:bow')",
    "q.is_item_name_any('slot.armor.head','minecraft:diamond_helmet')",
    "q.item_is_charged('off_hand')",
    "q.position(1)",
    "q.position_delta(0)",
    "q.movement_direction(0)",
    "q.movement_direction(2)",
    "q.position(9)",
    "v.time = q.anim_time < 0.1 ? 0 : (v.time + q.delta_time); return v.time;",
    "v.result = q.enabled ? 10 : 20; q.enabled ? { v.selected = v.selected + 1; } : { "
    "v.rejected = v.rejected + 1; }; return v.result + v.selected * 100 + v.rejected * 1000;",
    "0 ? 1 : 1 ? 2 : 3",
    "0 ? 1 : 0 ? 2 : 3",
    "v.nested = 0 ? 1 : 1 ? 2 : 3; return v.nested;",
    "1 ? { v.before = 1; return 7; v.after = 1; }; return 9;",
    "return v.before;",
    "v.count = v.count + 1; t.value = t.value + 1; return v.count * 10 + t.value;",
    "math.abs(-2)",
    "math.acos(0)",
    "math.asin(1)",
    "math.atan(1)",
    "math.atan2(1, 1)",
    "math.ceil(1.2)",
    "math.floor(1.8)",
    "math.round(1.6)",
    "math.trunc(-1.8)",
    "math.clamp(4, 1, 3)",
    "math.copy_sign(2, -1)",
    "math.cos(60)",
    "math.sin(30)",
    "math.die_roll(2, 3, 3)",
    "math.die_roll_integer(2, 3, 3)",
    "math.exp(0)",
    "math.ln(1)",
    "math.sqrt(9)",
    "math.pow(2, 3)",
    "math.hermite_blend(0.5)",
    "math.inverse_lerp(2, 6, 3)",
    "math.lerp(2, 6, 0.25)",
    "math.lerprotate(170, -170, 0.5)",
    "math.max(2, 3)",
    "math.min(2, 3)",
    "math.min_angle(180)",
    "math.mod(5, 2)",
    "math.pi",
    "math.random(3, 3)",
    "math.random_integer(3, 3)",
    "math.sign(2)",
    "math.sign(0)",
    "math.ease_in_out_elastic(2, 6, 0.3)",
    "math.ease_out_bounce(2, 6, 0.7)",
    "math.ease_in_expo(2, 6, 1)",
    "math.ease_in_out_back(2, 6, 0.6)",
    "v.count = 0; loop(3, { v.count = v.count + 1; }); return v.count;",
    "v.x = 1; v.y = 1; loop(10, { t.x = v.x + v.y; v.x = v.y; v.y = t.x; }); return v.y;",
    "v.x = 0; loop(10, { (v.x > 5) ? continue; v.x = v.x + 1; }); return v.x;",
    "v.x = 0; loop(10, { loop(10, { v.x = v.x + 1; (v.x > 5) ? break; }); }); return v.x;",
    "v.i = 0; loop(10, { v.i = v.i + 1; v.i >= 3 ? break; }); return v.i;",
    "loop(2.5, { v.c = v.c + 1; }); return v.c;",
    "loop(5000, { v.c = v.c + 1; }); return v.c;",
    "loop(3, v.c = v.c + 1); return v.c;",
    "LOOP(3, { v.c = v.c + 1; }); return v.c;",
    "{ v.a = 1; }; return v.a;",
    "1 ? { v.a = 1; }; return v.a;",
    "1 + 2 * 3",
    "(1 + 2) * 3",
    "10 - 4 - 3",
    "8 / 4 / 2",
    "1 / 0",
    "0 / 0",
    "math.sqrt(-1)",
    "math.ln(0)",
    "math.pow(10, 400)",
    "math.mod(5, 0)",
    "math.inverse_lerp(2, 2, 3)",
    "-2 * -3",
    "- -2",
    "!0 + 1",
    "!1 == 0",
    "1 < 2 < 3",
    "3 > 2 > 1",
    "1 == 1 < 2",
    "1 || 0 && 0",
    "2 && 3",
    "0 || 0.5",
    "0 && (v.z = 1); return v.z;",
    "0 ?? 5",
    "3 ?? 5",
    "v.unset ?? 7",
    "'' ?? 4",
    "true + TRUE",
    "False",
    "Return 5",
    "'a' == 'b'",
    "'a' != 'b'",
    "'abc'",
    "'abc' ? 1 : 2",
    "'' ? 1 : 2",
    "math.round(2.5)",
    "math.round(-2.5)",
    "math.mod(-5, 3)",
    "math.trunc(-0.5)",
    "math.min_angle(540)",
    "math.lerprotate(10, 350, 0.5)",
    "math.random(5, 2)",
    "math.random_integer(3, 0)",
    "math.random_integer(0.5, 1.5)",
    "math.die_roll(1.2, 3, 3)",
    "math.die_roll_integer(-1, 1, 6)",
    "math.clamp(5, 3, 1)",
    "math.copy_sign(2, -0)",
    "math.hermite_blend(0.25)",
    "math.ease_in_back(0, 1, 0.5)",
    "math.ease_in_sine(0, 1, 0.5)",
    "-math.abs(2)",
    "!math.abs(0)",
    "math.abs()",
    "math.max(,5)",
    "math.abs(1, v.x = 5); return v.x;",
    "math.sin",
    "math.sin ? 1 : 2",
    "1 ? math.cos : 5",
    "math.foo(1)",
    "Math.Sin(90)",
    "",
    ";",
    "1;",
    "1;;",
    "v.a = 3; v.a",
    "v.a = 5",
    "1 +",
    "* 3",
    "1 // 2",
    "()",
    "!",
    "return;",
    "1 ? 2 :",
    "v.a = v.b = 3; return v.a + v.b * 10;",
    "v.x = 1 ? 5; return v.x;",
    "v.x = 0 ? 5 : 6; return v.x;",
    "c.x",
    "context.x",
    "foo.bar",
    "this",
    "v.a.b",
    "v.a -> v.b",
    "q",
    "t.x = 5; t.x",
    "t.x",
    "v.s = 'hi'; v.s ? 1 : 0",
    "v.s = 'hi'",
    "q.approx_eq(0.1 + 0.2, 0.3)",
    "q.any(1, 'a')",
    "q.any('1', 1)",
    "q.in_range(3, 1, 2)",
    "1.",
    "007",
    "t.x = 1; t.x",
    "v.a.b = 1",
    "q.anim_time.x",
    "QUERY.ANIM_TIME",
    "q.Position(1)",
    "t.q = q; t.q.foo(1)",
    "(1 ? 0 : 1) ? 5 : 6",
    "(v.x = 0) ? 2 : 3; return v.x;",
    "1 ? 7 : 0 ? 5",
    "0 ? 7 : 0 ? 5",
    "{ v.a = 1; }(); return v.a;",
    "1(2)",
    "math.pi(1)",
    "5 (v.x = 1); return v.x;",
    "1 + 2 (3)",
    "v.f = math.sin; v.f(30)",
    "t.f = { v.n = v.n + 1; }; 1 ? t.f : 0; t.f(); loop(2, t.f); return v.n;",
    "for_each(t.x, v.a = 1, { v.b = 1; }); return v.a * 10 + v.b;",
    "for_each(1, v.a = 1, {}); return v.a;",
    "v.q[v.a = 4]; return v.a;",
    "[v.k = 2]; v.k",
    "v.a = v; v.a.b = 1; return v.b;",
    "v . x",
    "break; 1 ? { v.a = 1; v.b = 1; }; return v.a * 10 + v.b;",
    "loop(0, v.c = 7); return v.c;",
    "loop(3, { v.c = v.c + 1; }, v.d = 1); return v.c * 10 + v.d;",
    "loop(0.5, { v.e = v.e + 1; }); return v.e;",
    "loop(2, { loop(2, { v.n = v.n + 1; continue; v.bad = 1; }); v.m = v.m + 1; }); return v.n "
    "* 100 + v.m * 10 + v.bad;",
    "loop(3, { v.i = v.i + 1; return v.i; }); 99",
    "--math.abs(-3)",
    "-(0)",
    "-'s'",
    "1 ? return 5 : 3",
    "(return 1) + (return 2)",
    "'a' ?? 5",
    "q.any(math.sin, 0)",
    "'a' + 1",
    "v.s = 'x'; q.any(v.s, 'x')",
    "math.random_integer(-3.5, -3.2)",
    "math.round(-0.4)",
    "math.ceil(-0.5)",
    "math.min(0, -0)",
    "math.max(-0, 0)",
    "math.ease_in_circ(2, 6, 1.5)",
    "math.clamp(2, 1)",
    "math.random(0, 1)",
    "math.random(-5, 5)",
    "math.random_integer(1, 6)",
    "math.random_integer(0, 1)",
    "math.die_roll(3, 1, 6)",
    "math.die_roll_integer(3, 1, 6)",
    "math.random_integer(-1000000, 1000000)",
    "math.random(1, 2) + math.random_integer(10, 20) * 100",
    "math.random(3, 3) + math.random_integer(2, 2); math.random(0, 1)",
    "t.a = q; t.a.anim_time = 3; q.anim_time",
    "t.d = 0; t.f = { t.d = t.d + 1; t.d < 20 ? t.f; "
    "}; t.f(); t.d",
    "1 + math.sin(q.anim_time * 180) * 0.05"};
} // namespace

TEST_CASE("no allocation over 100,000 evaluations of each conformance expression") {
  harness h;
  h.options.host_queries = {"enabled"};
  h.player.right_hand = {"minecraft:bow", false};
  h.player.left_hand = {"minecraft:crossbow", false};
  h.player.head = {"minecraft:diamond_helmet", false};
  h.player.scores = {{"combo", 12}};
  h.player.position = {10, 20, 30};
  h.player.velocity = {3, 0, 4};
  h.frame.anim_time = 1.25;
  h.frame.delta_time = 0.05;
  std::vector<std::shared_ptr<const program>> programs;
  for (const auto& src : conformance_sources) {
    programs.push_back(h.build(src));
  }
  session& s = h.sess();
  s.set_query(h.symbols.intern_name("enabled"), 1);
  long total_evaluations = 0;
  for (std::size_t i = 0; i < programs.size(); ++i) {
    CAPTURE(conformance_sources[i]);
    const allocation_scope counted;
    for (int n = 0; n < 100'000; ++n) {
      if (n % 7 == 0) {
        s.reset();
      }
      const auto r = evaluate(*programs[i], s, h.frame, &h.player, h.rng);
      (void)r;
    }
    total_evaluations += 100'000;
    CHECK(counted.allocations() == 0);
  }
  CHECK(total_evaluations == 100'000 * static_cast<long>(conformance_sources.size()));
}

TEST_CASE("budget failures do not allocate either") {
  harness h;
  const auto p = h.build("loop(1024,{loop(1024,{loop(1024,{})})})");
  const auto rec = h.build("t.f = { t.f(); }; t.f()");
  session& s = h.sess();
  REQUIRE(evaluate(*rec, s, h.frame, &h.player, h.rng).status == eval_status::budget_exceeded);
  const allocation_scope counted;
  for (int n = 0; n < 3; ++n) {
    CHECK(evaluate(*p, s, h.frame, &h.player, h.rng).status == eval_status::budget_exceeded);
    CHECK(evaluate(*rec, s, h.frame, &h.player, h.rng).status == eval_status::budget_exceeded);
  }
  CHECK(counted.allocations() == 0);
}

TEST_CASE("the counting allocator counts") {
  static std::vector<int>* volatile sink = nullptr; // the allocation escapes: it cannot be elided
  const allocation_scope counted;
  sink = new std::vector<int>(10);
  CHECK(counted.allocations() >= 2);
  delete sink;
}
