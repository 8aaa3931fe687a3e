// The run-time budget (molang.md §6) and hostile inputs: every input gives a clean diagnostic or
// a budget failure, never a crash, a hang or unbounded memory.
#include "engine/molang/evaluator.hpp"

#include "tests/molang/support.hpp"

#include <string>

using namespace molang_test;

namespace {
eval_status status_of(harness& h, std::string_view src) {
  const auto p = h.build(src);
  return h.run(*p).status;
}
eval_status status_of(std::string_view src) {
  harness h;
  return status_of(h, src);
}
std::string repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    out += s;
  }
  return out;
}
} // namespace

TEST_CASE("budget: 1,000,000 loop iterations and die draws together") {
  CHECK(status_of("loop(1000, { loop(999, {}); })") == eval_status::ok); // 1000 + 999,000
  CHECK(status_of("loop(1000, { loop(1000, {}); })") == eval_status::budget_exceeded);
  CHECK(status_of("loop(1000, { loop(998, {}); }); loop(1000, {})") == eval_status::ok);
  CHECK(status_of("loop(1000, { loop(998, {}); }); loop(1001, {})") ==
        eval_status::budget_exceeded);
  CHECK(status_of("math.die_roll(1000000, 1, 6)") == eval_status::ok);
  CHECK(status_of("math.die_roll(1000001, 1, 6)") == eval_status::budget_exceeded);
  CHECK(status_of("loop(10, {}); math.die_roll_integer(999990, 1, 6)") == eval_status::ok);
  CHECK(status_of("loop(10, {}); math.die_roll_integer(999991, 1, 6)") ==
        eval_status::budget_exceeded);
  // Rolls that draw nothing cost nothing.
  CHECK(status_of("math.die_roll(2000000000, 3, 3) + math.die_roll_integer(2000000000, 3, 3)") ==
        eval_status::ok);
  // Iterations of a loop whose body is not a block still count.
  CHECK(status_of("loop(1000, { loop(1000, math.sin); })") == eval_status::budget_exceeded);
  // The budget is per evaluation.
  harness h;
  const auto p = h.build("loop(1000, { loop(900, {}); })");
  CHECK(h.run(*p).status == eval_status::ok);
  CHECK(h.run(*p).status == eval_status::ok);
}

TEST_CASE("budget failure reports 0 and leaves the session usable") {
  harness h;
  const auto bad = h.build("v.x = 1; loop(1024, { loop(1024, {}); }); v.x = 2");
  const auto r = h.run(*bad);
  CHECK(r.status == eval_status::budget_exceeded);
  CHECK(r.value == 0);
  CHECK(h.eval("v.x") == 1);
  CHECK(h.eval("loop(3, { v.n = v.n + 1; }); v.n") == 3);
}

TEST_CASE("hostile: triple nested 1024 loops stop at the budget") {
  CHECK(status_of("loop(1024,{loop(1024,{loop(1024,{})})})") == eval_status::budget_exceeded);
  CHECK(status_of("loop(1024,{loop(1024,{loop(1024,{v.x = math.die_roll(1000, 1, 2);})})})") ==
        eval_status::budget_exceeded);
}

TEST_CASE("hostile: recursion through stored blocks is bounded") {
  CHECK(status_of("t.f = { t.f(); }; t.f()") == eval_status::budget_exceeded);
  CHECK(status_of("v.f = { v.f(); v.f(); }; v.f()") == eval_status::budget_exceeded);
  CHECK(status_of("t.f = { 1 ? t.f; }; 1 ? t.f") == eval_status::budget_exceeded);
  CHECK(status_of("t.f = { loop(2, t.f); }; t.f()") == eval_status::budget_exceeded);
  CHECK(status_of("t.a = { t.b(); }; t.b = { t.a(); }; t.a()") == eval_status::budget_exceeded);
  // Moderate legitimate nesting is fine.
  CHECK(status_of("t.d = 0; t.f = { t.d = t.d + 1; t.d < 100 ? t.f; }; t.f(); t.d") ==
        eval_status::ok);
}

TEST_CASE("hostile: 1 MiB of '(' and other oversized sources") {
  const std::string mib(1 << 20, '(');
  CHECK(error(mib) == "invalid Molang program: expression exceeds 16384 characters");
  CHECK(starts_with(error(std::string(16384, '(')), "invalid Molang program: "));
  CHECK(starts_with(error(std::string(16384, '{')), "invalid Molang program: "));
  CHECK(starts_with(error(std::string(16384, '[')), "invalid Molang program: "));
  CHECK(error(std::string(16384, '-')) == "invalid Molang program: expression nests too deeply");
  CHECK(error(std::string(16384, '!')) == "invalid Molang program: expression nests too deeply");
  CHECK(error(repeat("f(", 8192)) != "");
  CHECK(error(repeat("1?", 8192)) == "invalid Molang program: expression nests too deeply");
  CHECK(error(repeat("return ", 2340)) == "invalid Molang program: expression nests too deeply");
  CHECK(starts_with(error(std::string(16384, ')')), "invalid Molang program: "));
  CHECK(starts_with(error(std::string(16384, '@')), "invalid Molang program: "));
  CHECK(starts_with(error(std::string(16384, '\'')), "")); // 8192 empty strings: syntax error
  CHECK(starts_with(error("'" + std::string(16383, 'x')), "invalid Molang program: "));
}

TEST_CASE("hostile: deep ternaries, long chains, huge numbers compile and run") {
  CHECK(eval(repeat("0?1:", 4000) + "5") == 5);
  CHECK(eval(repeat("1?", 256) + "7" + repeat(":0", 256)) == 7);
  CHECK(error(repeat("1?", 257) + "7" + repeat(":0", 257)) ==
        "invalid Molang program: expression nests too deeply");
  CHECK(eval(std::string(16384, '9')) == 0);
  CHECK(eval("0." + std::string(16382, '0')) == 0);
  CHECK(eval(repeat(";", 16384)) == 0);
  CHECK(eval(repeat("1-", 8191) + "1") == -8190);
  CHECK(eval(repeat("v.x=", 4000) + "1") == 1);
  CHECK(eval(repeat("{}", 1) + repeat(";{}", 5000)) == 0);
  CHECK(eval("v.a" + repeat(".a", 8000)) == 0);
  CHECK(eval(repeat("(", 256) + "1" + repeat(")", 256) + repeat("(2)", 3000)) == 0);
  CHECK(eval("q.any(1" + repeat(",1", 8000) + ")") == 1);
  // A right-nested sum keeps 250 values on the stack (the session's stack grows once).
  CHECK(eval(repeat("1+(", 250) + "1" + std::string(250, ')')) == 251);
  CHECK(eval("math.abs(1" + repeat(",v.x=1", 2000) + "); v.x") == 0);
  CHECK(eval("t.q = q; t.q.any(1" + repeat(",v.x=1", 2000) + "); v.x") == 1);
}
