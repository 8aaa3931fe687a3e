// The built `emote-sim` executable: command line, configuration errors, and (with the Engine,
// "[engine]" cases) serve over TCP and a Unix socket, SIGTERM, recordings replayed by
// `emote-sim replay`, `record-to-scenario`, and `bot` against `run`.
#include "http_get.hpp"
#include "process.hpp"

#include "server/qa/line_client.hpp"
#include "settings/listen_address.hpp"

#include <doctest/doctest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <array>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include <poll.h>

using namespace emote::server;
using namespace emote::settings;
using namespace emote::server::testing;
using namespace std::chrono_literals;

namespace {

std::filesystem::path data(const std::string& rel) {
  return std::filesystem::path(EMOTE_SIM_TEST_DATA) / "server" / rel;
}

std::string read_until(line_client& c, const std::string& needle) {
  for (int i = 0; i < 100000; ++i) {
    auto line = c.read_line(10s);
    REQUIRE_MESSAGE(line.has_value(), "waiting for " << needle);
    if (line->find(needle) != std::string::npos) {
      return *line;
    }
  }
  FAIL("not found: " << needle);
  return {};
}

line_client hello(const listen_address& a, const std::string& extra = "") {
  auto c = line_client::connect(a, 5s);
  REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error()));
  c->send_line(R"({"op":"hello","protocol":1,"client":"exe-test")" + extra + "}");
  auto w = c->read_line(5s);
  REQUIRE(w.has_value());
  REQUIRE_MESSAGE(w->starts_with(R"({"op":"welcome")"), *w);
  return std::move(c).value();
}

void step(line_client& c, int ticks, const std::string& id) {
  c.send_line(R"({"op":"clock.step","id":")" + id + R"(","ticks":)" + std::to_string(ticks) + "}");
  read_until(c, R"({"op":"reply","id":")" + id + "\"");
}

// The HTTP listener a started serve names in its log (`viewer at http://HOST:PORT/`).
listen_address logged_http_address(process& p) {
  REQUIRE_MESSAGE(p.wait_for_log("ready", 20s), p.err());
  std::smatch m;
  const std::string log = p.err();
  REQUIRE_MESSAGE(std::regex_search(log, m, std::regex(R"(viewer at http://(127\.0\.0\.1:\d+)/)")),
                  log);
  return *parse_listen_address(m[1].str());
}

// A server started from the executable, listening on a Unix socket and an ephemeral TCP port.
struct served {
  served(const std::filesystem::path& dir, std::vector<std::string> extra,
         const std::filesystem::path& emotes = data("emotes")) {
    sock = *parse_listen_address("unix:" + (dir / "s.sock").string());
    std::vector<std::string> args = {"serve",       "--listen", sock.text(),    "--listen",
                                     "127.0.0.1:0", "--emotes", emotes.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    p = std::make_unique<process>(args, dir);
    REQUIRE_MESSAGE(p->wait_for_log("ready", 20s), p->err());
    std::smatch m;
    const std::string err = p->err();
    REQUIRE(std::regex_search(err, m, std::regex(R"(listening on (127\.0\.0\.1:\d+))")));
    tcp = *parse_listen_address(m[1].str());
  }
  int stop() {
    p->signal(SIGTERM);
    const auto st = p->wait(20s);
    REQUIRE(st.has_value());
    return *st;
  }
  std::unique_ptr<process> p;
  listen_address sock;
  listen_address tcp;
};

} // namespace

TEST_CASE("exe: --help lists the server's commands; unknown commands and options fail") {
  const auto dir = scratch_dir("exe_help");
  std::string out;
  std::string err;
  CHECK(process::run({"--help"}, dir, &out) == 0);
  for (const char* c : {"serve", "bot", "replay", "record-to-scenario", "shrink", "run", "check",
                        "list", "stress", "health"}) {
    CHECK_MESSAGE(out.find(std::string("  ") + c) != std::string::npos, c);
  }
  CHECK(process::run({"serve", "--help"}, dir, &out) == 0);
  CHECK(out.find("--record-frames") != std::string::npos);
  CHECK(process::run({"serve", "--colour", "red"}, dir, nullptr, &err) == 2);
  CHECK(err.find("unknown option '--colour'") != std::string::npos);
  CHECK(process::run({"replay"}, dir, nullptr, &err) == 2);
  CHECK(process::run({"bot", "x.json"}, dir, nullptr, &err) == 2);
  CHECK(process::run({"replay", (dir / "missing.ndjson").string()}, dir, nullptr, &err) == 2);
}

