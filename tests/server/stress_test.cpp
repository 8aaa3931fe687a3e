// `emote-sim stress` (players.md §8.3–8.4, protocol.md §9): the report's figures and its JSON,
// the recipients' checksum, and that every fast path (baked poses, memoised decompositions and
// transform texts, the split of instances over two threads, SIMD readers) leaves the bytes alone.
#include "process.hpp"

#include "bench/huge_pages.hpp"
#include "engine/content/loader.hpp"
#include "engine/content/model.hpp"
#include "engine/core/memo.hpp"
#include "engine/json/wire_reader.hpp"
#include "protocol/runner.hpp"
#include "protocol/scenario.hpp"
#include "server/host/content_loader.hpp"
#include "server/host/engine_host.hpp"
#include "server/stress/stress.hpp"
#include "server/stress/stress_harness.hpp"
#include "server/stress/stress_readers.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

using namespace emote;

namespace {

const std::filesystem::path emotes_dir =
    std::filesystem::path(EMOTE_SIM_TEST_DATA) / "server" / "emotes";

std::shared_ptr<const content::catalog> fixture_catalog() {
  return content::load_directory(emotes_dir, {});
}

server::stress_options quick(std::size_t instances, std::size_t recipients) {
  server::stress_options o;
  o.ticks = 60;
  o.instance_config.instances = instances;
  o.recipients = recipients;
  o.paced = false;
  return o;
}

} // namespace

TEST_CASE("stress harness: one sample per tick, the mode's spans as its engine and delivery") {
  struct counting_mode final : server::stress_mode {
    std::int64_t ticks = 0, after = 0;
    bool in_order = true;
    server::tick_spans tick() override {
      in_order = in_order && after == ticks;
      ++ticks;
      return {2'000'000 * ticks, 1'000'000};
    }
    void sampled() override {
      in_order = in_order && after + 1 == ticks;
      ++after;
    }
  } mode;
  const server::sampled_ticks r = server::run_sampled(mode, 4, false);
  CHECK(r.ticks == 4);
  CHECK(mode.ticks == 4);
  CHECK(mode.after == 4);
  CHECK(mode.in_order);
  CHECK(r.mspt.sampled == 4);
  CHECK(r.mspt.emote_avg == doctest::Approx(5.0)); // (2 + 4 + 6 + 8) / 4 ms
  CHECK(r.mspt.emote_max == doctest::Approx(8.0));
  CHECK(r.mspt.network_avg == doctest::Approx(1.0));
  CHECK(r.elapsed_s > 0);
}

TEST_CASE("stress harness: the report writer nests, separates and rounds") {
  server::report_json j;
  j.count("a", 1);
  j.begin("b");
  j.number("c", 1.23456);
  j.begin("d");
  j.end();
  j.integer("e", -2);
  j.end();
  j.figure("f", server::per_tick{2.5, 3});
  j.flag("g", true);
  j.checksum("h", 0xabc);
  rules::stress_summary s;
  s.avg = 1;
  s.p95 = 2;
  s.max = 3;
  s.median = 1.5;
  s.tps.average = 20;
  j.mspt(s, false);
  CHECK(j.done() == R"({"a":1,"b":{"c":1.235,"d":{},"e":-2},"f":{"avg":2.5,"max":3},"g":true,)"
                    R"("h":"0000000000000abc","mspt":{"avg":1,"p95":2,"max":3,"median":1.5},)"
                    R"("tps":20})"
                    "\n");
}

TEST_CASE("stress: every instance runs, every tick is sampled, every recipient reads it all") {
  const auto catalog = fixture_catalog();
  REQUIRE(catalog->animation_count() > 0);
  const auto r = server::run_stress(catalog, quick(300, 5));
  CHECK(r.requested == 300);
  CHECK(r.active == 300);
  CHECK(r.failures == 0);
  CHECK(r.recipients == 5);
  CHECK(r.ticks == 60);
  CHECK(r.mspt.sampled == 60);
  CHECK(r.peak_displays >= 300);
  CHECK(r.mspt.avg > 0);
  CHECK(r.mspt.p95 >= r.mspt.median);
  CHECK(r.mspt.max >= r.mspt.p95);
  CHECK(r.bytes > 0);
  CHECK(r.records > 300); // the spawns at least
  CHECK(r.bytes_per_tick.max >= static_cast<std::int64_t>(r.bytes_per_tick.avg));
  CHECK(r.recipients_agree);
  CHECK(r.checksum != 0);
}

