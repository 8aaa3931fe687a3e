// Evaluation semantics beyond the numbered examples (molang.md §3, §6): stores and their
// lifetimes, aliases, function values across programs, frames, operators on every value kind.
#include "engine/molang/evaluator.hpp"

#include "tests/molang/support.hpp"

using namespace molang_test;

TEST_CASE("operators convert every kind as molang.md §3.1 says") {
  // As number: strings, functions, blocks and objects are 0.
  CHECK(eval("'x' + 2") == 2);
  CHECK(eval("math.sin + 2") == 2);
  CHECK(eval("{} + 2") == 2);
  CHECK(eval("v + 2") == 2);
  CHECK(eval("t.q = q; t.q.any + 2") == 2);
  // As boolean: non-empty strings, math functions and blocks are true; objects and other
  // query functions false.
  CHECK(eval("!'x'") == 0);
  CHECK(eval("!''") == 1);
  CHECK(eval("!math.sin") == 0);
  CHECK(eval("!{}") == 0);
  CHECK(eval("!v") == 1);
  CHECK(eval("t.f = q; !t.f.any") == 1);
  CHECK(eval("-0") == 0);
  CHECK(same_bits(eval("-0"), -0.0));
  CHECK(same_bits(eval("0 * -1"), -0.0));
  CHECK(same_bits(eval("-v.unset"), -0.0));
  CHECK(same_bits(eval("1 / -0"), 0.0)); // division by ±0 is 0
  CHECK(eval("7 / 2") == 3.5);
  CHECK(eval("2 <= 2") == 1);
  CHECK(eval("2 >= 3") == 0);
  CHECK(eval("-0 == 0") == 1);
}

TEST_CASE("&&, || short-circuit and yield 1/0; ?? yields its operand") {
  CHECK(eval("1 || (v.x = 1); v.x") == 0);
  CHECK(eval("0 || (v.x = 1); v.x") == 1);
  CHECK(eval("1 && (v.x = 1); v.x") == 1);
  CHECK(eval("'a' && 'b'") == 1);
  CHECK(eval("v.s = 'str'; t.r = v.s ?? 3; q.any(t.r, 'str')") == 1);
  CHECK(eval("t.r = 0 ?? 'b'; q.any(t.r, 'b')") == 1);
  CHECK(eval("3 ?? (v.x = 1); v.x") == 0);
  CHECK(eval("t.f = {v.n = 1;} ?? 2; t.f(); v.n") == 1);
}

TEST_CASE("-> and [] evaluate their left part (and the index), never the right of ->") {
  CHECK(eval("(v.a = 1) -> (v.b = 2); v.a * 10 + v.b") == 10);
  CHECK(eval("(v.a = 1)[v.b = 2]; v.a * 10 + v.b") == 12);
}

TEST_CASE("assignment writes only X.name targets whose X is v, t or q") {
  CHECK(eval("x = 1; x") == 0);
  CHECK(eval("(1 + 2) = 4") == 4);
  CHECK(eval("math.pi = 4; math.pi") == doctest::Approx(3.141592653589793));
  CHECK(eval("c.x = 4; c.x") == 0);
  CHECK(eval("v.a.b = 1; v.b") == 0);
  CHECK(eval("t.o = v; t.o.b = 7; v.b") == 7);
  CHECK(eval("v = 3; v.x") == 0);
  CHECK(eval("(v.x) = 3; v.x") == 3); // parentheses leave no trace
  // The target's X is evaluated after the value.
  CHECK(eval("t.o = v; t.o.w = (t.o = t); v.w") == 0);
  CHECK(eval("t.o = v; t.o.w = (t.o = t); t.w ?? 9") == 9);
  CHECK(eval("t.o = v; t.p = t; t.p.o.w = 5; v.w") == 5);
}

TEST_CASE("stored values keep their kind") {
  harness h;
  CHECK(h.eval("v.s = 'abc'; v.f = math.abs; v.b = { v.ran = v.ran + 1; }; v.o = t; 1") == 1);
  CHECK(h.eval("q.any(v.s, 'abc')") == 1);
  CHECK(h.eval("v.f(-4)") == 4);
  CHECK(h.eval("v.b(); v.b(); v.ran") == 2);
  // An object value for t always means the temp store of the running evaluation.
  CHECK(h.eval("t.z = 5; v.o.z") == 5);
  CHECK(h.eval("v.o.z") == 0);
}