TEST_CASE("exe: an invalid configuration stops serve and names the key and its layer") {
  const auto dir = scratch_dir("exe_config");
  std::string err;
  CHECK(process::run({"serve", "--tps", "0"}, dir, nullptr, &err) == 2);
  CHECK(err.find("config: tps (from --tps): must be an integer between 1 and 1000 (got 0)") !=
        std::string::npos);
  CHECK(process::run({"serve"}, dir, nullptr, &err, {"EMOTE_SIM_LIMITS_MAX_CONNECTIONS=none"}) ==
        2);
  CHECK(err.find("config: limits.max_connections (from EMOTE_SIM_LIMITS_MAX_CONNECTIONS): must "
                 "be an integer") != std::string::npos);
  std::ofstream(dir / "bad.json") << R"({"listen": ["127.0.0.1:25580"], "colour": "red"})";
  CHECK(process::run({"serve", "--config", (dir / "bad.json").string()}, dir, nullptr, &err) == 2);
  CHECK(err.find("config: colour (from " + (dir / "bad.json").string() + ":1:43): unknown key") !=
        std::string::npos);
  CHECK(process::run({"serve", "--log-level", "loud"}, dir, nullptr, &err) == 2);
  CHECK(err.find("unknown log level 'loud'") != std::string::npos);
}

TEST_CASE("exe: serve on an emotes folder that cannot be read says so and exits 1") {
  const auto dir = scratch_dir("exe_noemotes");
  const auto missing = (dir / "no-such-folder").string();
  std::string err;
  CHECK(process::run({"serve", "--emotes", missing}, dir, nullptr, &err) == 1);
  CHECK(err.find("cannot load emotes from '" + missing + "'") != std::string::npos);
}

// protocol.md §4 emote.reload: startup and every reload log each skipped file with its reason;
// a reload that would leave 0 emotes is refused (reload_empty) unless allow_empty.
TEST_CASE("[engine] exe: skipped files are logged at startup and reload; a reload to 0 emotes "
          "keeps the catalog") {
  const auto dir = scratch_dir("exe_skipped");
  const auto emotes = dir / "emotes";
  std::filesystem::copy(data("emotes"), emotes, std::filesystem::copy_options::recursive);
  std::ofstream(emotes / "broken.json") << "{not json";
  served s(dir, {}, emotes);
  CHECK_MESSAGE(s.p->err().find("startup: skipped broken.json:1:2: error: $: invalid JSON") !=
                    std::string::npos,
                s.p->err());
  CHECK(s.p->err().find("(1 files skipped)") != std::string::npos);
  auto c = hello(s.sock);
  c.send_line(R"({"op":"emote.list","id":"l0"})");
  const std::string before = read_until(c, R"("id":"l0")");

  // A broken deploy: every emote file is gone, the broken one stays.
  for (const auto& e : std::filesystem::directory_iterator(emotes)) {
    if (e.path().filename() != "broken.json") {
      std::filesystem::remove(e.path());
    }
  }
  c.send_line(R"({"op":"emote.reload","id":"r1"})");
  const std::string refused = read_until(c, R"("id":"r1")");
  CHECK_MESSAGE(refused.find(R"("code":"reload_empty")") != std::string::npos, refused);
  c.send_line(R"({"op":"emote.list","id":"l1"})");
  std::string after = read_until(c, R"("id":"l1")");
  CHECK(after.substr(after.find("\"emotes\"")) == before.substr(before.find("\"emotes\"")));
  REQUIRE(s.p->wait_for_log("failed (reload_empty)", 10s));
  const std::string log = s.p->err();
  CHECK_MESSAGE(
      std::regex_search(log, std::regex(R"(warning emote\.reload by connection \d+: )"
                                        R"(skipped broken\.json:1:2: error: \$: invalid JSON)")),
      log);
  CHECK(std::regex_search(log, std::regex(R"(warning emote\.reload by connection \d+ failed )"
                                          R"(\(reload_empty\): the reload would leave 0 emotes)")));

  c.send_line(R"({"op":"emote.reload","id":"r2","allow_empty":true})");
  const std::string emptied = read_until(c, R"("id":"r2")");
  CHECK_MESSAGE(emptied.find(R"("ok":true,"loaded":0)") != std::string::npos, emptied);
  CHECK(s.stop() == 0);
}