TEST_CASE("stress: the same run twice, and every fast path on or off, gives the same bytes") {
  const auto catalog = fixture_catalog();
  const auto base = server::run_stress(catalog, quick(300, 4));

  auto serial = quick(300, 4);
  serial.parallel = false;
  serial.simd = false;
  auto reference = serial;
  reference.instance_config.bake_budget = 0;
  reference.instance_config.caches.mode = core::cache_mode::off;
  auto checked = serial;
  checked.instance_config.caches.mode = core::cache_mode::check;

  const auto again = server::run_stress(catalog, quick(300, 4));
  const auto one_thread = server::run_stress(catalog, serial);
  const auto unoptimised = server::run_stress(catalog, reference);
  const auto check = server::run_stress(catalog, checked); // throws on a stale entry

  CHECK(again.checksum == base.checksum);
  CHECK(one_thread.checksum == base.checksum);
  CHECK(unoptimised.checksum == base.checksum);
  CHECK(unoptimised.bytes == base.bytes);
  CHECK(check.checksum == base.checksum);
  CHECK(unoptimised.records == base.records);

  // A different run gives a different checksum (the checksum does cover the bytes).
  const auto fewer = server::run_stress(catalog, quick(299, 4));
  CHECK(fewer.checksum != base.checksum);
}

TEST_CASE("stress: no recipient still reads the output; one instance runs") {
  const auto catalog = fixture_catalog();
  auto o = quick(1, 0);
  o.ticks = 5;
  const auto r = server::run_stress(catalog, o);
  CHECK(r.active == 1);
  CHECK(r.ticks == 5);
  CHECK(r.checksum != 0);
}

TEST_CASE("exe: stress prints the protocol.md §9 JSON and refuses bad arguments") {
  const auto dir = server::testing::scratch_dir("exe_stress");
  std::string out;
  std::string err;
  REQUIRE(
      server::testing::process::run({"stress", "--time", "20t", "--instances", "40", "--recipients",
                                     "3", "--unpaced", "--json", "--emotes", emotes_dir.string()},
                                    dir, &out, &err) == 0);
  rapidjson::Document doc;
  REQUIRE_MESSAGE(!json::parse_wire(out.substr(0, out.find('\n')), doc), out);
  for (const char* key : {"instances", "active", "recipients", "peak_displays", "ticks", "mspt",
                          "tps", "split_ms", "bytes_per_tick", "checksum"}) {
    CHECK_MESSAGE(doc.HasMember(key), key);
  }
  CHECK(doc["instances"].GetInt() == 40);
  CHECK(doc["active"].GetInt() == 40);
  CHECK(doc["recipients"].GetInt() == 3);
  CHECK(doc["ticks"].GetInt() == 20);
  for (const char* key : {"avg", "p95", "max"}) {
    CHECK(doc["mspt"].HasMember(key));
  }
  for (const char* key : {"engine", "encode", "fanout"}) {
    CHECK(doc["split_ms"].HasMember(key));
  }
  const std::string checksum = doc["checksum"].GetString();

  // --reference (no baking, no memos), --serial and --scalar: the same bytes.
  REQUIRE(server::testing::process::run({"stress", "--time", "20t", "--instances", "40",
                                         "--recipients", "3", "--unpaced", "--json", "--reference",
                                         "--serial", "--scalar", "--emotes", emotes_dir.string()},
                                        dir, &out) == 0);
  rapidjson::Document ref;
  REQUIRE(!json::parse_wire(out.substr(0, out.find('\n')), ref));
  CHECK(std::string(ref["checksum"].GetString()) == checksum);

  // The text report.
  REQUIRE(server::testing::process::run({"stress", "--time", "5t", "--instances", "3", "--unpaced",
                                         "--emotes", emotes_dir.string()},
                                        dir, &out) == 0);
  CHECK(out.find("3 instances requested, 3 active") != std::string::npos);
  CHECK(out.find("MSPT") != std::string::npos);

  CHECK(server::testing::process::run({"stress", "--instances", "0"}, dir, nullptr, &err) == 2);
  CHECK(err.find("--instances must be an integer 1..1000000") != std::string::npos);
  CHECK(server::testing::process::run({"stress", "--time", "0t"}, dir, nullptr, &err) == 2);
  CHECK(err.find("--time '0t'") != std::string::npos);
  CHECK(server::testing::process::run({"stress", "--recipients", "x"}, dir, nullptr, &err) == 2);
  CHECK(server::testing::process::run({"stress", "--emotes", (dir / "none").string()}, dir, nullptr,
                                      &err) != 0);
}

