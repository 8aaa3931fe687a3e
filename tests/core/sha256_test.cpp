#include "engine/core/sha256.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace emote::core;

TEST_CASE("FIPS 180-2 test vectors") {
  // Appendix B.1: "abc"
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // Appendix B.2: the 448-bit message
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  // Appendix B.3: one million 'a'
  CHECK(sha256_hex(std::string(1000000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // The empty message
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST_CASE("streaming in any chunking gives the same digest") {
  std::string msg;
  for (int i = 0; i < 1000; ++i) {
    msg.push_back(static_cast<char>(i * 31 + 7));
  }
  const std::string whole = sha256_hex(msg);
  for (std::size_t chunk : {1U, 3U, 55U, 56U, 63U, 64U, 65U, 127U, 999U}) {
    sha256 h;
    for (std::size_t at = 0; at < msg.size(); at += chunk) {
      h.update(std::string_view(msg).substr(at, chunk));
    }
    CHECK(to_hex(h.finish()) == whole);
  }
  // Lengths around the padding boundary.
  CHECK(sha256_hex(std::string(55, 'x')) != sha256_hex(std::string(56, 'x')));
  sha256 h;
  h.update("ab");
  (void)h.finish(); // resets
  h.update("abc");
  CHECK(to_hex(h.finish()) == sha256_hex("abc"));
}