TEST_CASE("[engine] exe: serve on TCP and a Unix socket; SIGTERM stops every playback with "
          "SERVER_STOPPING, says bye, flushes the recording and exits 0") {
  const auto dir = scratch_dir("exe_sigterm");
  const auto rec = dir / "rec.ndjson";
  served s(dir, {"--record", rec.string(), "--metrics", "127.0.0.1:0"});
  auto c = hello(s.sock);
  auto watcher = hello(s.tcp, R"(,"role":"observer")");
  watcher.send_line(R"({"op":"subscribe","id":1,"events":["playback."]})");
  read_until(watcher, R"("id":1)");
  c.send_line(R"({"op":"player.join","id":"j","player":"alice","position":[0.5,64,0.5]})");
  c.send_line(R"({"op":"emote.play","id":"p","player":"alice","emote":"t:wave"})");
  CHECK(read_until(c, R"("id":"p")").find(R"("ok":true)") != std::string::npos);
  read_until(watcher, R"("type":"playback.started")");
  CHECK(s.stop() == 0);
  const auto last = read_until(watcher, "SERVER_STOPPING");
  CHECK(last.find(R"("type":"playback.stopped")") != std::string::npos);
  CHECK(last.find(R"("player":"alice")") != std::string::npos);
  CHECK(watcher.read_line(5s) == R"({"op":"bye","reason":"server_stopping"})");
  CHECK(read_until(c, R"({"op":"bye")") == R"({"op":"bye","reason":"server_stopping"})");
  const auto text = read_file(rec);
  CHECK(text.find(R"("conn":0,"disconnect":{})") != std::string::npos);
  CHECK(text.back() == '\n');
  std::string out;
  CHECK(process::run({"replay", rec.string()}, dir, &out) == 0);
  CHECK(out.find("identical") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(s.sock.path)); // the socket file is removed
}

TEST_CASE("[engine] exe: a live session (several players, a two-player match, a random "
          "Sequence) replays identical; a changed input reports the first divergent tick") {
  const auto dir = scratch_dir("exe_replay");
  const auto rec = dir / "live.ndjson";
  {
    served s(dir, {"--clock", "manual", "--seed", "11", "--record", rec.string(), "--record-frames",
                   "--record-state-every", "10"});
    auto a = hello(s.sock);
    auto b = hello(s.tcp);
    a.send_line(R"({"op":"player.join","player":"alice","position":[0.5,64,0.5],"yaw":0})");
    b.send_line(R"({"op":"player.join","player":"bob","position":[0.5,64,1.7],"yaw":180})");
    a.send_line(R"({"op":"player.join","player":"carol","position":[10.5,64,0.5]})");
    step(a, 1, "s0");
    a.send_line(R"({"op":"emote.play","id":"a","player":"alice","emote":"t:handshake"})");
    a.send_line(R"({"op":"emote.play","id":"c","player":"carol","emote":"t:random"})");
    step(a, 2, "s1");
    b.send_line(R"({"op":"emote.play","id":"b","player":"bob","emote":"t:handshake"})");
    CHECK(read_until(b, R"("id":"b")").find(R"("role":"partner")") != std::string::npos);
    step(a, 60, "s2");
    b.send_line(R"({"op":"bye"})"); // bob leaves with his connection
    step(a, 20, "s3");
    CHECK(s.stop() == 0);
  }
  std::string out;
  std::string err;
  CHECK(process::run({"replay", rec.string()}, dir, &out, &err) == 0);
  CHECK_MESSAGE(std::regex_search(out, std::regex(R"(^replay: \d+ ticks, identical\n$)")), out);

  // One changed input: carol's Sequence is played by alice instead of carol.
  std::string text = read_file(rec);
  const std::string from = R"("id":"c","player":"carol")";
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), R"("id":"c","player":"dave")");
  std::ofstream(dir / "changed.ndjson", std::ios::binary) << text;
  CHECK(process::run({"replay", (dir / "changed.ndjson").string()}, dir, &out) == 1);
  // The play's reply (unknown player) is the first difference, on the connection that sent it.
  CHECK_MESSAGE(out.find("replay: diverged at tick 1: a reply on connection 1 differs\n") == 0,
                out);
  CHECK(out.find("recorded:") != std::string::npos);

  // protocol.md §8: every tick holds a state digest; a wrong one is the first state divergence,
  // explained against the dump of the same tick (equal here: only the digest was changed).
  {
    std::string states = read_file(rec);
    const std::regex tick3(
        R"re(\{"tick":3,(?:"digest":"[0-9a-f]{64}",)?"state":"([0-9a-f]{16})")re");
    std::smatch m;
    REQUIRE(std::regex_search(states, m, tick3));
    const std::string digest = m[1].str();
    states.replace(static_cast<std::size_t>(m.position(1)), 16, std::string(16, '0'));
    std::ofstream(dir / "state.ndjson", std::ios::binary) << states;
    CHECK(process::run({"replay", (dir / "state.ndjson").string()}, dir, &out) == 1);
    CHECK_MESSAGE(out.find("replay: state diverged at tick 3 (recorded state 0000000000000000, "
                           "replayed " +
                           digest + ")\n") == 0,
                  out);
    CHECK_MESSAGE(out.find("  state at tick 10, the recorded dump against the replayed state:\n"
                           "  (no difference in the dumped fields)\n") != std::string::npos,
                  out);
    CHECK_MESSAGE(out.find("replay: the output stayed identical") != std::string::npos, out);
  }

  // A different content folder is refused unless allowed.
  std::filesystem::create_directories(dir / "other");
  CHECK(process::run({"replay", rec.string(), "--emotes", (dir / "other").string()}, dir, &out,
                     &err) == 2);
  CHECK_MESSAGE(err.find("differs") != std::string::npos, err);
  CHECK_MESSAGE(err.ends_with("replay: stopped (use --allow-content-change to replay anyway)\n"),
                err);
  // A folder that cannot be read is an error of its own.
  CHECK(process::run({"replay", rec.string(), "--emotes", (dir / "nothing").string()}, dir, &out,
                     &err) == 2);

  // record-to-scenario: the input as a scenario that `run` accepts, with expectations from the
  // replay (replies of both connections, the match, the Sequence) that hold on this build.
  CHECK(
      process::run({"record-to-scenario", rec.string(), "--out", (dir / "captured.json").string()},
                   dir) == 0);
  const std::string captured = read_file(dir / "captured.json");
  for (const char* e : {R"({"reply":"1/a",)", R"({"reply":"2/b",)",
                        R"({"event":"partner.matched",)", R"("emote":"t:random")"}) {
    CHECK_MESSAGE(captured.find(e) != std::string::npos, e << "\n" << captured);
  }
  CHECK(process::run({"run", (dir / "captured.json").string()}, dir, &out, &err) == 0);
  CHECK_MESSAGE(out.find("1 passed, 0 failed") != std::string::npos, out);
}

