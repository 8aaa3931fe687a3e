#include "server/recorder.hpp"

#include <doctest/doctest.h>
#include <spdlog/spdlog.h>

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