TEST_CASE("fast paths on and off give the same scenario output byte for byte") {
  // Mixed content through the real Engine: a random Sequence with Molang, a looping Animation
  // with events, a two-player placement (the golden scenarios), with baked poses and memoised
  // decompositions and transform texts, then with none of them.
  const std::filesystem::path golden =
      std::filesystem::path(EMOTE_SIM_SOURCE_DIR) / "tests" / "golden";
  for (const char* name : {"random_sequence", "loop_events", "two_player"}) {
    auto s = protocol::load_scenario(golden / (std::string(name) + ".json"));
    REQUIRE_MESSAGE(s, name);
    auto factory = [](std::size_t bake, core::cache_mode caches) {
      return [bake, caches](const protocol::scenario& sc)
                 -> core::result<std::unique_ptr<protocol::sim_host>, std::string> {
        sim::engine_config cfg = sc.engine;
        cfg.bake_budget = bake;
        cfg.caches.mode = caches;
        auto host = server::engine_host::create(server::make_content_loader(), sc.emotes, cfg);
        if (!host) {
          return core::failure{host.error()};
        }
        return std::unique_ptr<protocol::sim_host>(std::move(*host));
      };
    };
    const auto fast =
        protocol::run_scenario(*s, factory(std::size_t{64} << 20, core::cache_mode::on));
    const auto plain = protocol::run_scenario(*s, factory(0, core::cache_mode::off));
    const auto checked =
        protocol::run_scenario(*s, factory(std::size_t{64} << 20, core::cache_mode::check));
    CHECK_MESSAGE(checked.output == fast.output, name);
    CHECK_MESSAGE(fast.passed, name << ": " << fast.failure);
    CHECK(fast.output.size() > 1000);
    CHECK_MESSAGE(fast.output == plain.output, name);
  }
}

TEST_CASE("stress recipients: every reader computes the same checksum over any split of a line") {
  std::string bytes(70000, '\0');
  std::uint64_t x = 0x1234567;
  for (char& c : bytes) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    c = static_cast<char>(x >> 56);
  }
  const auto sum = [&](server::reader_kind k, std::size_t len,
                       std::vector<std::size_t> cuts) -> std::uint64_t {
    std::vector<std::string_view> pieces;
    std::size_t at = 0;
    for (const std::size_t c : cuts) {
      pieces.emplace_back(bytes.data() + at, c - at);
      at = c;
    }
    pieces.emplace_back(bytes.data() + at, len - at);
    std::vector<server::recipient> rs(3);
    server::deliver(server::reader_fn(k), pieces, rs);
    CHECK(rs[0].checksum() == rs[2].checksum());
    CHECK(rs[1].bytes == len);
    return rs[0].checksum();
  };
  for (const std::size_t len : {std::size_t{0}, std::size_t{1}, std::size_t{255}, std::size_t{256},
                                std::size_t{257}, std::size_t{20000}, std::size_t{70000}}) {
    const std::uint64_t want = sum(server::reader_kind::scalar, len, {});
    for (const auto k :
         {server::reader_kind::scalar, server::reader_kind::avx2, server::reader_kind::avx512}) {
      if (!server::reader_supported(k)) {
        MESSAGE("reader " << static_cast<int>(k) << " not supported here");
        continue;
      }
      CHECK(sum(k, len, {}) == want);
      if (len > 300) {
        CHECK(sum(k, len, {1, 2, 257, len / 2}) == want);
      }
    }
  }
  // One changed byte, or the same bytes in another order, changes the checksum.
  const std::uint64_t base = sum(server::reader_kind::scalar, 70000, {});
  bytes[40000] = static_cast<char>(bytes[40000] ^ 1);
  CHECK(sum(server::reader_kind::scalar, 70000, {}) != base);
  bytes[40000] = static_cast<char>(bytes[40000] ^ 1);
  std::swap_ranges(bytes.begin(), bytes.begin() + 256, bytes.begin() + 512);
  CHECK(sum(server::reader_kind::scalar, 70000, {}) != base);
}

