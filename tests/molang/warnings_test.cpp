// Quirk warnings for `check` (molang.md §3.8): every gist with its trigger and a non-trigger.
#include "engine/molang/compiler.hpp"

#include "tests/molang/support.hpp"

#include <algorithm>
#include <string>
#include <vector>

using namespace molang_test;

namespace {
std::vector<std::string> warnings_of(std::string_view src,
                                     program_kind kind = program_kind::program,
                                     int select_options = -1) {
  symbol_table symbols;
  compile_options options;
  options.select_options = select_options;
  const auto out = compile(src, kind, symbols, options);
  INFO("source: ", shown(src), " error: ", out.error);
  REQUIRE(out.ok());
  std::vector<std::string> messages;
  for (const auto& w : out.warnings) {
    messages.push_back(w.message);
  }
  return messages;
}

bool has(const std::vector<std::string>& all, std::string_view gist) {
  return std::any_of(all.begin(), all.end(),
                     [&](const std::string& m) { return m.rfind(gist, 0) == 0; });
}

int count(const std::vector<std::string>& all, std::string_view gist) {
  return static_cast<int>(std::count_if(
      all.begin(), all.end(), [&](const std::string& m) { return m.rfind(gist, 0) == 0; }));
}
} // namespace

TEST_CASE("messages are '<gist>: at <line>:<col>' in source order") {
  const auto w = warnings_of("v.a = 1;;\n  c.x");
  REQUIRE(w.size() == 2);
  CHECK(w[0] == "empty statement: at 1:9");
  CHECK(w[1] == "always 0: at 2:3");
  symbol_table symbols;
  const auto out = compile("1 +", program_kind::program, symbols);
  REQUIRE(out.warnings.size() == 1);
  CHECK(out.warnings[0].gist == "missing operand replaced by 0");
  CHECK(out.warnings[0].line == 1);
  CHECK(out.warnings[0].column == 4);
  CHECK(warnings_of("v.a = 1; v.b = v.a * 2; return v.b;").empty());
  // Warnings can be switched off.
  compile_options quiet;
  quiet.warnings = false;
  CHECK(compile("c.x", program_kind::program, symbols, quiet).warnings.empty());
}

TEST_CASE("missing operand replaced by 0") {
  const std::string_view gist = "missing operand replaced by 0";
  for (const char* src : {"1 +", "* 3", "()", "!", "return;", "1 ? 2 :", "f(,1)", "f(1,)", "[1]",
                          "{;1}", "{1;;2}", "1 + ;"}) {
    CAPTURE(src);
    CHECK(has(warnings_of(src), gist));
  }
  for (const char* src : {"{}", "{1;}", "1;", "f()", "loop()", ";"}) {
    CAPTURE(src);
    CHECK_FALSE(has(warnings_of(src), gist));
  }
  CHECK(warnings_of("1 +")[0] == "missing operand replaced by 0: at 1:4");
}

TEST_CASE("empty statement") {
  CHECK(warnings_of(";") == std::vector<std::string>{"empty statement: at 1:1"});
  CHECK(warnings_of("1;;") == std::vector<std::string>{"empty statement: at 1:3"});
  CHECK(count(warnings_of(";;;"), "empty statement") == 3);
  CHECK(warnings_of("1; ").empty());
  CHECK_FALSE(has(warnings_of("{1;;2}"), "empty statement"));
}

TEST_CASE("parentheses ignored by ternary regrouping") {
  CHECK(warnings_of("(1 ? 0 : 1) ? 5 : 6") ==
        std::vector<std::string>{"parentheses ignored by ternary regrouping: at 1:1"});
  CHECK(has(warnings_of("(v.x = 0) ? 2 : 3"), "parentheses ignored by ternary regrouping"));
  CHECK_FALSE(has(warnings_of("0 ? 1 : 1 ? 2 : 3"), "parentheses ignored"));
  CHECK_FALSE(has(warnings_of("v.x = 0 ? 5 : 6"), "parentheses ignored"));
  CHECK_FALSE(has(warnings_of("1 ? (0 ? 1 : 2) : 3"), "parentheses ignored"));
}

TEST_CASE("binary conditional groups to the left") {
  CHECK(warnings_of("v.x = 1 ? 5") ==
        std::vector<std::string>{"binary conditional groups to the left: at 1:9"});
  CHECK(has(warnings_of("1 ? 7 : 0 ? 5"), "binary conditional groups to the left"));
  CHECK_FALSE(has(warnings_of("v.c ? 5"), "binary conditional"));
  CHECK_FALSE(has(warnings_of("v.x = 1 ? 5 : 6"), "binary conditional"));
}

