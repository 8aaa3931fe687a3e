#include "engine/json/source_reader.hpp"
#include "engine/json/writer.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

using namespace emote::json;

namespace {

json_parse_result parse(const std::string& s) {
  return parse_source(s);
}

std::string error_of(const std::string& s) {
  const auto r = parse(s);
  REQUIRE_MESSAGE(!r.ok, s);
  return r.error.message;
}

} // namespace

TEST_CASE("JSON: RFC values with positions") {
  const auto r = parse("{\"a\": [1, -2.5e1, true, null],\n  \"b\": \"x\\u00e9\\ud83d\\ude00\"}");
  REQUIRE(r.ok);
  CHECK(r.warnings.empty());
  const auto& root = r.root;
  CHECK(root.line == 1);
  CHECK(root.column == 1);
  const auto* a = root.find("a");
  REQUIRE(a != nullptr);
  CHECK(a->column == 7);
  CHECK(a->as_array()[1].as_number() == -25);
  CHECK(a->as_array()[1].column == 11);
  const auto* b = root.find("b");
  CHECK(b->line == 2);
  CHECK(b->column == 8);
  CHECK(b->as_string() == "x\xc3\xa9\xf0\x9f\x98\x80");
}

TEST_CASE("JSON: lines count LF, CR LF and lone CR; columns count scalar values") {
  const auto r = parse("{\"\xc3\xa9\xc3\xa9\":\r\n1,\r\"b\":\n\t2}");
  REQUIRE(r.ok);
  CHECK(r.root.as_object()[0].value.line == 2);
  CHECK(r.root.as_object()[0].value.column == 1);
  CHECK(r.root.find("b")->line == 4);
  CHECK(r.root.find("b")->column == 2);
  const auto e = parse("{\"\xc3\xa9\": x}");
  CHECK(e.error.line == 1);
  CHECK(e.error.column == 7);
}

TEST_CASE("JSON: dialect extensions warn once each") {
  const auto r =
      parse("// c\n{\"a\": [1, 2,], /* x */ \"b\": NaN, \"c\": -Infinity, \"d\": Infinity,}");
  REQUIRE(r.ok);
  REQUIRE(r.warnings.size() == 3);
  CHECK(r.warnings[0].message == "non-standard JSON: comment");
  CHECK(r.warnings[0].line == 1);
  CHECK(r.warnings[0].column == 1);
  CHECK(r.warnings[1].message == "non-standard JSON: trailing comma");
  CHECK(r.warnings[1].column == 12);
  CHECK(r.warnings[2].message == "non-standard JSON: non-finite number");
  CHECK(r.warnings[2].path == "$.b");
  CHECK(std::isnan(r.root.find("b")->as_number()));
  CHECK(r.root.find("c")->as_number() == -INFINITY);
  CHECK(r.root.find("d")->as_number() == INFINITY);
}

TEST_CASE("JSON: duplicate keys keep the first position and the last value") {
  const auto r = parse("{\"a\": 1, \"b\": 2, \"a\": {\"x\": 3}}");
  REQUIRE(r.ok);
  const auto& m = r.root.as_object();
  REQUIRE(m.size() == 2);
  CHECK(m[0].key == "a");
  CHECK(m[0].value.is_object());
  CHECK(m[0].value.column == 23);
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].path == "$.a");
  CHECK(r.warnings[0].message == "duplicate key; last value wins");
  CHECK(r.warnings[0].column == 23);
  // Large objects take the indexed path.
  std::string big = "{";
  for (int i = 0; i < 100; ++i) {
    big += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  }
  big += "\"k3\":-1}";
  const auto rb = parse(big);
  REQUIRE(rb.ok);
  CHECK(rb.root.as_object().size() == 100);
  CHECK(rb.root.find("k3")->as_number() == -1);
  CHECK(rb.warnings.size() == 1);
}

