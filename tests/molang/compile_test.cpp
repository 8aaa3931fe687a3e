// Load-time behaviour of compile(): length, lexical and syntax errors, nesting, query uses and
// persistent writes (molang.md §1 "Load time", §2, §5.4), including M2, M7-M9, M70, M72-M74,
// M86-M88.
#include "engine/molang/compiler.hpp"

#include "tests/molang/support.hpp"

#include <string>

using namespace molang_test;

namespace {
constexpr std::string_view invalid = "invalid Molang program: ";
}

TEST_CASE("M2: an invalid character is a load error") {
  CHECK(starts_with(error("@"), invalid));
  CHECK(error("@") == "invalid Molang program: unexpected character '@' at 1:1");
}

TEST_CASE("M7 M9: query call arity") {
  CHECK(error("q.in_range(1, 2)") == "calls query in_range with 2 arguments; expected 3");
  CHECK(error("q.scoreboard()") == "calls query scoreboard with 0 arguments; expected 1");
}

TEST_CASE("M8: calling a query value") {
  CHECK(error("q.anim_time()") == "must not call query value anim_time");
}

TEST_CASE("M70: lexical and syntax errors") {
  for (const char* src : {"1e3", "1.5f", ".5", "1.2.3", "\"a\"", "1 & 2", "1 | 2", "# c",
                          "v.true = 1", "(1", "f(1 2)", "1 2", "1, 2", "{1"}) {
    CAPTURE(src);
    CHECK(starts_with(error(src), invalid));
  }
}

TEST_CASE("M72: query use errors") {
  CHECK(error("q.unknown") == "references unsupported query unknown");
  CHECK(error("q.position") == "must call query function position");
  CHECK(error("q.any(1)") == "calls query any with 1 arguments; expected at least 2");
  CHECK(error("q.anim_time = 1") == "must not assign queries");
}

TEST_CASE("M73: persistent writes in track expressions") {
  CHECK(error("v.x = 1", program_kind::track) == "must not assign persistent variables");
  CHECK(error("v.x = 1", program_kind::program).empty());
  CHECK(eval("t.x = 1; t.x", program_kind::track) == 1);
  CHECK(eval("v.a.b = 1", program_kind::track) == 1);
}

TEST_CASE("M74: the 16,384 UTF-16 unit limit") {
  const std::string at_limit = std::string(16383, ' ') + "1";
  CHECK(error(at_limit).empty());
  const std::string over = std::string(16384, ' ') + "1";
  CHECK(error(over) == "invalid Molang program: expression exceeds 16384 characters");
  // U+1F600 is two UTF-16 units (four UTF-8 bytes) inside a string.
  std::string emoji = "'";
  for (int i = 0; i < 8191; ++i) {
    emoji += "\xF0\x9F\x98\x80";
  }
  emoji += "'"; // 2 + 2 * 8191 = 16384 units
  CHECK(error(emoji).empty());
  CHECK(error(emoji + " ") == "invalid Molang program: expression exceeds 16384 characters");
  // 16,384 two-byte characters are 16,384 units although they are 32,768 bytes.
  std::string accented = "'";
  for (int i = 0; i < 16382; ++i) {
    accented += "\xC3\xA9";
  }
  accented += "'";
  CHECK(error(accented).empty());
}

TEST_CASE("M86: more syntax errors, and 300 nested parentheses") {
  for (const char* src : {"v.a[0].b", "a.b(1).c", "(v).x", "'it''s'", "a[]"}) {
    CAPTURE(src);
    CHECK(starts_with(error(src), invalid));
  }
  const std::string deep = std::string(300, '(') + "1" + std::string(300, ')');
  CHECK(error(deep) == "invalid Molang program: expression nests too deeply");
  const std::string unclosed = std::string(300, '(');
  CHECK(starts_with(error(unclosed), invalid));
}

