#include "engine/json/wire_reader.hpp"
#include "engine/json/writer.hpp"

#include <doctest/doctest.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace emote::json;

namespace {
std::string f32s(float v) {
  std::string s;
  json_out(s).f32(v);
  return s;
}
std::string f64s(double v) {
  std::string s;
  json_out(s).f64(v);
  return s;
}
std::string strs(std::string_view v) {
  std::string s;
  json_out(s).str(v);
  return s;
}
float bits_f32(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
} // namespace

TEST_CASE("binary32 numbers are the shortest decimal that reads back as binary32") {
  CHECK(f32s(1.0F) == "1");
  CHECK(f32s(64.0F) == "64");
  CHECK(f32s(-3.0F) == "-3");
  CHECK(f32s(0.70710677F) == "0.70710677");      // P32 left rotation component
  CHECK(f32s(1.9999998F) == "1.9999998");        // P32 scale
  CHECK(f32s(-8.742278e-8F) == "-8.742278e-08"); // P30 residue
  CHECK(f32s(0.1F) == "0.1");                    // not 0.10000000149011612
  CHECK(f32s(1.1F) == "1.1");
  CHECK(f32s(std::numeric_limits<float>::max()) == "3.4028235e+38");
  CHECK(f32s(std::numeric_limits<float>::denorm_min()) == "1e-45");
}

TEST_CASE("binary64 numbers are the shortest decimal that reads back as binary64") {
  CHECK(f64s(64.0) == "64");
  CHECK(f64s(1.2) == "1.2");
  CHECK(f64s(0.1 + 0.2) == "0.30000000000000004");
  CHECK(f64s(1.4695762231022014e-16) == "1.4695762231022014e-16"); // P31
  CHECK(f64s(8.8) == "8.8");
  CHECK(f64s(-2.5) == "-2.5");
  CHECK(f64s(static_cast<double>(0.4F)) == "0.4000000059604645"); // a widened f32 stays exact
}

TEST_CASE("zero, negative zero and non-finite values") {
  CHECK(f32s(0.0F) == "0");
  CHECK(f32s(-0.0F) == "-0.0"); // P32 right rotation (-0, -0, -0, 1): the sign survives
  CHECK(f64s(0.0) == "0");
  CHECK(f64s(-0.0) == "-0.0");
  CHECK(f32s(std::numeric_limits<float>::quiet_NaN()) == "null");
  CHECK(f64s(std::numeric_limits<double>::infinity()) == "null");
}

TEST_CASE("every written binary32 reads back to the same bits") {
  std::mt19937 rng(12345);
  for (int i = 0; i < 20000; ++i) {
    const float f = bits_f32(static_cast<std::uint32_t>(rng()));
    if (!std::isfinite(f)) {
      continue;
    }
    const std::string s = f32s(f);
    rapidjson::Document d;
    REQUIRE_FALSE(parse_wire(s, d));
    const float back = static_cast<float>(d.GetDouble());
    REQUIRE(std::memcmp(&back, &f, 4) == 0);
  }
}

TEST_CASE("every written binary64 reads back to the same bits") {
  std::mt19937_64 rng(99);
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t b = rng();
    double f;
    std::memcpy(&f, &b, 8);
    if (!std::isfinite(f)) {
      continue;
    }
    const std::string s = f64s(f);
    rapidjson::Document d;
    REQUIRE_FALSE(parse_wire(s, d));
    const double back = d.GetDouble();
    REQUIRE(std::memcmp(&back, &f, 8) == 0);
  }
}

