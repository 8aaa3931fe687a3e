#include "server/cli/commands.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using emote::server::cmd_run;

namespace {

struct captured {
  int status = 0;
  std::string out;
};

captured run(std::vector<std::string_view> args) {
  std::ostringstream out;
  auto* old = std::cout.rdbuf(out.rdbuf());
  captured c;
  c.status = cmd_run(args);
  std::cout.rdbuf(old);
  c.out = out.str();
  return c;
}

} // namespace

TEST_CASE("emote-sim run: usage errors and help") {
  CHECK(run({}).status == 2);
  CHECK(run({"--bogus", "x.json"}).status == 2);
  CHECK(run({"x.json", "--out"}).status == 2);
  auto help = run({"--help"});
  CHECK(help.status == 0);
  CHECK(help.out.starts_with("usage: emote-sim run SCENARIO..."));
}

TEST_CASE("emote-sim run: a scenario that cannot load fails and is counted") {
  const auto dir = std::filesystem::temp_directory_path() / "emote_run_cmd_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "broken.json") << R"({"script":[{"op":"ping"}]})";
  const std::string broken = (dir / "broken.json").string();
  const std::string missing = (dir / "missing.json").string();
  const std::string out_file = (dir / "out.ndjson").string();
  auto r = run({broken, missing, "--out", out_file});
  CHECK(r.status == 1);
  CHECK(r.out.find("FAIL broken: " + broken + ":1:12: $.script[0].tick: is required\n") !=
        std::string::npos);
  CHECK(r.out.find("FAIL missing: " + missing + ": cannot read") != std::string::npos);
  CHECK(r.out.ends_with("0 passed, 2 failed\n"));
  CHECK(std::filesystem::exists(out_file));
  std::filesystem::remove_all(dir);
}

TEST_CASE("emote-sim run: every unmet expectation is reported, each with what was seen") {
  const auto dir = std::filesystem::temp_directory_path() / "emote_run_cmd_unmet";
  std::filesystem::create_directories(dir);
  const std::string emotes =
      (std::filesystem::path(EMOTE_SIM_TEST_DATA) / "server" / "emotes").string();
  std::ofstream(dir / "two.json") << R"({"scenario":1,"name":"two unmet","emotes":[")" << emotes
                                  << R"("],"ticks":5,"script":[
      {"tick":1,"op":"player.join","id":"j","player":"alice","position":[0,64,0]},
      {"tick":2,"op":"emote.play","id":"p","player":"ghost","emote":"t:nothing"}],
    "expect":[
      {"reply":"j","ok":false},
      {"reply":"p","ok":false},
      {"event":"playback.started","player":"alice"}]})";
  auto r = run({(dir / "two.json").string()});
  CHECK(r.status == 1);
  // The first on the FAIL line, the second on the next; the expectation that holds is not named.
  CHECK_MESSAGE(r.out.find("FAIL two unmet: expect[0] {\"reply\":\"j\",\"ok\":false}: the reply "
                           "differs: tick 1") != std::string::npos,
                r.out);
  CHECK_MESSAGE(r.out.find("\n  expect[2] {\"event\":\"playback.started\",\"player\":\"alice\"}: "
                           "no matching event") != std::string::npos,
                r.out);
  CHECK(r.out.find("expect[1]") == std::string::npos);
  CHECK(r.out.ends_with("0 passed, 1 failed\n"));
  std::filesystem::remove_all(dir);
}