TEST_CASE("blocks stored by one program run in another, on the invoker's frame and temps") {
  harness h;
  const auto init = h.build("v.step = { t.seen = 1; v.count = v.count + 1; return 5; };");
  const auto tick = h.build("v.step(); t.seen * 100 + v.count");
  const auto probe = h.build("v.count");
  CHECK(h.run(*init).value == 0);
  // The block's `return` sets the invoker's (top) frame: the program's result is 5.
  CHECK(h.run(*tick).value == 5);
  CHECK(h.run(*probe).value == 1);
  const auto tick2 = h.build("t.seen = 0; v.step(); t.seen");
  CHECK(h.run(*tick2).value == 5);
  CHECK(h.run(*probe).value == 2);
  // In a loop, the return stops the loop after one iteration and is copied to the top frame.
  const auto tick3 = h.build("loop(3, v.step); 99");
  CHECK(h.run(*tick3).value == 5);
  CHECK(h.run(*probe).value == 3);
  // Without a return the statements after the call run and see the block's temps.
  const auto init2 = h.build("v.mark = { t.seen = 7; };");
  const auto tick4 = h.build("v.mark(); t.seen * 2");
  h.run(*init2);
  CHECK(h.run(*tick4).value == 14);
}

TEST_CASE("frames: ret and flag are checked between statements only") {
  CHECK(eval("(return 2) + (v.y = 9); v.y") == 2);
  CHECK(eval("return 2; v.y = 9") == 2);
  CHECK(eval("v.a = (return 3) + 4; v.a") == 3);
  CHECK(eval("(return 3); v.after = 1; return v.after") == 3);
  // A break outside a loop: every later block on the top frame runs its first statement only.
  CHECK(eval("continue; 1 ? { v.a = 1; v.b = 1; }; { v.c = 1; v.d = 1; }(); v.a + v.b + v.c * "
             "10 + v.d * 100") == 11);
  // Inside a loop iteration the flag ends the body; the next iteration starts clean.
  CHECK(eval("loop(3, { v.i = v.i + 1; continue; v.never = 1; }); v.i * 10 + v.never") == 30);
  // break in a block invoked by the branch rule inside a loop body stops the loop.
  CHECK(eval("loop(5, { v.i = v.i + 1; v.i == 2 ? { break; }; }); v.i") == 2);
}

TEST_CASE("loop: count then body evaluated once; fresh frames; return propagates") {
  CHECK(eval("loop((v.c = v.c + 1) + 2, { v.n = v.n + 1; }); v.c * 10 + v.n") == 13);
  CHECK(eval("loop(2, math.sin); 1") == 1);
  CHECK(eval("t.q = q; loop(2, t.q.any); 1") == 1);
  CHECK(error("loop(2, q.any); 1") == "must call query function any");
  CHECK(eval("loop(1024, {}); 1") == 1);
  CHECK(eval("loop(); 1") == 1);
  CHECK(eval("loop(3); 1") == 1);
  CHECK(eval("t.n = 0; loop(4, { t.n = t.n + 1; }); t.n") == 4); // the body shares t
  CHECK(eval("Loop(2, { v.n = v.n + 1; }); For_Each(v.x, 1, 1); v.n") == 2);
  CHECK(eval("loop") == 0); // read as a value, loop is an unknown root
  CHECK(eval("v.l = loop; v.l(2, { v.n = 1; }); v.n") == 0);
  // A parenthesised bare `loop` is still the loop form (parentheses leave no trace).
  CHECK(eval("(loop)(2, { v.n = v.n + 1; }); v.n") == 2);
}

TEST_CASE("calls evaluate only the arguments the callee takes") {
  CHECK(eval("v.f = math.pow; v.f(2, 3, v.x = 1); v.x") == 0);
  CHECK(eval("v.f = math.pow; v.f(2, 3)") == 8);
  CHECK(eval("v.f = math.pow; v.f(2)") == 1); // missing exponent 0
  CHECK(eval("v.b = { v.n = v.n + 1; }; v.b(v.x = 1, v.y = 1); v.n * 100 + v.x + v.y") == 100);
  CHECK(eval("v.z(v.x = 1); v.x") == 0); // not a function: nothing evaluated
  CHECK(eval("t.q = q; t.q.any(v.x = 1, 1, v.y = 2); v.x + v.y") == 3);
  CHECK(eval("(1 + 2)(v.x = 1); v.x") == 0);
  CHECK(eval("-v.f(v.x = 1); v.x") == 0);
  CHECK(same_bits(eval("v.f = math.abs; -v.f(0)"), -0.0)); // N1: -(v.f(0))
  CHECK(same_bits(eval("-5(3)"), 0.0));                    // (-5)(3): a literal callee
  CHECK(same_bits(eval("-(5)(3)"), 0.0));
  CHECK(eval("!math.abs(3)") == 0);
}

