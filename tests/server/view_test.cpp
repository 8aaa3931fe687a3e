// `emote-sim view` (docs/guide/viewer.md) as a process: what it serves for a scenario (the
// timeline with each expectation's result) and how it refuses what it cannot show. The page
// itself is tested in a browser by viewer/test/browser.mjs (scripts/test-viewer).
#include "http_get.hpp"
#include "process.hpp"

#include "server/qa/line_client.hpp"

#include <doctest/doctest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>

using emote::server::line_client;
using emote::server::testing::process;
using emote::server::testing::scratch_dir;
using namespace std::chrono_literals;

namespace {

const std::filesystem::path viewer_data = std::filesystem::path(EMOTE_SIM_TEST_DATA) / "viewer";
/// The showcase: a golden scenario (tests/golden/README.md) on the viewer's emotes.
const std::filesystem::path showcase =
    std::filesystem::path(EMOTE_SIM_SOURCE_DIR) / "tests" / "golden" / "showcase.json";

/// GET `target` from the `view: http://HOST:PORT/` that `p` printed; the body.
std::string http_get(process& p, const std::string& target) {
  std::smatch m;
  const std::string out = p.out();
  REQUIRE(std::regex_search(out, m, std::regex(R"(view: http://127\.0\.0\.1:(\d+)/)")));
  emote::settings::listen_address a;
  a.host = "127.0.0.1";
  a.port = static_cast<std::uint16_t>(std::stoi(m[1]));
  const std::string all =
      emote::server::testing::http_get(a, "GET " + target + " HTTP/1.1\r\n\r\n", 3s);
  const auto body = all.find("\n\n");
  REQUIRE_MESSAGE(all.starts_with("HTTP/1.1 200 OK"), all);
  return all.substr(body + 2);
}

bool wait_for_out(process& p, const std::string& text) {
  for (int i = 0; i < 500; ++i) {
    if (p.out().find(text) != std::string::npos) {
      return true;
    }
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

} // namespace

TEST_CASE("view: a scenario's timeline with its expectations, served until interrupted") {
  const auto dir = scratch_dir("view_ok");
  process p({"view", showcase.string(), "--http", "127.0.0.1:0"}, dir);
  REQUIRE_MESSAGE(wait_for_out(p, "view: http://"), p.err());
  CHECK(p.out().starts_with("PASS viewer: "));
  CHECK(http_get(p, "/viewer.json") == "{\"mode\":\"timeline\"}\n");
  const auto timeline = http_get(p, "/timeline.json");
  CHECK(
      timeline.find(R"("ticks":60,"passed":true,"inputs":[{"tick":0,"msg":{"op":"world.blocks")") !=
      std::string::npos);
  CHECK(timeline.find(R"({"op":"frame","tick":1,"events":[{"type":"display.spawn")") !=
        std::string::npos);
  // Each expectation with whether it holds and where it goes on the timeline.
  CHECK(timeline.find(R"("pass":true,"tick":1})") != std::string::npos);
  CHECK(timeline.find(R"("pass":true,"tick":45})") != std::string::npos);
  p.signal(SIGTERM);
  CHECK(p.wait(5s) == 0);
}

TEST_CASE("view: a failing expectation is marked and the exit status says so") {
  const auto dir = scratch_dir("view_fail");
  const auto file = dir / "failing.json";
  std::ofstream(file) << R"({"scenario":1,"name":"fails","emotes":[")"
                      << (viewer_data / "emotes").string() << R"("],"ticks":5,
    "script":[{"tick":0,"op":"player.join","player":"a","position":[0,64,0]}],
    "expect":[{"event":"playback.started","player":"a"}]})";
  process p({"view", file.string(), "--http", "127.0.0.1:0"}, dir);
  REQUIRE_MESSAGE(wait_for_out(p, "view: http://"), p.err());
  CHECK(p.out().starts_with("FAIL fails: "));
  const auto timeline = http_get(p, "/timeline.json");
  CHECK(timeline.find(R"("passed":false,"failure":")") != std::string::npos);
  CHECK(timeline.find(R"("pass":false})") != std::string::npos);
  p.signal(SIGTERM);
  CHECK(p.wait(5s) == 1);
}