TEST_CASE("stress --wire-protocol: packets, framed once, the same bytes on every path") {
  // render.md §8: spawn bundles at creation, changed values per tick, one destroy per display.
  const auto catalog = fixture_catalog();
  auto o = quick(300, 4);
  o.wire_protocol = 775;
  const auto r = server::run_stress(catalog, o);
  CHECK(r.active == 300);
  CHECK(r.recipients_agree);
  CHECK(r.wire.protocol == 775);
  CHECK(r.wire.compression_threshold == 256);
  CHECK(r.wire.dropped_packets == 0);
  // Creation: 3 or 4 packets per display; cleanup: one destroy per display.
  CHECK(r.wire.packets >= static_cast<std::uint64_t>(4 * r.peak_displays));
  CHECK(r.wire.packets_per_tick.avg > 0);
  CHECK(r.wire.packets_per_tick.max >= static_cast<std::int64_t>(r.wire.packets_per_tick.avg));
  CHECK(r.wire.packets_per_tick.total_avg == doctest::Approx(4 * r.wire.packets_per_tick.avg));
  CHECK(r.wire.bytes_per_tick.avg == r.bytes_per_tick.avg);
  CHECK(r.wire.bytes_per_tick.total_avg == doctest::Approx(4 * r.bytes_per_tick.avg));
  // A tick's packets are entity_metadata frames of at least 3 bytes each.
  CHECK(r.wire.bytes_per_tick.avg >= 3 * r.wire.packets_per_tick.avg);

  auto serial = o;
  serial.parallel = false;
  serial.simd = false;
  const auto one_thread = server::run_stress(catalog, serial);
  CHECK(one_thread.checksum == r.checksum);
  CHECK(one_thread.wire.packets == r.wire.packets);
  CHECK(server::run_stress(catalog, o).checksum == r.checksum);

  // Other framing or another version: other bytes.
  auto plain = o;
  plain.compression_threshold = -1;
  const auto uncompressed = server::run_stress(catalog, plain);
  CHECK(uncompressed.wire.compressed_packets == 0);
  CHECK(uncompressed.checksum != r.checksum);
  CHECK(uncompressed.wire.packets == r.wire.packets);
  auto older = o;
  older.wire_protocol = 767;
  CHECK(server::run_stress(catalog, older).checksum != r.checksum);
  // JSON frames are something else again.
  CHECK(server::run_stress(catalog, quick(300, 4)).checksum != r.checksum);
}

TEST_CASE("exe: stress --wire-protocol reports packets and refuses bad arguments") {
  const auto dir = server::testing::scratch_dir("exe_stress_wire");
  std::string out;
  std::string err;
  REQUIRE(server::testing::process::run({"stress", "--time", "20t", "--instances", "40",
                                         "--recipients", "3", "--unpaced", "--json",
                                         "--wire-protocol", "769", "--compression-threshold", "64",
                                         "--emotes", emotes_dir.string()},
                                        dir, &out, &err) == 0);
  rapidjson::Document doc;
  REQUIRE_MESSAGE(!json::parse_wire(out.substr(0, out.find('\n')), doc), out);
  REQUIRE(doc.HasMember("wire"));
  CHECK(doc["wire"]["protocol"].GetInt() == 769);
  CHECK(doc["wire"]["compression_threshold"].GetInt() == 64);
  for (const char* key : {"packets_per_tick", "wire_bytes_per_tick"}) {
    REQUIRE_MESSAGE(doc.HasMember(key), key);
    for (const char* f : {"avg", "max", "total_avg"}) {
      CHECK_MESSAGE(doc[key].HasMember(f), key << "." << f);
    }
  }
  CHECK(doc["wire_bytes_per_tick"]["total_avg"].GetDouble() ==
        doctest::Approx(3 * doc["wire_bytes_per_tick"]["avg"].GetDouble()).epsilon(0.01));
  // JSON frames have no wire figures.
  REQUIRE(server::testing::process::run({"stress", "--time", "5t", "--instances", "3", "--unpaced",
                                         "--json", "--emotes", emotes_dir.string()},
                                        dir, &out) == 0);
  CHECK(out.find("\"wire\"") == std::string::npos);
  // The text report has a packets line.
  REQUIRE(server::testing::process::run({"stress", "--time", "5t", "--instances", "3", "--unpaced",
                                         "--wire-protocol", "775", "--emotes", emotes_dir.string()},
                                        dir, &out) == 0);
  CHECK(out.find("protocol 775, compression threshold 256") != std::string::npos);

  CHECK(server::testing::process::run({"stress", "--wire-protocol", "760"}, dir, nullptr, &err) ==
        2);
  CHECK(err.find("supported protocols are 767") != std::string::npos);
  CHECK(server::testing::process::run({"stress", "--wire-protocol", "1099511627776"}, dir, nullptr,
                                      &err) == 2);
  CHECK(server::testing::process::run({"stress", "--compression-threshold", "10"}, dir, nullptr,
                                      &err) == 2);
  CHECK(err.find("needs --wire-protocol") != std::string::npos);
  CHECK(server::testing::process::run(
            {"stress", "--wire-protocol", "775", "--compression-threshold", "-2"}, dir, nullptr,
            &err) == 2);
  CHECK(err.find("--compression-threshold must be an integer -1..") != std::string::npos);
}

