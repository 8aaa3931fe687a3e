#include "engine/core/base64.hpp"

#include <doctest/doctest.h>

#include <string>

namespace {
std::string b64(std::string_view s) {
  std::string out;
  emote::core::append_base64(out, s);
  return out;
}
} // namespace

TEST_CASE("base64: the RFC 4648 section 10 test vectors and binary bytes") {
  CHECK(b64("") == "");
  CHECK(b64("f") == "Zg==");
  CHECK(b64("fo") == "Zm8=");
  CHECK(b64("foo") == "Zm9v");
  CHECK(b64("foob") == "Zm9vYg==");
  CHECK(b64("fooba") == "Zm9vYmE=");
  CHECK(b64("foobar") == "Zm9vYmFy");
  CHECK(b64(std::string("\x00\xff\xfe", 3)) == "AP/+");
  std::string out = "x";
  emote::core::append_base64(out, "f");
  CHECK(out == "xZg==");
}
