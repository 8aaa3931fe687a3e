// `stress --wire-protocol` (render.md §5.6, §8): vanilla connection framing with zlib
// compression, and the mod's stress pipeline — spawn bundles equal to the renderer's, one
// entity_metadata with the changed values only (index 8 not forced), one entity_destroy per
// display. Compressed frames are read back with zlib's own inflater.
#include "fixture.hpp"
#include "reader.hpp"

#include "support/counting_allocator.hpp"

#include "engine/content/loader.hpp"
#include "engine/content/model.hpp"
#include "engine/sim/stress_run.hpp"
#include "render/framing.hpp"
#include "render/stress_wire.hpp"

#include <doctest/doctest.h>
#include <zlib.h>

#include <filesystem>
#include <string>
#include <vector>

using namespace emote;
using namespace emote::render;
using namespace emote::render::test;
using pk = packet_kind;

namespace {

/// A VarInt at `pos` (test-side, independent of render/).
std::uint32_t varint_at(std::string_view s, std::size_t& pos) {
  std::uint32_t v = 0;
  for (int k = 0; k < 5; ++k) {
    const auto b = static_cast<std::uint8_t>(s.at(pos++));
    v |= static_cast<std::uint32_t>(b & 0x7F) << (7 * k);
    if ((b & 0x80) == 0) {
      return v;
    }
  }
  FAIL("varint too long");
  return 0;
}

/// Split a stream of frames into packets, inflating compressed ones with zlib.
std::vector<std::string> unframe(std::string_view s, std::int32_t threshold) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < s.size()) {
    const std::size_t start = pos;
    const std::uint32_t length = varint_at(s, pos);
    REQUIRE(pos - start <= 3); // Varint21
    REQUIRE(pos + length <= s.size());
    std::string_view frame = s.substr(pos, length);
    pos += length;
    if (threshold < 0) {
      out.emplace_back(frame);
      continue;
    }
    std::size_t q = 0;
    const std::uint32_t data_length = varint_at(frame, q);
    frame.remove_prefix(q);
    if (data_length == 0) {
      CHECK(frame.size() < static_cast<std::size_t>(threshold));
      out.emplace_back(frame);
      continue;
    }
    CHECK(data_length >= static_cast<std::uint32_t>(threshold));
    std::string packet(data_length, '\0');
    uLongf got = data_length;
    REQUIRE(uncompress(reinterpret_cast<Bytef*>(packet.data()), &got,
                       reinterpret_cast<const Bytef*>(frame.data()), frame.size()) == Z_OK);
    REQUIRE(got == data_length);
    out.push_back(std::move(packet));
  }
  return out;
}

std::string pattern(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) {
    s[i] = static_cast<char>("emote-sim "[i % 10] + (i / 97) % 3);
  }
  return s;
}

std::vector<pk> kinds_of(const version_table& v, const std::vector<std::string>& packets) {
  std::vector<pk> k;
  for (const auto& p : packets) {
    k.push_back(decode(v, p).kind);
  }
  return k;
}

} // namespace

TEST_CASE("framing: length prefix, data length 0 below the threshold, zlib at or above it") {
  const std::string small = pattern(255), at = pattern(256), big = pattern(5000);
  {
    packet_framer f(-1);
    std::string out;
    REQUIRE(f.append(out, small));
    REQUIRE(f.append(out, big));
    CHECK(static_cast<std::uint8_t>(out[0]) == 0xFF); // 255 = FF 01
    CHECK(static_cast<std::uint8_t>(out[1]) == 0x01);
    CHECK(unframe(out, -1) == std::vector<std::string>{small, big});
    CHECK(f.compressed() == 0);
  }
  {
    packet_framer f(256);
    std::string out;
    REQUIRE(f.append(out, small));
    CHECK(out.size() == 2 + 1 + 255); // length 256 (2 bytes), data length 0, the packet
    CHECK(out[2] == '\0');
    REQUIRE(f.append(out, at));
    REQUIRE(f.append(out, big));
    CHECK(f.compressed() == 2);
    CHECK(out.size() < 258 + 256 + 5000); // the patterns compress
    CHECK(unframe(out, 256) == std::vector<std::string>{small, at, big});
    // read_frame reads the same back.
    std::size_t pos = 0;
    std::string p;
    for (const std::string* want : {&small, &at, &big}) {
      REQUIRE(read_frame(out, pos, 256, p));
      CHECK(p == *want);
    }
    CHECK(pos == out.size());
    // A truncated stream or a wrong threshold is refused.
    pos = 0;
    CHECK_FALSE(read_frame(std::string_view(out).substr(0, 100), pos, 256, p));
    pos = 0;
    CHECK_FALSE(read_frame(out, pos, 100, p)); // 255 uncompressed bytes at threshold 100
  }
  {
    // Threshold 0 compresses everything, even an empty packet.
    packet_framer f(0);
    std::string out;
    REQUIRE(f.append(out, std::string(1, '\x05')));
    CHECK(f.compressed() == 1);
    CHECK(unframe(out, 0) == std::vector<std::string>{std::string(1, '\x05')});
  }
}

