#include "engine/core/identifier.hpp"

#include "engine/core/utf8.hpp"

#include <doctest/doctest.h>

using namespace emote::core;

TEST_CASE("identifiers (formats.md §2.2)") {
  for (const char* s : {"example:sit", "my-pack.v2:dance/wave_1", "emote:continue"}) {
    CHECK_MESSAGE(check_identifier(s) == identifier_error::none, s);
  }
  for (const char* s : {"wave", ":wave", "example:", ""}) {
    CHECK_MESSAGE(check_identifier(s) == identifier_error::format, s);
  }
  for (const char* s : {"Example:sit", "example:sit idle", "a:b:c", "a/b:c"}) {
    CHECK_MESSAGE(check_identifier(s) == identifier_error::lowercase, s);
  }
  CHECK(identifier_error_message(identifier_error::format) == "must use namespace:path format");
  CHECK(identifier_error_message(identifier_error::lowercase) ==
        "must be a valid lowercase Minecraft identifier");
}

TEST_CASE("is_identifier and java_trim") {
  CHECK(is_identifier("demo:sample.1"));
  CHECK_FALSE(is_identifier("demo:.*"));
  CHECK_FALSE(is_identifier("demo:(wave|dance_[0-9]+)"));
  CHECK(java_trim(" \t demo:x \n") == "demo:x");
  CHECK(java_trim("\x01\x20") == "");
  CHECK(java_trim("a b") == "a b");
  // Only code units <= U+0020: a no-break space (U+00A0) stays.
  CHECK(java_trim("\xC2\xA0x") == "\xC2\xA0x");
}

TEST_CASE("resource locations default to minecraft and allow an empty path") {
  CHECK(parse_resource_location("swing") == "minecraft:swing");
  CHECK(parse_resource_location(":swing") == "minecraft:swing");
  CHECK(parse_resource_location("demo:sword_swing") == "demo:sword_swing");
  CHECK(parse_resource_location("demo:") == "demo:");
  CHECK_FALSE(parse_resource_location("Invalid Callback"));
  CHECK_FALSE(parse_resource_location("a:b:c"));
}

TEST_CASE("blank uses Java isWhitespace") {
  CHECK(is_blank(""));
  CHECK(is_blank(" \t\n\r\x0b\x0c"));
  CHECK(is_blank("\xe3\x80\x80"));       // U+3000
  CHECK(is_blank("\xe2\x80\xa8"));       // U+2028
  CHECK_FALSE(is_blank("\xc2\xa0"));     // U+00A0
  CHECK_FALSE(is_blank("\xe2\x80\x87")); // U+2007
  CHECK_FALSE(is_blank("\xe2\x80\xaf")); // U+202F
  CHECK_FALSE(is_blank(" x "));
}

TEST_CASE("UTF-8 sanitising replaces each maximal ill-formed subpart") {
  std::string out;
  CHECK(sanitize_utf8("abc", out) == std::string::npos);
  CHECK(out == "abc");
  // E0 80: E0 needs A0..BF next, so E0 alone is one subpart and 80 another.
  CHECK(sanitize_utf8("a\xe0\x80z", out) == 1);
  CHECK(out == "a\xef\xbf\xbd\xef\xbf\xbdz");
  // A truncated 3-byte sequence is one subpart.
  sanitize_utf8("\xe2\x82", out);
  CHECK(out == "\xef\xbf\xbd");
  sanitize_utf8("\xff\xc0\xed\xa0\x80", out); // FF, C0, ED (A0 invalid after ED), A0, 80
  CHECK(out.size() == 15);
  CHECK(utf16_length("a\xf0\x9f\x98\x80") == 3);
}

TEST_CASE("UUIDs: dashed and plain hexadecimal, either case; anything else refused") {
  const auto u = emote::core::parse_uuid("0F8A1B2C-3d4e-5f60-7182-93a4b5c6d7e8");
  REQUIRE(u);
  CHECK((*u)[0] == 0x0f);
  CHECK((*u)[15] == 0xe8);
  CHECK(emote::core::uuid_text(*u) == "0f8a1b2c-3d4e-5f60-7182-93a4b5c6d7e8");
  CHECK(emote::core::parse_uuid("0f8a1b2c3d4e5f60718293a4b5c6d7e8") == u);
  CHECK_FALSE(emote::core::parse_uuid("0000"));
  CHECK_FALSE(emote::core::parse_uuid("0f8a1b2c-3d4e-5f60-7182-93a4b5c6d7eg"));
  CHECK_FALSE(emote::core::parse_uuid("0f8a1b2c+3d4e-5f60-7182-93a4b5c6d7e8"));
  CHECK_FALSE(emote::core::parse_uuid(""));
}
