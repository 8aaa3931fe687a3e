// The frame splitter and the packet codec (gate.md §2, §3).
#include "gate/frames.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <zlib.h>

using namespace emote::gate;
using namespace emote::gate::test;

TEST_CASE("gate frames: frames split across feeds, one byte at a time, raw bytes kept") {
  const std::string a = framed(packet(1, [](byte_writer& w) { w.string("hello"); }));
  const std::string b = framed(packet(2, [](byte_writer& w) { w.bytes(std::string(300, 'x')); }));
  const std::string all = a + b;
  frame_splitter s(max_frame_limit);
  std::vector<std::string> raws;
  for (char c : all) {
    s.feed(std::string_view(&c, 1));
    while (auto f = s.next()) {
      raws.emplace_back(f->raw);
    }
  }
  REQUIRE(raws.size() == 2);
  CHECK(raws[0] == a);
  CHECK(raws[1] == b);
  CHECK(s.buffered() == 0);
  CHECK(s.error() == frame_error::none);
}

TEST_CASE("gate frames: limits (a 4-byte length, length 0, over the limit) stop the splitter") {
  {
    frame_splitter s(max_frame_limit);
    s.feed(std::string("\x80\x80\x80\x01", 4));
    CHECK_FALSE(s.next());
    CHECK(s.error() == frame_error::bad_length);
  }
  {
    frame_splitter s(max_frame_limit);
    s.feed(std::string("\x00", 1));
    CHECK_FALSE(s.next());
    CHECK(s.error() == frame_error::empty);
  }
  {
    frame_splitter s(100);
    s.feed(framed(std::string(101, 'a')).substr(0, 3)); // the length alone is enough to refuse
    CHECK_FALSE(s.next());
    CHECK(s.error() == frame_error::too_long);
  }
  {
    // A 2 MiB frame is over vanilla's 21-bit length: refused from its prefix.
    frame_splitter s(max_frame_limit);
    s.feed(std::string("\xff\xff\xff\x01", 4));
    CHECK_FALSE(s.next());
    CHECK(s.error() == frame_error::bad_length);
  }
}

TEST_CASE("gate frames: the id of a compressed packet is peeked from its first bytes only") {
  std::string big = packet(0x5d, [](byte_writer& w) {
    for (int k = 0; k < 4000; ++k) {
      w.i32(k * 2654435761U);
    }
  });
  const std::string f = framed(big, 256);
  frame_splitter s(max_frame_limit);
  s.feed(f);
  const auto fr = s.next();
  REQUIRE(fr);
  packet_codec c;
  c.set_threshold(256);
  CHECK(c.peek_id(fr->body) == 0x5d);
  // Bounded: the first 16 bytes of the body (data length and the start of the zlib stream) are
  // enough; the rest of the stream is never needed.
  CHECK(c.peek_id(fr->body.substr(0, 16)) == 0x5d);
  std::string out;
  REQUIRE(c.decode(fr->body, out));
  CHECK(out == big);
  // The stream cut short does not decode whole.
  CHECK_FALSE(c.decode(fr->body.substr(0, fr->body.size() - 1), out));
}

TEST_CASE("gate frames: decode refuses what vanilla refuses") {
  packet_codec c;
  c.set_threshold(64);
  std::string out;
  // Uncompressed (data length 0) at or over the threshold.
  std::string body(1, '\0');
  body += std::string(64, 'a');
  CHECK_FALSE(c.decode(body, out));
  body.resize(64);
  CHECK(c.decode(body, out));
  CHECK(out.size() == 63);
  // A declared length below the threshold, and one the stream does not match.
  std::string small = packet(3, [](byte_writer& w) { w.bytes(std::string(100, 'b')); });
  std::string z(compressBound(static_cast<uLong>(small.size())), '\0');
  uLongf zn = z.size();
  REQUIRE(compress(reinterpret_cast<Bytef*>(z.data()), &zn,
                   reinterpret_cast<const Bytef*>(small.data()), small.size()) == Z_OK);
  z.resize(zn);
  const auto with_length = [&](std::int32_t n) {
    std::string b;
    byte_writer w(b);
    w.varint(n);
    w.bytes(z);
    return b;
  };
  CHECK(c.decode(with_length(static_cast<std::int32_t>(small.size())), out));
  CHECK(out == small);
  CHECK_FALSE(c.decode(with_length(static_cast<std::int32_t>(small.size()) + 1), out));
  CHECK_FALSE(c.decode(with_length(10), out));
  CHECK_FALSE(c.decode(with_length(1 << 24), out));
  CHECK_FALSE(c.decode(std::string("\x80", 1), out));
  // Not a zlib stream: the id cannot be peeked.
  std::string junk;
  byte_writer w(junk);
  w.varint(300);
  w.bytes("not zlib at all");
  CHECK_FALSE(c.peek_id(junk));
}