TEST_CASE("framing: a frame beyond 21 bits is refused, nothing appended") {
  packet_framer off(-1);
  std::string out = "x";
  CHECK_FALSE(off.append(out, std::string(max_frame_length + 1, 'a')));
  CHECK(out == "x");
  CHECK(off.append(out, std::string(max_frame_length, 'a')));
  CHECK(out.size() == 1 + 3 + max_frame_length);
  // Compressed: random bytes do not shrink below 2^21.
  packet_framer on(256);
  std::string noise(max_frame_length + 10, '\0');
  std::uint64_t x = 99;
  for (char& c : noise) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    c = static_cast<char>(x >> 56);
  }
  out = "y";
  CHECK_FALSE(on.append(out, noise));
  CHECK(out == "y");
  CHECK(on.append(out, pattern(max_frame_length + 10))); // this one compresses
}

TEST_CASE("stress wire: spawn bundles equal the renderer's; changes carry changed values only") {
  for (const std::int32_t protocol : {769, 775}) {
    CAPTURE(protocol);
    const version_table& v = *find_version(protocol);
    auto sp1 = spawn_event(1, 1);
    sp1.entity_nbt = "{Glowing:1b,view_range:2.0f}";
    sp1.transform.translation = {0.5f, 1, 0};
    auto sp2 = spawn_event(1, 2, api::display_kind::text);
    auto sp3 = spawn_event(1, 3, api::display_kind::block);
    sp3.visible = false;

    // The renderer, one viewer in range: its spawn bundles are the reference.
    fixture fx;
    fx.add("alice", protocol);
    fx.step();
    const auto list = fx.step({sp1, sp2, sp3});
    std::vector<std::string> reference;
    for (const got& g : list) {
      reference.push_back(g.bytes);
    }

    stress_wire wire(v, render_config{});
    packet_framer framer(256);
    wire_output out;
    wire.encode(std::vector<api::event>{sp1, sp2, sp3}, framer, out);
    const auto spawned = unframe(out.bytes, 256);
    CHECK(spawned == reference);
    CHECK(out.packets == spawned.size());
    CHECK(kinds_of(v, spawned) ==
          std::vector<pk>{pk::bundle_delimiter, pk::spawn_entity, pk::entity_metadata,
                          pk::bundle_delimiter, pk::bundle_delimiter, pk::spawn_entity,
                          pk::entity_metadata, pk::bundle_delimiter, pk::bundle_delimiter,
                          pk::spawn_entity, pk::bundle_delimiter});
    // (The hidden block display with an identity transform has every value at its default: a
    // three-packet bundle, as vanilla sends.)

    // A transform update that moves only the translation: one metadata packet with index 11
    // (no 8, no 9: the interpolation duration did not change, render.md §8).
    api::ev_display_update up;
    up.handle = 1;
    up.transform = sp1.transform;
    up.transform->translation = {0.75f, 1, 0};
    api::ev_display_update same; // the same transform as handle 2's: nothing
    same.handle = 2;
    same.transform = sp2.transform;
    api::ev_display_update dur; // only the interpolation duration changes: index 9
    dur.handle = 2;
    dur.transform = sp2.transform;
    dur.interpolation_duration = 3;
    api::ev_display_update show; // handle 3 becomes visible: index 23, the block state
    show.handle = 3;
    show.visible = true;
    out.clear();
    wire.encode(std::vector<api::event>{up, same, dur, show}, framer, out);
    const auto changes = unframe(out.bytes, 256);
    REQUIRE(changes.size() == 3);
    const decoded a = decode(v, changes[0]);
    CHECK(a.kind == pk::entity_metadata);
    CHECK(a.entity_id == 1'000'000'001);
    CHECK(a.keys() == std::vector<int>{11});
    CHECK(a.entry(11)->f[0] == 0.75f);
    const decoded b = decode(v, changes[1]);
    CHECK(b.entity_id == 1'000'000'002);
    CHECK(b.keys() == std::vector<int>{9});
    CHECK(b.entry(9)->i == 3);
    const decoded c = decode(v, changes[2]);
    CHECK(c.entity_id == 1'000'000'003);
    CHECK(c.keys() == std::vector<int>{23});
    CHECK(c.entry(23)->i != 0);

    // -0.0 differs from 0.0 (bitwise), so it is a change.
    api::ev_display_update neg = up;
    neg.transform->translation = {0.75f, 1, -0.0f};
    out.clear();
    wire.encode(std::vector<api::event>{neg}, framer, out);
    CHECK(decode(v, unframe(out.bytes, 256).at(0)).keys() == std::vector<int>{11});

    // Removal: one entity_destroy per display, in the record's order; unknown handles and a
    // second removal send nothing.
    api::ev_display_remove rm;
    rm.session = 1;
    rm.handles = {2, 1, 3, 99};
    out.clear();
    wire.encode(std::vector<api::event>{rm, rm, up}, framer, out);
    const auto removed = unframe(out.bytes, 256);
    REQUIRE(removed.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
      const decoded d = decode(v, removed[i]);
      CHECK(d.kind == pk::entity_destroy);
      CHECK(d.ids == std::vector<std::int32_t>{1'000'000'000 + rm.handles[i]});
    }
  }
}

TEST_CASE("stress wire: a respawned handle gets the next UUID (render.md §3)") {
  const version_table& v = *find_version(775);
  stress_wire wire(v, render_config{});
  packet_framer framer(-1);
  wire_output out;
  api::ev_display_remove rm;
  rm.handles = {4};
  wire.encode(std::vector<api::event>{spawn_event(1, 4), rm, spawn_event(2, 4)}, framer, out);
  const auto packets = unframe(out.bytes, -1);
  REQUIRE(packets.size() == 9);
  CHECK(decode(v, packets[1]).uuid == display_uuid(0, 1'000'000'004, 1));
  CHECK(decode(v, packets[6]).uuid == display_uuid(0, 1'000'000'004, 2));
}

TEST_CASE("stress wire: steady-state ticks allocate nothing") {
  // The fixture emotes (items, blocks, text, loops) as stress instances; after a warm-up in
  // which every buffer reaches its size, encoding a tick's packets allocates nothing.
  const auto catalog =
      content::load_directory(std::filesystem::path(EMOTE_SIM_TEST_DATA) / "server" / "emotes", {});
  REQUIRE(catalog->animation_count() > 0);
  sim::stress_config cfg;
  cfg.instances = 60;
  sim::stress_run run(catalog, cfg);
  stress_wire wire(*find_version(775), render_config{});
  packet_framer framer(256);
  wire_output out;
  wire.encode(run.create().events, framer, out);
  CHECK(out.packets > 60);
  std::uint64_t packets = 0;
  for (int t = 0; t < 200; ++t) {
    out.clear();
    wire.encode(run.step().events, framer, out);
  }
  const emote::testing::allocation_scope counted;
  for (int t = 0; t < 500; ++t) {
    out.clear();
    wire.encode(run.step().events, framer, out);
    packets += out.packets;
  }
  CHECK(run.active() == 60);
  CHECK(packets > 5000);
  CHECK(counted.allocations() == 0);
}