TEST_CASE("assignment writes nothing") {
  const std::string_view gist = "assignment writes nothing";
  for (const char* src :
       {"x = 1", "(1) = 1", "math.x = 1", "c.x = 1", "v.a.b = 1", "v.a = v.b = 3", "v = 1"}) {
    CAPTURE(src);
    CHECK(has(warnings_of(src), gist));
  }
  for (const char* src : {"v.a = 1", "variable.a = 1", "t.a = 1", "TEMP.a = 1"}) {
    CAPTURE(src);
    CHECK_FALSE(has(warnings_of(src), gist));
  }
  CHECK(count(warnings_of("v.a = v.b = 3"), gist) == 1); // only the outer `=`
  CHECK(warnings_of("x = 1")[0] == "assignment writes nothing: at 1:3");
}

TEST_CASE("always 0") {
  const std::string_view gist = "always 0";
  for (const char* src :
       {"c.x", "context.x", "foo", "this", "geometry.x", "v.a.b", "math.e", "math.tan",
        "v.a -> v.b", "v.a[0]", "for_each(t.x, 1, {})", "loop", "q.anim_time.x"}) {
    CAPTURE(src);
    CHECK(has(warnings_of(src), gist));
  }
  for (const char* src : {"v.a", "math.pi", "math.sin", "q.anim_time", "t.x", "v.a = 1"}) {
    CAPTURE(src);
    CHECK_FALSE(has(warnings_of(src), gist));
  }
}

TEST_CASE("not callable") {
  const std::string_view gist = "not callable";
  for (const char* src :
       {"1(2)", "'s'(1)", "math.pi(1)", "math.foo(1)", "foo(1)", "c.x(1)", "-5(3)", "this()"}) {
    CAPTURE(src);
    const auto w = warnings_of(src);
    CHECK(has(w, gist));
    CHECK_FALSE(has(w, "always 0")); // reported once, as not callable
  }
  for (const char* src : {"v.f(1)", "t.f()", "{}()", "math.sin(1)", "q.any(1, 2)"}) {
    CAPTURE(src);
    CHECK_FALSE(has(warnings_of(src), gist));
  }
}

TEST_CASE("math arity") {
  CHECK(warnings_of("math.sin()") == std::vector<std::string>{"math arity: at 1:1"});
  CHECK(has(warnings_of("math.abs(1, 2)"), "math arity"));
  CHECK(has(warnings_of("math.clamp(2, 1)"), "math arity"));
  CHECK_FALSE(has(warnings_of("math.max(,5)"), "math arity"));
  CHECK_FALSE(has(warnings_of("math.lerp(1, 2, 3)"), "math arity"));
}

TEST_CASE("loop body not a block") {
  const std::string_view gist = "loop body not a block";
  for (const char* src : {"loop(3, v.c = 1)", "loop(3)", "loop(3, t.f)", "loop(3, {}, 1)",
                          "loop(2.5, {})", "loop(-1, {})", "loop(5000, {})", "loop()"}) {
    CAPTURE(src);
    CHECK(has(warnings_of(src), gist));
  }
  for (const char* src : {"loop(3, {})", "loop(0, {})", "loop(1024, {})", "loop(v.n, {})"}) {
    CAPTURE(src);
    CHECK_FALSE(has(warnings_of(src), gist));
  }
}

TEST_CASE("block never runs") {
  const std::string_view gist = "block never runs";
  for (const char* src : {"{ v.a = 1; };", "{} + 1", "q.any({}, 1)", "math.abs({})", "return {}",
                          "{} ?? 1", "loop({}, {})"}) {
    CAPTURE(src);
    CHECK(has(warnings_of(src), gist));
  }
  for (const char* src : {"1 ? {}", "1 ? {} : {}", "loop(1, {})", "for_each(t.x, 1, {})", "{}()",
                          "t.f = {}", "({})()", "1 ? { {}(); }"}) {
    CAPTURE(src);
    CHECK_FALSE(has(warnings_of(src), gist));
  }
}

TEST_CASE("break/continue outside loop") {
  const std::string_view gist = "break/continue outside loop";
  CHECK(warnings_of("break") == std::vector<std::string>{"break/continue outside loop: at 1:1"});
  CHECK(has(warnings_of("1 ? { continue; }"), gist));
  CHECK(has(warnings_of("t.f = { break; }"), gist));
  CHECK_FALSE(has(warnings_of("loop(2, { break; })"), gist));
  CHECK_FALSE(has(warnings_of("loop(2, { 1 ? { continue; }; })"), gist));
}