TEST_CASE("JSON: BOM and invalid UTF-8") {
  auto r = parse("\xEF\xBB\xBF{\"a\":1}");
  REQUIRE(r.ok);
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].message == "byte order mark ignored");
  CHECK(r.root.find("a")->column == 6); // the BOM is not counted
  r = parse("{\"a\":\"\xff\xfe\",\"b\":\"\xc0\"}");
  REQUIRE(r.ok);
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].message == "invalid UTF-8 replaced");
  CHECK(r.warnings[0].column == 7);
  CHECK(r.root.find("a")->as_string() == "\xef\xbf\xbd\xef\xbf\xbd");
}

TEST_CASE("JSON: everything else is invalid") {
  for (const char* s :
       {"{'x':1}", "{x:1}", "[1,,2]",    "+1",          "01",      "\"a\x01\"", "",
        "   ",     "{} {}", "[1,]]",     "[,]",         "{,}",     "/* open",   "tru",
        "-",       "1.",    ".5",        "1e",          "\"\\x\"", "\"\\u12\"", "-NaN",
        "Inf",     "[1 2]", "{\"a\" 1}", "{\"a\":1,,}", "\"open",  "{\"a\":1",  "[",
        "/"}) {
    const auto e = error_of(s);
    CHECK_MESSAGE(e.rfind("invalid JSON: ", 0) == 0, s);
  }
  CHECK(parse("").error.column == 1);
  const auto end = parse("{\"a\":");
  CHECK(end.error.column == 6); // after the last character
}

TEST_CASE("JSON: numbers are the nearest double; overflow is infinite") {
  const auto r = parse("[0.1, 1e400, -1e400, 1e-400, 9007199254740993, 2.2250738585072011e-308]");
  REQUIRE(r.ok);
  const auto& a = r.root.as_array();
  CHECK(a[0].as_number() == 0.1);
  CHECK(a[1].as_number() == INFINITY);
  CHECK(a[2].as_number() == -INFINITY);
  CHECK(a[3].as_number() == 0);
  CHECK(a[4].as_number() == 9007199254740992.0); // ties to even
  CHECK(a[5].as_number() == 2.2250738585072011e-308);
}

TEST_CASE("JSON: unpaired surrogates become U+FFFD") {
  const auto r = parse("[\"\\ud800\", \"\\udc00x\", \"\\ud800\\u0041\"]");
  REQUIRE(r.ok);
  CHECK(r.root.as_array()[0].as_string() == "\xef\xbf\xbd");
  CHECK(r.root.as_array()[1].as_string() == "\xef\xbf\xbdx");
  CHECK(r.root.as_array()[2].as_string() == "\xef\xbf\xbd"
                                            "A");
}

TEST_CASE("JSON: deep nesting is rejected without exhausting the stack") {
  const std::string deep(100000, '[');
  CHECK(error_of(deep) == "invalid JSON: nesting too deep");
  std::string ok(max_depth, '[');
  ok += std::string(max_depth, ']');
  CHECK(parse(ok).ok);
  std::string over(max_depth + 1, '[');
  over += std::string(max_depth + 1, ']');
  CHECK_FALSE(parse(over).ok);
}

TEST_CASE("JSON: compact writer and text equality") {
  const auto r =
      parse("{\"text\": \"a\\\"b\\n\", \"n\": [1.0, 2.5, -0.0, 1e300], \"o\": {\"x\": null}}");
  REQUIRE(r.ok);
  // The one writer: -0.0 keeps its sign, numbers are the shortest round-trip form.
  CHECK(to_json(r.root) == "{\"text\":\"a\\\"b\\n\",\"n\":[1,2.5,-0.0,1e+300],\"o\":{\"x\":null}}");
  const auto a = parse("{\"a\": 1, \"b\": [1, {\"c\": 2}]}");
  const auto b = parse("{\"b\": [1.0, {\"c\": 2e0}], \"a\": 1}");
  const auto c = parse("{\"b\": [1.0, {\"c\": 3}], \"a\": 1}");
  CHECK(json_equal(a.root, b.root));
  CHECK_FALSE(json_equal(a.root, c.root));
  CHECK_FALSE(json_equal(parse("\"1\"").root, parse("1").root));
}