TEST_CASE("strings are escaped and always valid UTF-8") {
  CHECK(strs("plain") == R"("plain")");
  CHECK(strs("a\"b\\c") == R"("a\"b\\c")");
  CHECK(strs("line\nbreak\ttab\r") == R"("line\nbreak\ttab\r")");
  CHECK(strs(std::string_view("nul\0x", 5)) == R"("nul\u0000x")");
  CHECK(strs("\x01\x1f") == R"("\u0001\u001f")");
  CHECK(strs("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80") ==
        "\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"");
  // Ill-formed sequences become U+FFFD, one per maximal ill-formed prefix.
  CHECK(strs("a\xFFz") == "\"a\xEF\xBF\xBDz\"");
  CHECK(strs("\xE2\x82") == "\"\xEF\xBF\xBD\""); // truncated 3-byte sequence
  CHECK(strs("\xED\xA0\x80") == "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\""); // surrogate
  CHECK(strs("\xC0\xAF") == "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");                 // overlong
}

TEST_CASE("parsing reads numbers exactly") {
  rapidjson::Document d;
  REQUIRE_FALSE(parse_wire(
      R"([0.1, 64, -7, 18446744073709551615, 100e307, -0, 2.2250738585072011e-308, 0.30000000000000004])",
      d));
  CHECK(d[0].GetDouble() == 0.1);
  CHECK(d[1].IsInt());
  CHECK(d[1].GetInt() == 64);
  CHECK(d[2].GetInt() == -7);
  CHECK(d[3].IsUint64());
  CHECK(std::isinf(d[4].GetDouble()));
  CHECK(d[5].IsDouble());
  CHECK(std::signbit(d[5].GetDouble()));
  CHECK(d[6].GetDouble() == 2.2250738585072011e-308);
  CHECK(d[7].GetDouble() == 0.1 + 0.2);
}

TEST_CASE("numbers beyond binary64 are valid JSON and read as infinity") {
  // RapidJSON's own conversion refuses them; the reader reads such texts with the numbers
  // masked and converts the original tokens.
  rapidjson::Document d;
  const std::string big(400, '9');
  REQUIRE_FALSE(parse_wire(R"({"a":"1e400 \" 5","yaw":1e400,"n":[-1e999,0e400,12,-0,)" + big +
                               R"(,1.5e-400,9223372036854775808,-3]})",
                           d));
  CHECK(std::string_view(d["a"].GetString()) == "1e400 \" 5");
  CHECK(d["yaw"].IsDouble());
  CHECK(d["yaw"].GetDouble() == std::numeric_limits<double>::infinity());
  const auto& n = d["n"];
  CHECK(n[0].GetDouble() == -std::numeric_limits<double>::infinity());
  CHECK(n[1].GetDouble() == 0);
  CHECK(n[2].IsInt());
  CHECK(n[2].GetInt() == 12);
  CHECK(n[3].IsDouble());
  CHECK(std::signbit(n[3].GetDouble()));
  CHECK(std::isinf(n[4].GetDouble()));
  CHECK(n[5].GetDouble() == 0);
  CHECK(n[6].IsUint64());
  CHECK(n[6].GetUint64() == 9223372036854775808ULL);
  CHECK(n[7].GetInt() == -3);
  // Errors after such a number keep their offsets.
  auto e = parse_wire("[1e400, 2x]", d);
  REQUIRE(e);
  CHECK(e->offset == 9);
  e = parse_wire("[1e400, 1e]", d);
  REQUIRE(e);
  CHECK(e->offset == 10);
}

TEST_CASE("parse errors report the offset") {
  rapidjson::Document d;
  auto e = parse_wire(R"({"op":"ping",})", d);
  REQUIRE(e);
  CHECK(e->offset == 13);
  CHECK(e->message.starts_with("invalid JSON at offset 13: "));

  e = parse_wire(R"({"op":"ping"} x)", d);
  REQUIRE(e);
  CHECK(e->message.find("offset 14") != std::string::npos);

  e = parse_wire("", d);
  REQUIRE(e);
  CHECK(e->offset == 0);

  e = parse_wire(std::string_view("{}\0{}", 5), d);
  REQUIRE(e);
  CHECK(e->message == "invalid JSON at offset 2: unexpected NUL byte");

  e = parse_wire("{\"a\":\"\xFF\"}", d); // invalid UTF-8
  REQUIRE(e);

  e = parse_wire("[NaN]", d);
  REQUIRE(e);
  e = parse_wire("// c\n{}", d);
  REQUIRE(e);
  e = parse_wire("[1,2,]", d);
  REQUIRE(e);
}

TEST_CASE("nesting is bounded") {
  rapidjson::Document d;
  std::string ok(max_depth, '[');
  ok.append(max_depth, ']');
  CHECK_FALSE(parse_wire(ok, d));
  std::string deep(max_depth + 1, '[');
  deep.append(max_depth + 1, ']');
  auto e = parse_wire(deep, d);
  REQUIRE(e);
  CHECK(e->message.starts_with("JSON nested deeper than 512 levels"));
  // A megabyte of brackets fails fast without recursion.
  std::string huge(1 << 20, '[');
  CHECK(parse_wire(huge, d));
}

TEST_CASE("values are written compactly in stored order") {
  rapidjson::Document d;
  REQUIRE_FALSE(parse_wire(R"({ "b" : [1, 2.50, true, null], "a" : {"x": "y"}, "n": -0.0 })", d));
  CHECK(to_json(d) == R"({"b":[1,2.5,true,null],"a":{"x":"y"},"n":-0.0})");
}

TEST_CASE("integral values") {
  rapidjson::Document d;
  REQUIRE_FALSE(parse_wire(
      "[4, 4.0, 40e-1, 4.5, 9223372036854775807, 9223372036854775808, -9.2233720368547758e18]", d));
  CHECK(as_int64(d[0]) == 4);
  CHECK(as_int64(d[1]) == 4);
  CHECK(as_int64(d[2]) == 4);
  CHECK_FALSE(as_int64(d[3]));
  CHECK(as_int64(d[4]) == 9223372036854775807LL);
  CHECK_FALSE(as_int64(d[5]));
  CHECK(as_int64(d[6]) == std::numeric_limits<std::int64_t>::min());
}

TEST_CASE("the integer fast path writes exactly what to_chars would") {
  for (int i = -12000; i <= 12000; ++i) {
    const float f = static_cast<float>(i);
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, f);
    std::string expected(buf, r.ptr);
    if (i == 0) {
      expected = "0";
    }
    REQUIRE(f32s(f) == expected);
    const double d = static_cast<double>(i);
    r = std::to_chars(buf, buf + sizeof buf, d);
    std::string expected64(buf, r.ptr);
    if (i == 0) {
      expected64 = "0";
    }
    REQUIRE(f64s(d) == expected64);
  }
  CHECK(f32s(10000.0F) == "10000");
  CHECK(f32s(100000.0F) == "1e+05");
  CHECK(f64s(1e6) == "1e+06");
}