TEST_CASE("[engine] exe: bot against a live server gives the same frames as run") {
  const auto dir = scratch_dir("exe_bot");
  const auto scenario = data("scenarios/live.json");
  std::string run_summary;
  CHECK(process::run({"run", scenario.string(), "--out", (dir / "run.ndjson").string()}, dir,
                     &run_summary) == 0);
  CHECK(run_summary.find("PASS several players") != std::string::npos);
  served s(dir, {"--clock", "manual", "--seed", "11"});
  std::string bot_summary;
  CHECK(process::run({"bot", "--connect", s.tcp.text(), scenario.string(), "--out",
                      (dir / "bot.ndjson").string()},
                     dir, &bot_summary) == 0);
  CHECK(bot_summary.find("PASS several players") != std::string::npos);
  const auto run_out = read_file(dir / "run.ndjson");
  const auto bot_out = read_file(dir / "bot.ndjson");
  CHECK(!run_out.empty());
  CHECK(bot_out == run_out);
  CHECK(s.stop() == 0);
}

TEST_CASE("[engine] exe: GET /metrics on a running server") {
  const auto dir = scratch_dir("exe_metrics");
  served s(dir, {"--metrics", "127.0.0.1:0"});
  std::smatch m;
  const std::string err = s.p->err();
  REQUIRE(std::regex_search(err, m, std::regex(R"(metrics at http://(127\.0\.0\.1:\d+)/metrics)")));
  auto c = hello(s.sock);
  const std::string body =
      http_get(*parse_listen_address(m[1].str()), "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(body.starts_with("HTTP/1.1 200 OK"));
  CHECK(body.find("emote_sim_connections{role=\"controller\"} 1") != std::string::npos);
  CHECK(body.find("emote_sim_emotes 11") != std::string::npos);
  CHECK(body.find("emote_sim_tick_duration_seconds_count") != std::string::npos);
  CHECK(s.stop() == 0);
}

// protocol.md §10 `http`, docs/guide/viewer.md: the config key (here from EMOTE_SIM_HTTP, a bare
// port) puts one listener on loopback that serves the viewer's page (or, when it is not built,
// says how to build it), /viewer.json (live mode), /metrics and the observer WebSocket at /ws; a
// Unix socket address is refused naming the key.
TEST_CASE("[engine] exe: serve with http set serves the viewer, /metrics and /ws on loopback") {
  const auto dir = scratch_dir("exe_http");
  std::string err;
  CHECK(process::run({"serve", "--http", "unix:" + (dir / "h.sock").string()}, dir, nullptr,
                     &err) == 2);
  CHECK_MESSAGE(err.find("config: http (from --http): must be a TCP HOST:PORT address") !=
                    std::string::npos,
                err);
  CHECK(process::run({"serve"}, dir, nullptr, &err, {"EMOTE_SIM_HTTP=localhost"}) == 2);
  CHECK_MESSAGE(err.find("config: http (from EMOTE_SIM_HTTP): ") != std::string::npos, err);

  process p({"serve", "--listen", "127.0.0.1:0", "--emotes", data("emotes").string()}, dir,
            {"EMOTE_SIM_HTTP=0"});
  const listen_address http = logged_http_address(p);
  auto get = [&](const std::string& request) { return http_get(http, request); };
  // The page when scripts/build-viewer has built it beside the executable's folder, else a 404
  // that says how to build it.
  const auto built = emote_sim_exe().parent_path().parent_path() / "viewer" / "index.html";
  const auto index = get("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  if (std::filesystem::is_regular_file(built)) {
    CHECK_MESSAGE(index.starts_with("HTTP/1.1 200 OK"), index);
    CHECK(index.find("Content-Type: text/html") != std::string::npos);
    CHECK(index.find("<title>emote-sim viewer</title>") != std::string::npos);
  } else {
    CHECK_MESSAGE(index.starts_with("HTTP/1.1 404 Not Found"), index);
    CHECK(index.find("the viewer is not built: no index.html in ") != std::string::npos);
  }
  CHECK(get("GET /viewer.json HTTP/1.1\r\n\r\n").ends_with("\n{\"mode\":\"live\"}\n"));
  const auto metrics = get("GET /metrics HTTP/1.1\r\n\r\n");
  CHECK(metrics.starts_with("HTTP/1.1 200 OK"));
  CHECK(metrics.find("emote_sim_tick_duration_seconds_count") != std::string::npos);
  // The observer WebSocket is on the same listener (what it carries: http_listener_test.cpp).
  auto ws = line_client::connect(http, 5s);
  REQUIRE(ws.ok());
  ws->send_raw("GET /ws HTTP/1.1\r\nHost: " + http.text() +
               "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
  auto status = ws->read_line(5s);
  REQUIRE(status.has_value());
  CHECK(*status == "HTTP/1.1 101 Switching Protocols");
  bool accepted = false;
  for (auto line = ws->read_line(5s); line && !line->empty(); line = ws->read_line(5s)) {
    accepted = accepted || *line == "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";
  }
  CHECK(accepted);
  p.signal(SIGTERM);
  CHECK(p.wait(20s) == 0);
}

// docs/guide/viewer.md: EMOTE_SIM_VIEWER_DIR names the viewer's folder (the not-built page tells
// users to set it); serve accepts it beside the configuration's variables and serves from there.
TEST_CASE("[engine] exe: serve with EMOTE_SIM_VIEWER_DIR serves the viewer from that folder") {
  const auto dir = scratch_dir("exe_viewer_dir");
  const auto viewer = dir / "viewer";
  std::filesystem::create_directories(viewer);
  { std::ofstream(viewer / "index.html") << "<!doctype html><title>a scratch viewer</title>\n"; }
  process p({"serve", "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0", "--emotes",
             data("emotes").string()},
            dir, {"EMOTE_SIM_VIEWER_DIR=" + viewer.string()});
  const std::string all = http_get(logged_http_address(p), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK_MESSAGE(all.starts_with("HTTP/1.1 200 OK"), all);
  CHECK(all.find("<title>a scratch viewer</title>") != std::string::npos);
  p.signal(SIGTERM);
  CHECK(p.wait(20s) == 0);
}

TEST_CASE("[engine] exe: health answers 0 for a serving TCP or Unix-socket listener, 1 otherwise") {
  const auto dir = scratch_dir("exe_health");
  std::string out;
  std::string err;
  // Nothing listens there: 1 with the reason.
  CHECK(process::run({"health", "--listen", "unix:" + (dir / "none.sock").string()}, dir, nullptr,
                     &err) == 1);
  CHECK(err.find("emote-sim health: unix:") != std::string::npos);
  {
    served s(dir, {"--auth-observer-token", "secret"});
    // The configuration names the listener, as it does for serve (here through the options).
    for (const auto& where : {s.sock.text(), s.tcp.text()}) {
      CAPTURE(where);
      CHECK(process::run({"health", "--listen", where, "--auth-observer-token", "secret"}, dir,
                         &out, &err) == 0);
      CHECK(out.find("healthy: " + where + " answers: {\"op\":\"welcome\"") != std::string::npos);
      // A wrong token is not a welcome.
      CHECK(process::run({"health", "--listen", where, "--auth-observer-token", "wrong"}, dir,
                         nullptr, &err) == 1);
      CHECK(err.find("no welcome") != std::string::npos);
    }
    // EMOTE_SIM_LISTEN, as the container image sets it.
    CHECK(process::run(
              {"health"}, dir, &out, &err,
              {"EMOTE_SIM_LISTEN=" + s.tcp.text(), "EMOTE_SIM_AUTH_OBSERVER_TOKEN=secret"}) == 0);
    CHECK(s.stop() == 0);
  }
}

// The attack of a liveness probe run in a loop with a stale observer token: the controller still
// gets in at once, and a probe of a server whose observer slots are full says healthy.
TEST_CASE("[engine] exe: a stale-token health loop locks nobody out; full observer slots are "
          "healthy") {
  const auto dir = scratch_dir("exe_health_stale");
  std::string out;
  std::string err;
  served s(dir, {"--auth-observer-token", "secret", "--auth-controller-token", "c-secret",
                 "--limits-max-connections", "6", "--limits-reserved-controller-connections", "4"});
  for (const auto& where : {s.sock.text(), s.tcp.text()}) {
    CAPTURE(where);
    for (int i = 0; i < 7; ++i) {
      CHECK(process::run({"health", "--listen", where, "--auth-observer-token", "stale"}, dir,
                         nullptr, &err) == 1);
    }
    const auto where_address = *parse_listen_address(where);
    auto controller = hello(where_address, R"(,"token":"c-secret")");
    CHECK(process::run({"health", "--listen", where, "--auth-observer-token", "secret"}, dir, &out,
                       &err) == 0);
  }
  // Two observers take both observer slots; the probe is still healthy. (The probes' own
  // observer connections leave at the next tick boundary after their bye: wait for it.)
  std::this_thread::sleep_for(500ms);
  auto o1 = hello(s.tcp, R"(,"role":"observer","token":"secret")");
  auto o2 = hello(s.tcp, R"(,"role":"observer","token":"secret")");
  CHECK(process::run({"health", "--listen", s.tcp.text(), "--auth-observer-token", "secret"}, dir,
                     &out, &err) == 0);
  CHECK_MESSAGE(out.find("its connections are full") != std::string::npos, out);
  CHECK(s.stop() == 0);
}

namespace {

// The compiler part of the build id as CMake names it (cmake/build_id.cmake).
std::string compiler_id() {
#if defined(__clang__)
  return "Clang-" + std::to_string(__clang_major__) + "." + std::to_string(__clang_minor__) + "." +
         std::to_string(__clang_patchlevel__);
#elif defined(__GNUC__)
  return "GNU-" + std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) + "." +
         std::to_string(__GNUC_PATCHLEVEL__);
#else
  return "";
#endif
}

} // namespace

TEST_CASE("[engine] exe: the build id is in --version, the welcome line and the recording header; "
          "replay names another build in its verdict") {
  const auto dir = scratch_dir("exe_build");
  std::string out;
  std::string err;
  REQUIRE(process::run({"--version"}, dir, &out) == 0);
  std::smatch m;
  REQUIRE_MESSAGE(std::regex_match(out, m, std::regex(R"(emote-sim [0-9.]+ \(build (.+)\)\n)")),
                  out);
  const std::string build = m[1].str();
  // `git describe` (a commit, maybe "-dirty") or "unknown", then the compiler that built us.
  CHECK_MESSAGE(std::regex_match(build, std::regex(R"((unknown|\S+) \S+-\S+)")), build);
  CHECK_MESSAGE(build.ends_with(" " + compiler_id()), build);

  const auto rec = dir / "r.ndjson";
  {
    served s(dir, {"--clock", "manual", "--record", rec.string()});
    auto c = line_client::connect(s.tcp, 5s);
    REQUIRE(c.ok());
    c->send_line(R"({"op":"hello","protocol":1,"client":"exe-test"})");
    const auto w = c->read_line(5s);
    REQUIRE(w.has_value());
    CHECK_MESSAGE(w->find(R"("build":")" + build + "\"") != std::string::npos, *w);
    c->send_line(R"({"op":"player.join","player":"alice","position":[0.5,64,0.5]})");
    step(*c, 3, "s");
    CHECK(s.stop() == 0);
  }
  std::string text = read_file(rec);
  const std::string field = R"("build":")" + build + "\"";
  const auto at = text.find(field);
  REQUIRE_MESSAGE(at != std::string::npos, text);
  CHECK(at < text.find('\n')); // in the header
  // So is each content file's digest (protocol.md §8), in discovery order.
  CHECK_MESSAGE(text.find(R"("content_files":{"t.big.json":")") < text.find('\n'), text);
  CHECK(process::run({"replay", rec.string()}, dir, &out, &err) == 0);
  CHECK_MESSAGE(std::regex_match(out, std::regex(R"(replay: \d+ ticks, identical\n)")), out);
  CHECK(err.find("build") == std::string::npos);

  // Made by another build: a warning, and the verdict says so.
  text.replace(at, field.size(), R"("build":"0000000 GNU-1.0.0")");
  std::ofstream(dir / "other.ndjson", std::ios::binary) << text;
  CHECK(process::run({"replay", (dir / "other.ndjson").string()}, dir, &out, &err) == 0);
  CHECK_MESSAGE(std::regex_match(out, std::regex(R"(replay: \d+ ticks, identical \(recorded by )"
                                                 R"(another build: 0000000 GNU-1\.0\.0\)\n)")),
                out);
  CHECK_MESSAGE(err.find("warning: recorded by build 0000000 GNU-1.0.0, replayed by build " +
                         build) != std::string::npos,
                err);
  // A recording from before build ids: "(not recorded)".
  const std::string other = R"("build":"0000000 GNU-1.0.0",)";
  text.replace(text.find(other), other.size(), "");
  std::ofstream(dir / "old.ndjson", std::ios::binary) << text;
  CHECK(process::run({"replay", (dir / "old.ndjson").string()}, dir, &out, &err) == 0);
  CHECK_MESSAGE(out.find("(recorded by another build: (not recorded))") != std::string::npos, out);

  // A damaged line (protocol.md §8): named as FILE:LINE:COLUMN, the part before it replayed.
  std::string damaged = read_file(rec);
  const auto line3 = damaged.find('\n', damaged.find('\n') + 1) + 1;
  damaged[line3] = 'x';
  const auto bad = dir / "damaged.ndjson";
  std::ofstream(bad, std::ios::binary) << damaged;
  CHECK(process::run({"replay", bad.string()}, dir, &out, &err) == 1);
  CHECK_MESSAGE(err.find(bad.string() + ":3:1: invalid JSON") != std::string::npos, err);
  CHECK_MESSAGE(std::regex_search(out, std::regex(R"(^replay: \d+ ticks, identical; the recording )"
                                                  R"(is damaged at .*damaged\.ndjson:3:1: )")),
                out);
  CHECK(process::run({"record-to-scenario", bad.string()}, dir, &out, &err) == 2);
  CHECK(err.find(":3:1: ") != std::string::npos);
}

TEST_CASE("[engine] exe: replay says a recording ended early (a write error, or no end at all) "
          "and exits 3") {
  const auto dir = scratch_dir("exe_ended_early");
  const auto rec = dir / "r.ndjson";
  {
    served s(dir, {"--clock", "manual", "--record", rec.string()});
    auto c = line_client::connect(s.tcp, 5s);
    REQUIRE(c.ok());
    c->send_line(R"({"op":"hello","protocol":1,"client":"exe-test"})");
    REQUIRE(c->read_line(5s).has_value());
    c->send_line(R"({"op":"player.join","player":"alice","position":[0.5,64,0.5]})");
    c->send_line(R"({"op":"emote.play","player":"alice","emote":"t:wave"})");
    step(*c, 6, "s");
    CHECK(s.stop() == 0);
  }
  const std::string whole = read_file(rec);
  std::string out;
  std::string err;
  CHECK(process::run({"replay", rec.string()}, dir, &out, &err) ==
        0); // ends with the server's stop

  // The lines from tick 3 on, as a write error at tick 3 leaves the file (recorder_test).
  std::string kept;
  std::istringstream lines(whole);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with(R"({"tick":3,)")) {
      break;
    }
    kept += line + "\n";
  }
  const auto early = dir / "early.ndjson";
  std::ofstream(early, std::ios::binary)
      << kept << R"({"tick":3,"ended_early":{"reason":"No space left on device"}})"
      << "\n";
  CHECK(process::run({"replay", early.string()}, dir, &out, &err) == 3);
  CHECK_MESSAGE(
      std::regex_match(out, std::regex(R"(replay: 3 ticks, identical; the recording ended )"
                                       R"(early: nothing was recorded from tick 3 on )"
                                       R"(\(No space left on device\)\n)")),
      out);
  CHECK_MESSAGE(err.find("note: the recording ended early") != std::string::npos, err);

  // Killed: no end record at all.
  const auto killed = dir / "killed.ndjson";
  std::ofstream(killed, std::ios::binary) << kept;
  CHECK(process::run({"replay", killed.string()}, dir, &out, &err) == 3);
  CHECK_MESSAGE(out.find("identical; the recording has no end: the server did not stop normally") !=
                    std::string::npos,
                out);
}