TEST_CASE("JSON dialects: relaxed and strict") {
  using emote::json::source_dialect;
  const auto relaxed = [](const std::string& s) {
    return parse_source(s, source_dialect::relaxed);
  };
  const auto strict = [](const std::string& s) { return parse_source(s, source_dialect::strict); };
  // Comments and trailing commas: accepted silently by relaxed, refused by strict.
  auto r = relaxed("// c\n{\"a\": [1, 2,], /* x */}");
  REQUIRE(r.ok);
  CHECK(r.warnings.empty());
  CHECK(strict("// c\n{}").error.message == "invalid JSON: comments are not allowed");
  CHECK(strict("[1,]").error.message == "invalid JSON: trailing commas are not allowed");
  CHECK(strict("[1,]").error.column == 3);
  // Non-finite literals, lone surrogates and ill-formed UTF-8 are errors outside emote files.
  CHECK(relaxed("[NaN]").error.message == "invalid JSON: non-finite numbers are not allowed");
  CHECK(strict("[-Infinity]").error.message == "invalid JSON: non-finite numbers are not allowed");
  CHECK(relaxed(R"(["\uDC00"])").error.message == "invalid JSON: lone surrogate in a \\u escape");
  CHECK(parse_source(R"(["\uDC00"])").ok);
  const auto bad = relaxed("{\n  \"a\": \"x\xFFy\"}");
  CHECK(bad.error.message == "invalid JSON: ill-formed UTF-8");
  CHECK(bad.error.line == 2);
  CHECK(bad.error.column == 10);
  // Duplicate keys: an error naming the key in relaxed, last value wins (warned) in strict.
  const auto dup = relaxed("{\"a\": 1,\n \"a\": 2}");
  CHECK(dup.error.message == "duplicate key");
  CHECK(dup.error.path == "$.a");
  CHECK(dup.error.line == 2);
  const auto sdup = strict("{\"a\": 1, \"a\": 2}");
  REQUIRE(sdup.ok);
  CHECK(sdup.root.find("a")->as_number() == 2);
  // A BOM is skipped by relaxed, an error in strict.
  CHECK(relaxed("\xEF\xBB\xBF{}").ok);
  CHECK_FALSE(strict("\xEF\xBB\xBF{}").ok);
}

TEST_CASE("JSON numbers keep exact integers; find_path locates values") {
  const auto r = parse_source(
      R"({"n": [9007199254740993, -9223372036854775808, 18446744073709551615, 18446744073709551616, -0, 1e400], "a.b": {"c": [true]}})");
  REQUIRE(r.ok);
  const auto& n = r.root.find("n")->as_array();
  CHECK(n[0].number().form == number_form::unsigned_integer);
  CHECK(n[0].number().bits == 9007199254740993ULL);
  CHECK(n[0].number().as_int64() == 9007199254740993LL);
  CHECK(n[1].number().form == number_form::signed_integer);
  CHECK(n[1].number().as_int64() == INT64_MIN);
  CHECK(n[2].number().bits == UINT64_MAX);
  CHECK_FALSE(n[2].number().as_int64());
  CHECK(n[3].number().form == number_form::real);
  CHECK(n[4].number().form == number_form::real);
  CHECK(std::signbit(n[4].as_number()));
  CHECK(std::isinf(n[5].as_number()));
  CHECK(to_json(r.root.find("n")->as_array()[0]) == "9007199254740993");
  const auto* v = find_path(r.root, "$.a.b.c[0]");
  REQUIRE(v != nullptr);
  CHECK(v->is_bool());
  CHECK(v->column == 118);
  CHECK(find_path(r.root, "$.n[6]") == nullptr);
  CHECK(find_path(r.root, "$.a") == nullptr);
  CHECK(find_path(r.root, "$") == &r.root);
}