TEST_CASE("M87: valid query forms and arity messages") {
  CHECK(error("q.anim_time.x").empty());
  CHECK(error("QUERY.ANIM_TIME").empty());
  CHECK(error("q.Position(1)").empty());
  CHECK(error("t.q = q; t.q.foo(1)").empty());
  CHECK(eval("t.q = q; t.q.foo(1)") == 0);
  CHECK(error("q.item_is_charged('off_hand', 2)") ==
        "calls query item_is_charged with 2 arguments; expected 0..1");
  CHECK(error("q.is_item_name_any('main_hand')") ==
        "calls query is_item_name_any with 1 arguments; expected at least 2");
}

TEST_CASE("M88: query checks precede persistent-write checks; syntactic persistent writes") {
  CHECK(error("q.any(1); v.x = 1; q.nope", program_kind::track) ==
        "calls query any with 1 arguments; expected at least 2");
  CHECK(error("(v.x = 1) ? 2 : 3", program_kind::track) == "must not assign persistent variables");
  CHECK(error("v.x = c ? a", program_kind::track) == "must not assign persistent variables");
}

TEST_CASE("load-time order: length, then syntax, then nesting, then queries, then writes") {
  // A syntax error after deep nesting wins over the nesting error.
  const std::string deep_bad = std::string(300, '(') + "1 2" + std::string(300, ')');
  const auto e = error(deep_bad);
  CHECK(starts_with(e, invalid));
  CHECK(e != "invalid Molang program: expression nests too deeply");
  // A lexical error wins over nesting.
  CHECK(starts_with(error(std::string(300, '(') + "@"), "invalid Molang program: unexpected"));
  // Nesting wins over query checks.
  CHECK(error(std::string(257, '-') + "q.nope") ==
        "invalid Molang program: expression nests too deeply");
  CHECK(error(std::string(256, '-') + "q.nope") == "references unsupported query nope");
  // The first failing query use in tree order wins.
  CHECK(error("q.nope; q.anim_time = 1") == "references unsupported query nope");
  CHECK(error("q.anim_time = q.nope") == "must not assign queries");
  CHECK(error("q.any(q.position, 1, 2)") == "must call query function position");
  CHECK(error("v.x = 1; q.nope", program_kind::track) == "references unsupported query nope");
}

TEST_CASE("nesting depth counts every open construct") {
  // 256 is allowed, 257 is not, for each kind of opener.
  const auto nest = [](std::string_view open, std::string_view close, int n) {
    std::string s;
    for (int i = 0; i < n; ++i) {
      s += open;
    }
    s += "1";
    for (int i = 0; i < n; ++i) {
      s += close;
    }
    return s;
  };
  const std::string too_deep = "invalid Molang program: expression nests too deeply";
  CHECK(error(nest("(", ")", 256)).empty());
  CHECK(error(nest("(", ")", 257)) == too_deep);
  CHECK(error(nest("{", "}", 256)).empty());
  CHECK(error(nest("{", "}", 257)) == too_deep);
  CHECK(error(nest("f(", ")", 256)).empty());
  CHECK(error(nest("f(", ")", 257)) == too_deep);
  CHECK(error(nest("a[", "]", 256)).empty());
  CHECK(error(nest("a[", "]", 257)) == too_deep);
  CHECK(error(nest("!", "", 256)).empty());
  CHECK(error(nest("!", "", 257)) == too_deep);
  CHECK(error(nest("return ", "", 256)).empty());
  CHECK(error(nest("return ", "", 257)) == too_deep);
  CHECK(error(nest("1 ? ", " : 0", 256)).empty());
  CHECK(error(nest("1 ? ", " : 0", 257)) == too_deep);
  // A chain of ternaries is not nested: its true branches close one after another.
  std::string chain;
  for (int i = 0; i < 2000; ++i) {
    chain += "0 ? 1 : ";
  }
  chain += "7";
  CHECK(error(chain).empty());
  CHECK(eval(chain) == 7);
}