TEST_CASE("lone surrogate escapes are refused, pairs are read") {
  rapidjson::Document d;
  auto e = parse_wire(R"(["\uDC00"])", d);
  REQUIRE(e);
  CHECK(e->message.find("lone surrogate") != std::string::npos);
  CHECK(parse_wire(R"({"\uDFFF":1})", d));
  CHECK(parse_wire(R"(["\uD800"])", d));
  REQUIRE_FALSE(parse_wire(R"(["\uD83D\uDE00 \u00e9\ud7ff\ue000"])", d));
  CHECK(std::string_view(d[0].GetString()) == "\xF0\x9F\x98\x80 \xC3\xA9\xED\x9F\xBF\xEE\x80\x80");
}

TEST_CASE("masking numbers beyond binary64 never makes an invalid text valid") {
  rapidjson::Document d;
  CHECK(parse_wire("[1e400,--4]", d));
  CHECK(parse_wire("[1e400,1e4001e4]", d));
  CHECK(parse_wire("[1e400,1.2.3]", d));
  CHECK(parse_wire("[1e400,-]", d));
  CHECK(parse_wire("[1e400,+1]", d));
  CHECK(parse_wire("[1e400 true]", d));
  REQUIRE_FALSE(parse_wire("[true,1e400,false,-2]", d));
  CHECK(d[3].GetInt() == -2);
}

TEST_CASE("separators: nothing before the first item, one comma before each later one") {
  std::string out;
  json_out o(out);
  separator sep;
  CHECK(sep.empty());
  o.ch('{');
  for (const char* key : {"a", "b", "c"}) {
    sep(o);
    o.str(key);
    o.ch(':');
    o.i64(1);
  }
  o.ch('}');
  CHECK_FALSE(sep.empty());
  CHECK(out == R"({"a":1,"b":1,"c":1})");

  out.clear();
  array(o, std::vector<int>{}, [](json_out& w, int n) { w.i64(n); });
  o.ch(' ');
  array(o, std::vector<int>{7}, [](json_out& w, int n) { w.i64(n); });
  o.ch(' ');
  array(o, std::vector<std::vector<int>>{{1, 2}, {}, {3}},
              [](json_out& w, const std::vector<int>& inner) {
                array(w, inner, [](json_out& x, int n) { x.i64(n); });
              });
  CHECK(out == "[] [7] [[1,2],[],[3]]");
}