// docs/guide/viewer.md: without the viewer's bundle, `view` (on stderr and at `/`) and
// `serve --http` (at `/`; its log says to look there) say the same: the folders searched and how
// to build it. The executable is linked into a
// scratch folder of the build tree, so nothing beside it holds a viewer whether or not
// scripts/build-viewer has run.
TEST_CASE("view and serve --http without the viewer: one message naming the folders searched") {
  const auto dir = scratch_dir("view_no_viewer");
  const auto tree = emote::server::testing::emote_sim_exe().parent_path().parent_path() /
                    ("scratch_no_viewer_" + std::to_string(::getpid()));
  std::filesystem::remove_all(tree);
  std::filesystem::create_directories(tree / "bin");
  const auto exe = tree / "bin" / "emote-sim";
  std::error_code ec;
  std::filesystem::create_hard_link(emote::server::testing::emote_sim_exe(), exe, ec);
  if (ec) {
    std::filesystem::copy_file(emote::server::testing::emote_sim_exe(), exe);
  }
  const auto empty = dir / "empty";
  std::filesystem::create_directories(empty);
  const std::string folders = empty.string() + ", " + (tree / "viewer").string() + ", " +
                              (tree / "share" / "emote-sim" / "viewer").string();
  const std::string message = "the viewer is not built: no index.html in " + folders +
                              "; build it with scripts/build-viewer [preset]";
  const std::vector<std::string> env{"EMOTE_SIM_VIEWER_DIR=" + empty.string()};
  auto index_of = [](const emote::settings::listen_address& a) {
    return emote::server::testing::http_get(a, "GET / HTTP/1.1\r\n\r\n", 3s);
  };
  {
    process p({"view", showcase.string(), "--http", "127.0.0.1:0"}, dir, env, exe);
    REQUIRE_MESSAGE(wait_for_out(p, "view: http://"), p.err());
    CHECK_MESSAGE(p.err().find("view: " + message) != std::string::npos, p.err());
    std::smatch m;
    const std::string out = p.out();
    REQUIRE(std::regex_search(out, m, std::regex(R"(view: http://127\.0\.0\.1:(\d+)/)")));
    emote::settings::listen_address a;
    a.host = "127.0.0.1";
    a.port = static_cast<std::uint16_t>(std::stoi(m[1]));
    const auto index = index_of(a);
    CHECK_MESSAGE(index.starts_with("HTTP/1.1 404 Not Found"), index);
    CHECK_MESSAGE(index.find("\n\n" + message) != std::string::npos, index);
    CHECK(http_get(p, "/viewer.json") == "{\"mode\":\"timeline\"}\n");
    p.signal(SIGTERM);
    CHECK(p.wait(5s) == 0);
  }
  {
    process p({"serve", "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0", "--emotes",
               (viewer_data / "emotes").string()},
              dir, env, exe);
    REQUIRE_MESSAGE(p.wait_for_log("viewer at http://", 20s), p.err());
    std::smatch m;
    const std::string err = p.err();
    REQUIRE(std::regex_search(err, m, std::regex(R"(viewer at http://127\.0\.0\.1:(\d+)/)")));
    emote::settings::listen_address a;
    a.host = "127.0.0.1";
    a.port = static_cast<std::uint16_t>(std::stoi(m[1]));
    const auto index = index_of(a);
    CHECK_MESSAGE(index.starts_with("HTTP/1.1 404 Not Found"), index);
    CHECK_MESSAGE(index.find("\n\n" + message) != std::string::npos, index);
    p.signal(SIGTERM);
    CHECK(p.wait(20s) == 0);
  }
  std::filesystem::remove_all(tree);
}