// gate.md §1, §8: a gate holds at most limits.gate_max_connections pairs; a client accepted while
// it is full is closed at once (nothing read or forwarded), counted and logged.
TEST_CASE("[engine] exe: a full gate closes one more client at once and counts it") {
  const auto dir = scratch_dir("exe_gate_full");
  boost::asio::io_context io;
  // The backend: connections complete in its backlog; it never speaks.
  boost::asio::ip::tcp::acceptor backend(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
  const std::string backend_port = std::to_string(backend.local_endpoint().port());
  served s(dir, {"--gate", "lobby=127.0.0.1:0=127.0.0.1:" + backend_port,
                 "--limits-gate-max-connections", "2", "--metrics", "127.0.0.1:0"});
  std::smatch m;
  const std::string log = s.p->err();
  REQUIRE(std::regex_search(log, m, std::regex(R"(gate lobby on 127\.0\.0\.1:(\d+))")));
  const boost::asio::ip::tcp::endpoint gate{boost::asio::ip::make_address("127.0.0.1"),
                                            static_cast<unsigned short>(std::stoi(m[1].str()))};
  std::smatch mm;
  REQUIRE(
      std::regex_search(log, mm, std::regex(R"(metrics at http://(127\.0\.0\.1:\d+)/metrics)")));
  const auto metrics_at = *parse_listen_address(mm[1].str());
  const auto metric = [&](const std::string& name) {
    const std::string body = http_get(metrics_at, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
    std::smatch v;
    REQUIRE_MESSAGE(std::regex_search(body, v, std::regex(name + R"(\{gate="lobby"\} (\d+))")),
                    body);
    return std::stoll(v[1].str());
  };
  CHECK(metric("emote_sim_gate_refused_full_total") == 0);

  std::vector<boost::asio::ip::tcp::socket> held;
  for (int i = 0; i < 2; ++i) {
    held.emplace_back(io).connect(gate);
  }
  for (int i = 0; i < 100 && metric("emote_sim_gate_connections") < 2; ++i) {
    std::this_thread::sleep_for(20ms);
  }
  CHECK(metric("emote_sim_gate_connections") == 2);
  // The third is closed at once: its read ends (EOF or reset), not a wait.
  boost::asio::ip::tcp::socket third(io);
  third.connect(gate);
  pollfd readable{third.native_handle(), POLLIN, 0};
  REQUIRE_MESSAGE(::poll(&readable, 1, 3000) == 1, "the third client was not closed within 3 s");
  std::array<char, 16> buf{};
  boost::system::error_code ec;
  CHECK(third.read_some(boost::asio::buffer(buf), ec) == 0);
  CHECK(ec); // eof or connection reset
  CHECK(metric("emote_sim_gate_refused_full_total") == 1);
  CHECK(metric("emote_sim_gate_connections") == 2);
  CHECK(s.p->wait_for_log(
      "gate lobby: full (2 connections, limits.gate_max_connections); 1 client closed", 5s));
  // The held clients are still served: closing one makes room for another.
  held[0].close();
  for (int i = 0; i < 100 && metric("emote_sim_gate_connections") > 1; ++i) {
    std::this_thread::sleep_for(20ms);
  }
  boost::asio::ip::tcp::socket fourth(io);
  fourth.connect(gate);
  for (int i = 0; i < 100 && metric("emote_sim_gate_connections") < 2; ++i) {
    std::this_thread::sleep_for(20ms);
  }
  CHECK(metric("emote_sim_gate_connections") == 2);
  CHECK(metric("emote_sim_gate_refused_full_total") == 1);
  CHECK(s.stop() == 0);
}