TEST_CASE("stress recipients: a line read in two halves and combined sums as one reading") {
  std::string bytes(200000, '\0');
  std::uint64_t x = 0xABCDEF;
  for (char& c : bytes) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    c = static_cast<char>(x >> 56);
  }
  const auto read = server::reader_fn(server::best_reader(true));
  for (const std::size_t len :
       {std::size_t{1024}, std::size_t{1025}, std::size_t{70001}, std::size_t{200000}}) {
    for (const std::size_t cut : {std::size_t{0}, std::size_t{1000}, len / 3}) {
      CAPTURE(len);
      CAPTURE(cut);
      const std::string_view line(bytes.data(), len);
      // Two pieces, cut anywhere; the halves split at a block boundary.
      const std::string_view pieces[] = {line.substr(0, cut), line.substr(cut)};
      server::recipient whole;
      server::deliver(read, pieces, std::span<server::recipient>(&whole, 1));
      const std::size_t mid = len / 2 / 512 * 512;
      server::recipient head;
      server::recipient tail;
      server::deliver_range(read, pieces, 0, mid, std::span<server::recipient>(&head, 1));
      server::deliver_range(read, pieces, mid, len, std::span<server::recipient>(&tail, 1));
      server::combine(head, tail, (len - mid + 511) / 512);
      CHECK(head.checksum() == whole.checksum());
      CHECK(head.bytes == len);
      // Combining with the wrong block count gives another checksum (the count matters).
      server::recipient wrong;
      server::deliver_range(read, pieces, 0, mid, std::span<server::recipient>(&wrong, 1));
      server::combine(wrong, tail, (len - mid + 511) / 512 + 1);
      CHECK(wrong.checksum() != whole.checksum());
    }
  }
}

TEST_CASE("stress: one recipient read by two threads gives the one-thread checksum") {
  const auto catalog = fixture_catalog();
  auto o = quick(2000, 1); // frame lines above the 256 KiB split threshold
  o.ticks = 20;
  const auto split = server::run_stress(catalog, o);
  o.parallel = false;
  const auto serial = server::run_stress(catalog, o);
  CHECK(split.bytes_per_tick.avg > 256 * 1024);
  CHECK(split.checksum == serial.checksum);
  CHECK(split.bytes == serial.bytes);
}

TEST_CASE("stress --state-digests: the instances' state digest every tick, a dump every 100; "
          "the same on every path, and the frames unchanged") {
  const auto catalog = fixture_catalog();
  server::stress_options o = quick(50, 2);
  o.ticks = 120;
  const auto plain = server::run_stress(catalog, o);
  CHECK_FALSE(plain.state.on);
  CHECK(server::stress_report_json(plain).find("state_digests") == std::string::npos);
  o.state_digests = true;
  const auto r = server::run_stress(catalog, o);
  CHECK(r.state.on);
  CHECK(r.checksum == plain.checksum); // the output does not depend on digesting
  CHECK(r.state.dumps == 1);           // tick 100
  CHECK(r.state.dump_bytes > 1000);
  CHECK(r.state.digest_ms > 0);
  server::stress_options serial = o;
  serial.parallel = false;
  CHECK(server::run_stress(catalog, serial).state.last_digest == r.state.last_digest);
  server::stress_options shorter = o;
  shorter.ticks = 119;
  CHECK(server::run_stress(catalog, shorter).state.last_digest != r.state.last_digest);
  const std::string json = server::stress_report_json(r);
  CHECK_MESSAGE(json.find(R"("state_digests":{"digest_ms":)") != std::string::npos, json);
  CHECK(json.find(R"("last_digest":")" + core::state_digest_hex(r.state.last_digest) + "\"") !=
        std::string::npos);
}

TEST_CASE("bench_stress: the heap advice finds the heap and leaves its contents alone") {
  // Some megabytes of small allocations, as the instances make, then the advice.
  std::vector<std::unique_ptr<std::array<std::uint32_t, 24>>> blocks;
  for (std::uint32_t i = 0; i < 100000; ++i) {
    blocks.push_back(std::make_unique<std::array<std::uint32_t, 24>>());
    blocks.back()->fill(i);
  }
  const bench::huge_page_result r = bench::advise_heap_huge_pages();
#if defined(__linux__) && !defined(__SANITIZE_ADDRESS__)
  // The C library's allocator puts small blocks on the heap (AddressSanitizer's does not).
  CHECK(r.heap_bytes >= std::size_t{8} << 20);
#endif
  CHECK((!r.collapsed || r.advised)); // collapsing is only tried once advised
  bool intact = true;
  for (std::uint32_t i = 0; i < blocks.size(); ++i) {
    intact = intact && (*blocks[i])[0] == i && (*blocks[i])[23] == i;
  }
  CHECK(intact);
}