TEST_CASE("branch rule invokes function values with no arguments") {
  CHECK(eval("1 ? math.abs : 0") == 0);
  CHECK(eval("0 ? 0 : math.cos") == doctest::Approx(1));
  CHECK(eval("1 ? { v.a = 7; } : 0; v.a") == 7);
  CHECK(eval("t.f = { v.a = 8; }; 1 ? t.f; v.a") == 8);
  CHECK(eval("1 ? 'str' : 0") == 0);
  CHECK(eval("v.r = (1 ? { return 4; }); v.r") == 4); // return in a branch block sets the frame
}

TEST_CASE("q entries written through an alias last until the host rewrites them") {
  harness h;
  h.frame.anim_time = 2;
  // Within one evaluation the alias write shows through q.anim_time.
  CHECK(h.eval("t.a = q; t.a.anim_time = 5; q.anim_time") == 5);
  // A track expression in the same frame still sees it ...
  CHECK(h.eval("q.anim_time", program_kind::track) == 5);
  // ... until the host sets the queries again (begin_frame, or the next initialize/tick).
  h.sess().begin_frame();
  CHECK(h.eval("q.anim_time", program_kind::track) == 2);
  CHECK(h.eval("t.a = q; t.a.anim_time = 6; 1") == 1);
  CHECK(h.eval("q.anim_time") == 2); // a program evaluation implies the host rewrite
  // key_frame_lerp_time is set by the host before every evaluation.
  CHECK(h.eval("t.a = q; t.a.key_frame_lerp_time = 0.5; q.key_frame_lerp_time",
               program_kind::track) == 0.5);
  CHECK(h.eval("q.key_frame_lerp_time", program_kind::track) == 0);
  // Non-catalog entries last for the Molang session.
  CHECK(h.eval("t.a = q; t.a.custom = 3; 1") == 1);
  CHECK(h.eval("t.a = q; t.a.custom") == 3);
  h.sess().reset();
  CHECK(h.eval("t.a = q; t.a.custom") == 0);
  // Overwriting a query function with a number makes q.any not callable.
  CHECK(h.eval("t.a = q; t.a.any = 5; q.any(1, 1)") == 0);
}

TEST_CASE("session reset, rebinding to another symbol table, host queries") {
  harness h;
  CHECK(h.eval("v.x = 4; v.x") == 4);
  CHECK(h.eval("v.x") == 4);
  h.sess().reset();
  CHECK(h.eval("v.x") == 0);
  // A program of another table starts a new Molang session on this session object.
  symbol_table other;
  other.intern_name("padding");
  const auto p = compile("v.y = v.y + 1; v.y", program_kind::program, other);
  REQUIRE(p.ok());
  CHECK(h.run(*p.program).value == 1);
  CHECK(h.run(*p.program).value == 2);
  CHECK(&h.sess().symbols() == &other);
  // variable() reads the current store.
  CHECK(h.sess().variable(other.intern_name("y")).number == 2);
  // Names interned after the session was created still work (the stores grow).
  harness g;
  g.eval("1");
  std::string many;
  for (int i = 0; i < 300; ++i) {
    many += "v.n" + std::to_string(i) + " = " + std::to_string(i) + ";";
  }
  CHECK(g.eval(many + "v.n299") == 299);
}

TEST_CASE("generator: draws continue across evaluations and sessions") {
  harness h;
  h.rng.set_seed(42);
  CHECK(h.eval("math.random(0, 1)") == 0.7275636800328682);
  h.sess().reset();
  CHECK(h.eval("math.random(0, 1)") == 0.6832234717598455);
}

TEST_CASE("evaluation results are numbers: kinds convert at the end") {
  CHECK(eval("'a'") == 0);
  CHECK(eval("{}") == 0);
  CHECK(eval("math.cos") == 0);
  CHECK(eval("return 'a'") == 0);
  harness h;
  h.player.right_hand = {"minecraft:stick", false};
  CHECK(h.eval("q.is_item_equipped") == 1); // a query function whose number is its scalar
  CHECK(h.eval("return q.is_item_equipped") == 1);
  CHECK(h.eval("q.is_item_equipped ? 5 : 6") == 5);
  CHECK(h.eval("1 ? q.is_item_equipped : 6") == 1); // branch rule: called, no arguments
  CHECK(h.eval("!q.is_item_equipped") == 0);
}