TEST_CASE("view: what it cannot show is an error naming the problem, not a crash") {
  const auto dir = scratch_dir("view_bad");
  std::string err;
  // A truncated scenario.
  const auto truncated = dir / "truncated.json";
  std::ofstream(truncated) << R"({"scenario":1,"script":[{"tick":0,"op":"player.jo)";
  CHECK(process::run({"view", truncated.string()}, dir, nullptr, &err) == 2);
  CHECK_MESSAGE(err.starts_with("view: " + truncated.string() + ":"), err);
  // Content that does not load.
  const auto no_content = dir / "no_content.json";
  std::ofstream(no_content) << R"({"scenario":1,"emotes":["missing"],"ticks":3,"script":[]})";
  CHECK(process::run({"view", no_content.string()}, dir, nullptr, &err) == 2);
  CHECK_MESSAGE(err.find("cannot load content") != std::string::npos, err);
  // A bad address.
  CHECK(process::run({"view", showcase.string(), "--http", "unix:/x"}, dir, nullptr, &err) == 2);
  CHECK_MESSAGE(err.find("view: --http: must be a TCP HOST:PORT address") != std::string::npos,
                err);
}

TEST_CASE("view: a recording replayed, a truncated one noted, another content set refused") {
  const auto dir = scratch_dir("view_rec");
  const auto rec = dir / "session.ndjson";
  {
    process server({"serve", "--clock", "manual", "--listen", "127.0.0.1:0", "--record",
                    rec.string(), "--emotes", (viewer_data / "emotes").string()},
                   dir);
    REQUIRE_MESSAGE(server.wait_for_log("ready", 10s), server.err());
    std::smatch m;
    const std::string log = server.err();
    REQUIRE(std::regex_search(log, m, std::regex(R"(listening on 127\.0\.0\.1:(\d+))")));
    emote::settings::listen_address a;
    a.host = "127.0.0.1";
    a.port = static_cast<std::uint16_t>(std::stoi(m[1]));
    auto c = line_client::connect(a, 2s);
    REQUIRE(c.ok());
    c->send_line(R"({"op":"hello","protocol":1})");
    c->send_line(R"({"op":"player.join","player":"alice","position":[0,64,0],"yaw":180})");
    c->send_line(R"({"op":"emote.play","player":"alice","emote":"viewer:showcase"})");
    c->send_line(R"({"op":"clock.step","id":"s","ticks":10})");
    for (int i = 0; i < 100; ++i) {
      auto l = c->read_line(5s);
      REQUIRE(l.has_value());
      if (l->starts_with(R"({"op":"reply","id":"s")")) {
        break;
      }
    }
    c->send_line(R"({"op":"bye"})");
    server.signal(SIGTERM);
    REQUIRE(server.wait(10s) == 0);
  }
  {
    process p({"view", rec.string(), "--http", "127.0.0.1:0"}, dir);
    REQUIRE_MESSAGE(wait_for_out(p, "view: http://"), p.err());
    CHECK_MESSAGE(p.out().starts_with("PASS session.ndjson: "), p.out());
    const auto timeline = http_get(p, "/timeline.json");
    CHECK(timeline.find(R"({"op":"player.join","player":"alice")") != std::string::npos);
    CHECK(timeline.find(R"({"op":"frame","tick":0,"events":[{"type":"display.spawn")") !=
          std::string::npos);
    CHECK(timeline.find(R"({"text":"the replay is identical to the recording","pass":true})") !=
          std::string::npos);
    p.signal(SIGTERM);
    CHECK(p.wait(5s) == 0);
  }
  // A crash mid-line: the rest is viewed and the note says what was ignored.
  const auto truncated = dir / "truncated.ndjson";
  std::filesystem::copy_file(rec, truncated);
  std::ofstream(truncated, std::ios::app) << R"({"tick":12,"conn":1,"msg":{"op":"pl)";
  {
    process p({"view", truncated.string(), "--http", "127.0.0.1:0"}, dir);
    REQUIRE_MESSAGE(wait_for_out(p, "view: http://"), p.err());
    CHECK(p.err().find("view: note: the recording's last line was incomplete and is ignored") !=
          std::string::npos);
    CHECK(
        http_get(p, "/timeline.json").find(R"("note":"the recording's last line was incomplete)") !=
        std::string::npos);
    p.signal(SIGTERM);
    CHECK(p.wait(5s) == 0);
  }
  // Another content set: refused, naming both digests.
  std::string err;
  CHECK(process::run({"view", rec.string(), "--emotes",
                      (std::filesystem::path(EMOTE_SIM_TEST_DATA) / "server" / "emotes").string()},
                     dir, nullptr, &err) == 2);
  CHECK_MESSAGE(err.find("differs from the recording's (recorded ") != std::string::npos, err);
}