TEST_CASE("string used as number") {
  const std::string_view gist = "string used as number";
  for (const char* src : {"'a' + 1", "1 - 'a'", "'a' * 2", "2 / 'a'", "'a' < 1", "'a' == 'b'",
                          "-'s'", "('a') != 1"}) {
    CAPTURE(src);
    CHECK(has(warnings_of(src), gist));
  }
  CHECK(count(warnings_of("'a' == 'b'"), gist) == 2);
  for (const char* src : {"!'a'", "'a' && 1", "'a' ?? 1", "q.any('a', 'b')", "v.s = 'a'"}) {
    CAPTURE(src);
    CHECK_FALSE(has(warnings_of(src), gist));
  }
}

TEST_CASE("?? tests truthiness") {
  CHECK(warnings_of("v.a ?? 1") == std::vector<std::string>{"?? tests truthiness: at 1:5"});
  CHECK(count(warnings_of("v.a ?? v.b ?? 1"), "?? tests truthiness") == 2);
}

TEST_CASE("last statement is the value (track expressions)") {
  const std::string_view gist = "last statement is the value";
  CHECK(warnings_of("t.a = 1; t.a + 1", program_kind::track) ==
        std::vector<std::string>{"last statement is the value: at 1:10"});
  CHECK(has(warnings_of("1;;", program_kind::track), gist));
  CHECK_FALSE(has(warnings_of("t.a = 1; t.a + 1", program_kind::program), gist));
  CHECK_FALSE(has(warnings_of("t.a = 1; return t.a", program_kind::track), gist));
  CHECK_FALSE(has(warnings_of("t.a + 1", program_kind::track), gist));
}

TEST_CASE("namespace used as a value") {
  const std::string_view gist = "namespace used as a value";
  for (const char* src : {"q", "v", "t", "math", "Query", "VARIABLE", "temp", "t.a = q", "v(1)"}) {
    CAPTURE(src);
    CHECK(has(warnings_of(src), gist));
  }
  CHECK_FALSE(has(warnings_of("v.a"), gist));
  CHECK_FALSE(has(warnings_of("v = 1"), gist)); // a target, reported as writing nothing
}

TEST_CASE("non-ASCII digit in name") {
  CHECK(warnings_of("v.a\xD9\xA3") == std::vector<std::string>{"non-ASCII digit in name: at 1:3"});
  CHECK(warnings_of("v.a3").empty());
}

TEST_CASE("selector may fail (NBT select with its option count)") {
  const std::string_view gist = "selector may fail";
  CHECK(has(warnings_of("math.random_integer(0, 3)", program_kind::track, 3), gist));
  CHECK(has(warnings_of("math.random_integer(-1, 1)", program_kind::track, 3), gist));
  CHECK(has(warnings_of("Math.Random_Integer(0, 5)", program_kind::track, 3), gist));
  CHECK_FALSE(has(warnings_of("math.random_integer(0, 2)", program_kind::track, 3), gist));
  CHECK_FALSE(has(warnings_of("math.random_integer(0, v.n)", program_kind::track, 3), gist));
  CHECK_FALSE(has(warnings_of("math.random_integer(0, 3)", program_kind::track), gist));
  CHECK_FALSE(has(warnings_of("t.a = 1; math.random_integer(0, 3)", program_kind::track, 3), gist));
}

TEST_CASE("expensive: nested constant loops beyond 2^20 iterations, big die rolls") {
  const std::string_view gist = "expensive";
  CHECK(has(warnings_of("loop(1024, { loop(1024, { loop(2, {}); }); })"), gist));
  CHECK(count(warnings_of("loop(1024, { loop(1024, { loop(2, { loop(2, {}); }); }); })"), gist) ==
        1);
  CHECK_FALSE(has(warnings_of("loop(1024, { loop(1024, {}); })"), gist)); // exactly 2^20
  CHECK_FALSE(has(warnings_of("loop(v.n, { loop(1024, { loop(1024, {}); }); })"), gist));
  CHECK(has(warnings_of("math.die_roll(2000000, 1, 6)"), gist));
  CHECK(has(warnings_of("math.die_roll_integer(1048577, 1, 6)"), gist));
  CHECK_FALSE(has(warnings_of("math.die_roll(1048576, 1, 6)"), gist));
  CHECK_FALSE(has(warnings_of("math.die_roll(v.n, 1, 6)"), gist));
}
