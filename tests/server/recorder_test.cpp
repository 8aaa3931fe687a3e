#include "server/daemon/recorder.hpp"

#include <doctest/doctest.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

using namespace emote::server;
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

emote::protocol::recording_header header() {
  emote::protocol::recording_header h;
  h.server = "test";
  h.content_digest = std::string(64, 'a');
  h.started = "2026-01-31T12:00:00Z";
  return h;
}

} // namespace

TEST_CASE("recorder: a restart with the same --record path keeps the previous recording") {
  spdlog::set_level(spdlog::level::off);
  const auto dir = fs::temp_directory_path() / ("emote_sim_rec_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto file = dir / "session.ndjson";

  {
    auto first = recorder::open(file, header(), false);
    REQUIRE(first.ok());
    CHECK(first.value()->kept().empty());
    first.value()->connect(0, 1, "controller", "crashed run");
    first.value()->flush();
  }
  const auto crashed = read_file(file);
  REQUIRE(crashed.find("crashed run") != std::string::npos);

  {
    auto second = recorder::open(file, header(), false);
    REQUIRE(second.ok());
    CHECK(second.value()->kept() == fs::path(file.string() + ".1"));
  }
  CHECK(read_file(dir / "session.ndjson.1") == crashed); // nothing of it lost
  CHECK(read_file(file).find("crashed run") == std::string::npos);

  {
    auto third = recorder::open(file, header(), false);
    REQUIRE(third.ok());
    CHECK(third.value()->kept() == fs::path(file.string() + ".2"));
  }
  CHECK(read_file(dir / "session.ndjson.1") == crashed);
  CHECK(fs::exists(dir / "session.ndjson.2"));
  CHECK(kept_recording_path(file) == fs::path(file.string() + ".3"));
  fs::remove_all(dir);
}

TEST_CASE("recorder: an uncreatable recording is an error naming the file") {
  auto r = recorder::open("/nonexistent-dir/x/rec.ndjson", header(), false);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().find("/nonexistent-dir/x/rec.ndjson") != std::string::npos);
}

TEST_CASE("recorder: a write error (a full disk) cuts the file back to its last whole tick and "
          "marks it ended_early; replay reads the mark") {
  spdlog::set_level(spdlog::level::off);
  const auto dir = fs::temp_directory_path() / ("emote_sim_rec_full_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const bool trailer_fails : {false, true}) {
    const auto file = dir / (trailer_fails ? "unmarked.ndjson" : "marked.ndjson");
    {
      auto opened = recorder::open(file, header(), false);
      REQUIRE(opened.ok());
      auto& r = *opened.value();
      r.connect(0, 1, "controller", "c");
      for (std::int64_t t = 0; t < 5; ++t) {
        r.state(t, "0123456789abcdef");
        REQUIRE(r.flush());
      }
      CHECK_FALSE(r.failed());
      // Tick 5: half a line reaches the disk, then ENOSPC (as a full disk does).
      r.fail_next_write_for_test(ENOSPC, 12, trailer_fails);
      r.message(5, 1, R"({"op":"player.join","player":"alice","position":[0,64,0]})");
      r.state(5, "0123456789abcdef");
      CHECK_FALSE(r.flush());
      CHECK(r.failed());
      r.state(6, "0123456789abcdef"); // after the failure nothing more is written
      CHECK_FALSE(r.flush());
    }
    const auto text = read_file(file);
    REQUIRE(!text.empty());
    CHECK(text.back() == '\n'); // no partial line
    CHECK(text.find("alice") == std::string::npos);
    auto parsed = emote::protocol::parse_recording(text);
    REQUIRE_MESSAGE(parsed.ok(), (parsed.ok() ? "" : parsed.error()));
    CHECK(parsed->damage.empty());
    CHECK_FALSE(parsed->truncated_tail);
    CHECK(parsed->last_tick == 4);
    CHECK_FALSE(parsed->server_stopped);
    if (trailer_fails) {
      CHECK_FALSE(parsed->ended_early.has_value());
      CHECK(text.ends_with(R"({"tick":4,"state":"0123456789abcdef"})"
                           "\n"));
    } else {
      REQUIRE(parsed->ended_early.has_value());
      CHECK(parsed->ended_early->tick == 5);
      CHECK(parsed->ended_early->reason == std::strerror(ENOSPC));
      CHECK(text.ends_with(R"({"tick":5,"ended_early":{"reason":")" +
                           std::string(std::strerror(ENOSPC)) + "\"}}\n"));
    }
  }
  fs::remove_all(dir);
}

TEST_CASE("recording: a line after ended_early, or a malformed mark, is damage") {
  const std::string head =
      R"({"emote_sim_recording":1,"server":"t","protocol":1,"seed":0,"config":{},)"
      R"("content_digest":")" +
      std::string(64, 'a') + R"(","started":"x"})" + "\n";
  auto after =
      emote::protocol::parse_recording(head + R"({"tick":3,"ended_early":{"reason":"disk full"}})" +
                                       "\n" + R"({"tick":3,"state":"0123456789abcdef"})" + "\n");
  REQUIRE(after.ok());
  CHECK(after->damage == "3:1: a line after ended_early");
  auto bad = emote::protocol::parse_recording(head + R"({"tick":3,"ended_early":true})" + "\n");
  REQUIRE(bad.ok());
  CHECK(bad->damage.find("2:1: ended_early must be an object") == 0);
}
