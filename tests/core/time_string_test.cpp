#include "engine/core/time_string.hpp"

#include <doctest/doctest.h>

#include <string>

using emote::core::parse_time;
using emote::core::time_error;

namespace {

std::int32_t ok(const char* s, std::int32_t m = 0) {
  const auto r = parse_time(s, m);
  REQUIRE_MESSAGE(r.ok(), s);
  return r.value();
}

time_error bad(const char* s, std::int32_t m = 0) {
  const auto r = parse_time(s, m);
  REQUIRE_MESSAGE(!r.ok(), s);
  return r.error();
}

} // namespace

TEST_CASE("time strings: accepted values (formats.md §2.3 table)") {
  CHECK(ok("20") == 20);
  CHECK(ok("20t") == 20);
  CHECK(ok("1.5s") == 30);
  CHECK(ok("4s") == 80);
  CHECK(ok("0.5s") == 10);
  CHECK(ok("1d") == 24000);
  CHECK(ok("0.5t") == 1);
  CHECK(ok("0.4t") == 0);
  CHECK(ok("1.5") == 2);
  CHECK(ok("2.5") == 3);
  CHECK(ok("-0.4") == 0);
  CHECK(ok("-0.5") == 0);
  CHECK(ok("0.025s") == 1);
  CHECK(ok("0.02s") == 0);
  CHECK(ok("0.175s") == 4); // binary32 product is exactly 3.5
  CHECK(ok("16777217") == 16777216);
  CHECK(ok("0.49999997") == 0);
  CHECK(ok("99999999999") == 2147483647);
  CHECK(ok("1.") == 1);
  CHECK(ok(".5") == 1);
  CHECK(ok("600s") == 12000);
}

TEST_CASE("time strings: failures in their stated order") {
  for (const char* s : {"", " 1", "+1", "t", "NaN"}) {
    CHECK_MESSAGE(bad(s) == time_error::expected_float, s);
  }
  for (const char* s : {"-", ".", "--1", "1.2.3", "1-"}) {
    CHECK_MESSAGE(bad(s) == time_error::invalid_float, s);
  }
  for (const char* s : {"1S", "10tt", "1ms", "1e3", "5+"}) {
    CHECK_MESSAGE(bad(s) == time_error::invalid_unit, s);
  }
  CHECK(bad("-0.6") == time_error::too_low);
  CHECK(bad("-1t") == time_error::too_low);
  CHECK(bad("0.4t", 1) == time_error::too_low);
  CHECK(bad("0", 1) == time_error::too_low);
  for (const char* s : {"5 s", "5s ", "1 "}) {
    CHECK_MESSAGE(bad(s) == time_error::trailing_input, s);
  }
  CHECK(emote::core::time_error_detail(time_error::too_low) == "tick count too low");
  CHECK(emote::core::time_error_detail(time_error::expected_float) == "expected float");
}

TEST_CASE("time strings: extremes saturate instead of overflowing") {
  CHECK(ok(std::string(400, '9').c_str()) == 2147483647);
  CHECK(bad(("-" + std::string(400, '9')).c_str()) == time_error::too_low);
  CHECK(ok("99999999999d") == 2147483647);
}