TEST_CASE("lexical details") {
  // Numbers: 1. = 1, 007 = 7, too large -> +inf -> 0, an Nd digit in a number is an error.
  CHECK(eval("1.") == 1);
  CHECK(eval("007") == 7);
  CHECK(eval(std::string(400, '9')) == 0);
  CHECK(eval("0." + std::string(400, '0') + "1") == 0);
  CHECK(starts_with(error("1\xD9\xA3"), invalid)); // 1 followed by ARABIC-INDIC DIGIT THREE
  CHECK(starts_with(error("\xD9\xA3"), invalid));  // an Nd digit cannot start a name either
  CHECK(error("v.a\xD9\xA3 = 1").empty());         // but may continue one
  CHECK(eval("v.a\xD9\xA3 = 4; v.A\xD9\xA3") == 4);
  // Keywords are case-insensitive; loop/for_each/this are identifiers.
  CHECK(eval("TRUE + tRuE") == 2);
  CHECK(error("v.loop = 1; v.this = 2; v.for_each = 3").empty());
  CHECK(starts_with(error("v.Return = 1"), invalid));
  // Whitespace is space, tab, LF and CR only.
  CHECK(eval(" \t\r\n1\n") == 1);
  CHECK(starts_with(error("1\f"), invalid));
  CHECK(starts_with(error("\xC2\xA0"
                          "1"),
                    invalid)); // NBSP
  // No comments: // is two slashes.
  CHECK(eval("4 // 2") == 0);
  // Strings keep any code unit but a quote, including newlines and non-ASCII.
  CHECK(eval("v.s = 'a\nb\xE2\x82\xAC'; q.any(v.s, 'a\nb\xE2\x82\xAC')") == 1);
  CHECK(starts_with(error("'abc"), invalid));
  // A supplementary character outside a string is an error token (two surrogates in Java).
  CHECK(starts_with(error("\xF0\x9F\x98\x80"), invalid));
  // Lone & and | are errors, even inside otherwise valid code.
  CHECK(starts_with(error("1 &"), invalid));
  CHECK(starts_with(error("|"), invalid));
}

TEST_CASE("syntax error positions are 1-based lines and Unicode columns") {
  CHECK(error("1 +\n  2 3") == "invalid Molang program: unexpected number at 2:5");
  CHECK(error("'\xC3\xA9\xC3\xA9' 2") == "invalid Molang program: unexpected number at 1:6");
  CHECK(error("(1") ==
        "invalid Molang program: unexpected end of input (unclosed '(' at 1:1) at 1:3");
}

TEST_CASE("grammar corner cases that are valid") {
  for (const char* src : {"",
                          " ",
                          ";",
                          "1;",
                          "1;;",
                          ";;;",
                          "{}",
                          "{;}",
                          "{1;}",
                          "f()",
                          "f(,)",
                          "f(,1)",
                          "[1]",
                          "()",
                          "!",
                          "-",
                          "return",
                          "1 ? 2",
                          "a.b.c.d",
                          "v . x",
                          "1 -> 2",
                          "a[1][2](3)",
                          "1 ? 2 : 3 ? 4 : 5",
                          "--1",
                          "!!1",
                          "{ {} }()",
                          "loop(1, {})",
                          "for_each(t.x, 1, {})"}) {
    CAPTURE(src);
    CHECK(error(src).empty());
  }
}

TEST_CASE("compile is linear and safe on long chains") {
  std::string sum = "1";
  for (int i = 0; i < 8000; ++i) {
    sum += "+1";
  }
  CHECK(eval(sum) == 8001);
  std::string assigns = "v.a";
  for (int i = 0; i < 2000; ++i) {
    assigns += " = v.a";
  }
  CHECK(error(assigns).empty());
  std::string calls = "v.f";
  for (int i = 0; i < 5000; ++i) {
    calls += "(1)";
  }
  CHECK(eval(calls) == 0);
  std::string coalesce = "0";
  for (int i = 0; i < 3000; ++i) {
    coalesce += " ?? 0";
  }
  CHECK(eval(coalesce + " ?? 3") == 3);
}
