// The server core on real sockets (an ephemeral loopback port and a Unix socket), talked to with
// the real blocking client. The simulation behind it is the synthetic test double
// (synthetic_host.hpp), so these tests cover the server's own rules: handshake, roles, tokens,
// error codes and connection reuse, queueing and tick boundaries, fan-out, filters, budgets,
// lossy drops, disconnects, recording and graceful stop. Engine semantics are tested against the
// real Engine in server_engine_test.cpp.
#include "server/daemon/hub.hpp"
#include "server/host/build_info.hpp"

#include "engine/json/wire_reader.hpp"
#include "protocol/recording.hpp"
#include "server/qa/line_client.hpp"
#include "synthetic_host.hpp"

#include <doctest/doctest.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <future>
#include <netinet/in.h>
#include <numeric>
#include <sstream>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <tuple>
#include <unistd.h>

using namespace emote::server;
using namespace emote::protocol;
using namespace emote::settings;
using emote::server::testing::synthetic_host;
namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

rapidjson::Document parse(const std::string& line) {
  rapidjson::Document d;
  REQUIRE_MESSAGE(!emote::json::parse_wire(line, d), line);
  REQUIRE_MESSAGE(d.IsObject(), line);
  return d;
}

std::string str(const rapidjson::Value& v, const char* key) {
  REQUIRE_MESSAGE(v.HasMember(key), key);
  REQUIRE(v[key].IsString());
  return v[key].GetString();
}

std::string error_code(const std::string& line) {
  auto d = parse(line);
  REQUIRE_MESSAGE(d.HasMember("error"), line);
  return str(d["error"], "code");
}

std::filesystem::path temp_path(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("emote_sim_hub_" + std::to_string(::getpid()) + "_" + name);
}

emote::protocol::recording_header recording_header_for_test(std::int64_t seed) {
  emote::protocol::recording_header header;
  header.server = EMOTE_SIM_VERSION;
  header.seed = seed;
  header.content_digest = std::string(64, '0');
  header.started = iso8601_now();
  return header;
}

struct server_fixture {
  explicit server_fixture(hub_settings s = {}, recorder* rec = nullptr) : settings(std::move(s)) {
    spdlog::set_level(spdlog::level::off);
    server = std::make_unique<hub>(io, settings, host, m, rec);
    unix_addr = *parse_listen_address("unix:" + temp_path("sock").string());
    auto err = server->listen({*parse_listen_address("127.0.0.1:0"), unix_addr});
    REQUIRE_MESSAGE(!err, (err ? *err : ""));
    tcp_addr = server->bound()[0];
    server->start();
    guard.emplace(io.get_executor());
    thread = std::thread([this] { io.run(); });
  }

  ~server_fixture() {
    asio::post(io, [this] {
      server.reset();
      guard.reset();
      io.stop();
    });
    thread.join();
  }

  template <class F>
  auto run_on(F f) {
    std::packaged_task<decltype(f())()> task(std::move(f));
    auto fut = task.get_future();
    asio::post(io, [&task] { task(); });
    return fut.get();
  }

  line_client raw(bool unix_socket = false) {
    auto c = line_client::connect(unix_socket ? unix_addr : tcp_addr, 2s);
    REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error()));
    return std::move(c).value();
  }

  /// Connected and welcomed.
  line_client client(const std::string& role = "controller", const std::string& token = "",
                     bool unix_socket = false) {
    auto c = raw(unix_socket);
    std::string hello = R"({"op":"hello","protocol":1,"role":")" + role + R"(","client":"test")";
    if (!token.empty()) {
      hello += R"(,"token":")" + token + "\"";
    }
    hello += "}";
    REQUIRE(c.send_line(hello));
    auto w = c.read_line(2s);
    REQUIRE(w.has_value());
    REQUIRE_MESSAGE(w->starts_with(R"({"op":"welcome")"), *w);
    return c;
  }

  asio::io_context io;
  hub_settings settings;
  synthetic_host host;
  metrics m;
  std::unique_ptr<hub> server;
  listen_address tcp_addr;
  listen_address unix_addr;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> guard;
  std::thread thread;
};

hub_settings manual() {
  hub_settings s;
  s.clock = clock_mode::manual;
  return s;
}

/// Read until a line for which `pred` holds; fails after `limit` lines or a timeout.
std::string read_until(line_client& c, const std::function<bool(const std::string&)>& pred,
                       int limit = 10000) {
  for (int i = 0; i < limit; ++i) {
    auto line = c.read_line(30s);
    REQUIRE_MESSAGE(line.has_value(), "no more lines");
    if (pred(*line)) {
      return *line;
    }
  }
  FAIL("line not found");
  return {};
}

std::string reply_to(line_client& c, const std::string& id) {
  return read_until(
      c, [&](const std::string& l) { return l.starts_with(R"({"op":"reply","id":)" + id + ","); });
}

} // namespace

TEST_CASE("hub: hello and welcome over TCP and a Unix socket") {
  server_fixture f(manual());
  for (const bool unix_socket : {false, true}) {
    auto c = f.raw(unix_socket);
    REQUIRE(c.send_line(R"({"op":"hello","protocol":1,"role":"observer","client":"t/1"})"));
    const auto w = parse(*c.read_line(2s));
    CHECK(str(w, "op") == "welcome");
    CHECK(w["protocol"].GetInt() == 1);
    CHECK(str(w, "server") == std::string("emote-sim/") + EMOTE_SIM_VERSION);
    CHECK(str(w, "build") == emote::server::build_id());
    CHECK_FALSE(str(w, "build").empty());
    CHECK(w["tick"].GetInt64() == 0);
    CHECK(w["tps"].GetInt() == 20);
    CHECK(str(w, "clock") == "manual");
    CHECK(str(w, "role") == "observer");
    CHECK(w["emotes"].GetInt64() == 1);
  }
  // role defaults to controller
  auto c = f.raw();
  REQUIRE(c.send_line(R"({"op":"hello","protocol":1})"));
  const auto w = parse(*c.read_line(2s));
  CHECK(str(w, "role") == "controller");
}

TEST_CASE("hub: a realtime server says so and counts ticks") {
  server_fixture f;
  auto c = f.client();
  REQUIRE(c.send_line(R"({"op":"ping","id":1})"));
  const auto r = parse(reply_to(c, "1"));
  CHECK(r["ok"].GetBool());
  std::this_thread::sleep_for(300ms);
  const auto ticks = f.run_on([&] { return f.m.ticks_total; });
  CHECK(ticks >= 4);
  CHECK(ticks <= 10);
}

TEST_CASE("hub: the handshake refuses and closes") {
  hub_settings s = manual();
  s.auth.controller_token = "c-secret";
  s.auth.observer_token = "o-secret";
  server_fixture f(s);
  auto refused = [&](const std::string& hello, const std::string& code) {
    auto c = f.raw();
    REQUIRE(c.send_line(hello));
    auto line = c.read_line(2s);
    REQUIRE(line.has_value());
    CHECK_MESSAGE(error_code(*line) == code, *line);
    CHECK_FALSE(c.read_line(2s).has_value());
    CHECK(c.eof());
    return *line;
  };
  SUBCASE("unsupported_protocol lists the supported versions") {
    const auto line =
        refused(R"({"op":"hello","protocol":2,"token":"c-secret"})", "unsupported_protocol");
    CHECK(line.find(R"("supported":[1])") != std::string::npos);
  }
  SUBCASE("unauthorized: wrong, missing, or the other role's token") {
    refused(R"({"op":"hello","protocol":1,"token":"nope"})", "unauthorized");
    refused(R"({"op":"hello","protocol":1})", "unauthorized");
    refused(R"({"op":"hello","protocol":1,"token":"o-secret"})", "unauthorized");
    refused(R"({"op":"hello","protocol":1,"role":"observer","token":"c-secret"})", "unauthorized");
    auto ok = f.client("controller", "c-secret");
    auto obs = f.client("observer", "o-secret");
    CHECK(f.run_on([&] { return f.m.errors(emote::api::error_code::unauthorized); }) == 4);
  }
  SUBCASE("the first line must be a hello") {
    refused(R"({"op":"ping","id":1})", "bad_request");
    refused(R"({"op":"hello",)", "bad_json");
  }
}

TEST_CASE("hub: a connection that never says hello is closed") {
  hub_settings s = manual();
  s.hello_timeout = 150ms;
  server_fixture f(s);
  auto c = f.raw();
  CHECK(c.read_line(2s) == R"({"op":"bye","reason":"hello_timeout"})");
  CHECK_FALSE(c.read_line(2s).has_value());
  CHECK(c.eof());
}

TEST_CASE("hub: every error code the server owns, and the connection stays usable after each") {
  hub_settings s;
  s.limits.max_line_bytes = 256;
  server_fixture f(s); // realtime, for clock_not_manual
  auto c = f.client();
  auto obs = f.client("observer");
  int id = 100;
  auto still_usable = [&](line_client& cl) {
    const auto ping_id = std::to_string(++id);
    REQUIRE(cl.send_line(R"({"op":"ping","id":)" + ping_id + "}"));
    const auto r = parse(reply_to(cl, ping_id));
    CHECK(r["ok"].GetBool());
  };
  SUBCASE("bad_json, with the parser's offset") {
    REQUIRE(c.send_line(R"({"op":"ping",,})"));
    const auto line = *c.read_line(2s);
    CHECK(error_code(line) == "bad_json");
    CHECK(line.find("offset") != std::string::npos);
    CHECK(line.find(R"("id")") == std::string::npos);
    REQUIRE(c.send_line(R"([1,2])"));
    CHECK(error_code(*c.read_line(2s)) == "bad_json");
    still_usable(c);
  }
  SUBCASE("line_too_long") {
    REQUIRE(c.send_line(R"({"op":"ping","id":"x","pad":")" + std::string(400, 'p') + "\"}"));
    CHECK(error_code(*c.read_line(2s)) == "line_too_long");
    still_usable(c);
  }
  SUBCASE("unknown_op keeps the id") {
    REQUIRE(c.send_line(R"({"op":"dance","id":"u1"})"));
    const auto r = parse(*c.read_line(2s));
    CHECK(str(r, "id") == "u1");
    CHECK(str(r["error"], "code") == "unknown_op");
    still_usable(c);
  }
  SUBCASE("bad_request names the path") {
    REQUIRE(c.send_line(R"({"op":"player.join","id":7,"player":"a","position":[0,"x",0]})"));
    const auto r = parse(*c.read_line(2s));
    CHECK(r["id"].GetInt() == 7);
    CHECK(str(r["error"], "code") == "bad_request");
    CHECK(str(r["error"], "path").starts_with("$.position"));
    still_usable(c);
  }
  SUBCASE("forbidden for an observer sending a controller op") {
    REQUIRE(obs.send_line(R"({"op":"player.join","id":1,"player":"a","position":[0,64,0]})"));
    CHECK(error_code(*obs.read_line(2s)) == "forbidden");
    // read-only ops are fine for observers
    REQUIRE(obs.send_line(R"({"op":"emote.list","id":2})"));
    CHECK(parse(reply_to(obs, "2"))["ok"].GetBool());
    REQUIRE(obs.send_line(R"({"op":"state.get","id":3})"));
    CHECK(parse(reply_to(obs, "3"))["ok"].GetBool());
    still_usable(obs);
  }
  SUBCASE("clock_not_manual on a realtime clock") {
    REQUIRE(c.send_line(R"({"op":"clock.step","id":1,"ticks":5})"));
    CHECK(error_code(*c.read_line(2s)) == "clock_not_manual");
    still_usable(c);
  }
  SUBCASE("hello twice is a bad_request") {
    REQUIRE(c.send_line(R"({"op":"hello","protocol":1,"id":9})"));
    CHECK(error_code(*c.read_line(2s)) == "bad_request");
    still_usable(c);
  }
  SUBCASE("engine refusals are passed through with their id") {
    REQUIRE(c.send_line(R"({"op":"emote.play","id":"p","player":"ghost","emote":"test:wave"})"));
    CHECK(error_code(reply_to(c, R"("p")")) == "unknown_player");
    still_usable(c);
  }
  SUBCASE("a request without an id is answered only when it fails") {
    REQUIRE(c.send_line(R"({"op":"ping"})"));
    REQUIRE(c.send_line(R"({"op":"emote.stop","player":"ghost"})"));
    const auto r = parse(*c.read_line(2s));
    CHECK_FALSE(r.HasMember("id"));
    CHECK(str(r["error"], "code") == "not_playing");
    still_usable(c);
  }
  const auto errors = f.run_on([&] { return f.m.errors_total; });
  CHECK(std::accumulate(errors.begin(), errors.end(), std::uint64_t{0}) > 0);
}

TEST_CASE("hub: every op is routed and answered") {
  server_fixture f(manual());
  auto c = f.client();
  auto ok = [&](const std::string& request, const std::string& id) {
    REQUIRE(c.send_line(request));
    const auto line = reply_to(c, id);
    auto r = parse(line);
    CHECK_MESSAGE(r["ok"].GetBool(), line);
    CHECK(r.HasMember("tick"));
    return line;
  };
  ok(R"({"op":"ping","id":1})", "1");
  ok(R"({"op":"subscribe","id":2,"events":["playback."],"matrix":true})", "2");
  ok(R"({"op":"player.join","id":3,"player":"alice","position":[0,64,0],"yaw":90})", "3");
  ok(R"({"op":"player.update","id":4,"player":"alice","sneaking":true})", "4");
  ok(R"({"op":"player.event","id":5,"player":"alice","event":"jump"})", "5");
  const auto play = ok(R"({"op":"emote.play","id":6,"player":"alice","emote":"test:wave"})", "6");
  CHECK(play.find(R"("session":1)") != std::string::npos);
  CHECK(play.find(R"("role":"solo")") != std::string::npos);
  ok(R"({"op":"emote.stop","id":7,"player":"alice"})", "7");
  CHECK(ok(R"({"op":"emote.stop_all","id":8})", "8").find(R"("stopped":0)") != std::string::npos);
  CHECK(ok(R"({"op":"emote.list","id":9})", "9").find(R"("id":"test:wave")") != std::string::npos);
  ok(R"({"op":"emote.info","id":10,"emote":"test:wave"})", "10");
  CHECK(ok(R"({"op":"emote.reload","id":11})", "11").find(R"("loaded":1)") != std::string::npos);
  ok(R"({"op":"world.blocks","id":12,"set":[{"at":[0,63,0],"block":"solid"}]})", "12");
  ok(R"({"op":"world.clear","id":13})", "13");
  ok(R"({"op":"cooldown.clear","id":14})", "14");
  const auto st = ok(R"({"op":"state.get","id":15})", "15");
  CHECK(st.find(R"("players":[)") != std::string::npos);
  const auto step = ok(R"({"op":"clock.step","id":16,"ticks":3})", "16");
  CHECK(parse(step)["tick"].GetInt64() == 3);
  ok(R"({"op":"player.leave","id":17,"player":"alice"})", "17");
  REQUIRE(c.send_line(R"({"op":"emote.register","id":18,"document":{"type":"animation"}})"));
  CHECK(error_code(reply_to(c, "18")) == "bad_request");
  REQUIRE(c.send_line(R"({"op":"emote.info","id":19,"emote":"test:nope"})"));
  CHECK(error_code(reply_to(c, "19")) == "unknown_emote");
  REQUIRE(c.send_line(R"({"op":"bye"})"));
  CHECK(read_until(c, [](const std::string& l) { return l.starts_with(R"({"op":"bye")"); }) ==
        R"({"op":"bye"})");
  CHECK_FALSE(c.read_line(2s).has_value());
  CHECK(c.eof());
  CHECK(f.run_on([&] { return f.host.reloads; }) == 1);
}

TEST_CASE("hub: replies for tick N come before the frame of tick N; clock.step replies after") {
  server_fixture f(manual());
  auto c = f.client();
  REQUIRE(c.send_line(R"({"op":"subscribe"})"));
  REQUIRE(c.send_line(R"({"op":"player.join","id":"j","player":"a","position":[0,64,0]})"));
  REQUIRE(c.send_line(R"({"op":"emote.play","id":"p","player":"a","emote":"test:wave"})"));
  REQUIRE(c.send_line(R"({"op":"clock.step","id":"s","ticks":2})"));
  REQUIRE(c.send_line(R"({"op":"ping","id":"after"})"));
  std::vector<std::string> kinds;
  for (int i = 0; i < 6; ++i) {
    const auto d = parse(*c.read_line(2s));
    const auto op = str(d, "op");
    const auto tick = d["tick"].GetInt64();
    kinds.push_back(op + (d.HasMember("id") ? ":" + str(d, "id") : "") + "@" +
                    std::to_string(tick));
  }
  CHECK(kinds == std::vector<std::string>{"reply:j@0", "reply:p@0", "frame@0", "frame@1",
                                          "reply:s@2", "reply:after@2"});
}

TEST_CASE("hub: frames are encoded once per filter and shared; filters select events") {
  server_fixture f(manual());
  auto c = f.client();
  auto all1 = f.client("observer");
  auto all2 = f.client("observer", "", true);
  auto life = f.client("observer");
  auto nether = f.client("observer");
  auto empty = f.client("observer");
  REQUIRE(all1.send_line(R"({"op":"subscribe","id":1,"matrix":true})"));
  REQUIRE(all2.send_line(R"({"op":"subscribe","id":1,"matrix":true})"));
  REQUIRE(life.send_line(R"({"op":"subscribe","id":1,"events":["playback."]})"));
  REQUIRE(nether.send_line(R"({"op":"subscribe","id":1,"dimensions":["minecraft:the_nether"]})"));
  REQUIRE(
      empty.send_line(R"({"op":"subscribe","id":1,"events":["partner."],"empty_frames":true})"));
  for (auto* o : {&all1, &all2, &life, &nether, &empty}) {
    CHECK(parse(*o->read_line(2s))["ok"].GetBool());
  }
  REQUIRE(c.send_line(R"({"op":"player.join","player":"a","position":[0,64,0]})"));
  REQUIRE(c.send_line(R"({"op":"emote.play","player":"a","emote":"test:wave"})"));
  REQUIRE(c.send_line(R"({"op":"clock.step","id":"s","ticks":1})"));
  reply_to(c, R"("s")");
  const auto a = *all1.read_line(2s);
  const auto b = *all2.read_line(2s);
  CHECK(a == b);
  CHECK(a.find(R"("type":"display.spawn")") != std::string::npos);
  CHECK(a.find(R"("matrix":[)") != std::string::npos);
  const auto l = *life.read_line(2s);
  CHECK(l.find(R"("type":"playback.started")") != std::string::npos);
  CHECK(l.find("display.") == std::string::npos);
  // The player is in the overworld: only dimension-less records reach the nether subscriber.
  const auto n = *nether.read_line(2s);
  CHECK(n.find(R"("type":"playback.started")") != std::string::npos);
  CHECK(n.find("display.spawn") == std::string::npos);
  CHECK(parse(*empty.read_line(2s))["events"].Size() == 0);
  // An empty tick: only the empty_frames subscriber hears about it.
  REQUIRE(c.send_line(R"({"op":"emote.stop","player":"a"})"));
  REQUIRE(c.send_line(R"({"op":"clock.step","id":"t","ticks":2})"));
  reply_to(c, R"("t")");
  CHECK(parse(*empty.read_line(2s))["tick"].GetInt64() == 1);
  CHECK(parse(*empty.read_line(2s))["tick"].GetInt64() == 2);
  CHECK(parse(*life.read_line(2s))["tick"].GetInt64() == 1); // playback.stopped
  CHECK_FALSE(life.read_line(200ms).has_value());
}

TEST_CASE("hub: a players filter passes only those players' events and their sessions'") {
  server_fixture f(manual());
  auto c = f.client();
  auto mine = f.client("observer");
  REQUIRE(mine.send_line(R"({"op":"subscribe","id":1,"players":["b"]})"));
  CHECK(parse(*mine.read_line(2s))["ok"].GetBool());
  for (const char* p : {"a", "b"}) {
    REQUIRE(c.send_line(std::string(R"({"op":"player.join","player":")") + p +
                        R"(","position":[0,64,0]})"));
    REQUIRE(c.send_line(std::string(R"({"op":"emote.play","player":")") + p +
                        R"(","emote":"test:wave"})"));
  }
  REQUIRE(c.send_line(R"({"op":"clock.step","id":"s","ticks":1})"));
  reply_to(c, R"("s")");
  const auto d = parse(*mine.read_line(2s));
  std::vector<std::string> seen;
  for (const auto& e : d["events"].GetArray()) {
    seen.push_back(str(e, "type") + (e.HasMember("player") ? ":" + str(e, "player") : "") +
                   (e.HasMember("session") ? "#" + std::to_string(e["session"].GetInt64()) : ""));
  }
  CAPTURE(seen);
  REQUIRE_FALSE(seen.empty());
  for (const auto& s : seen) {
    CHECK(s.find(":a") == std::string::npos);
    CHECK(s.find("#1") == std::string::npos); // a's session
  }
  CHECK(std::find(seen.begin(), seen.end(), "playback.started:b#2") != seen.end());
  CHECK(std::find(seen.begin(), seen.end(), "display.spawn#2") != seen.end());
  std::vector<std::int64_t> handles; // b's displays
  for (const auto& e : d["events"].GetArray()) {
    if (str(e, "type") == "display.spawn") {
      handles.push_back(e["handle"].GetInt64());
    }
  }
  // a's stop is not b's business; b's displays' updates are.
  REQUIRE(c.send_line(R"({"op":"emote.stop","player":"a"})"));
  REQUIRE(c.send_line(R"({"op":"clock.step","id":"t","ticks":1})"));
  reply_to(c, R"("t")");
  const auto next = parse(*mine.read_line(2s));
  REQUIRE(next["events"].Size() == handles.size());
  for (const auto& e : next["events"].GetArray()) {
    CHECK(str(e, "type") == "display.update");
    CHECK(std::find(handles.begin(), handles.end(), e["handle"].GetInt64()) != handles.end());
  }
}

TEST_CASE("hub: an observer that never reads is disconnected; memory stays bounded; others keep "
          "every frame") {
  hub_settings s = manual();
  s.limits.max_outbound_bytes = 256 * 1024;
  server_fixture f(s);
  f.run_on([&] {
    f.host.wave_displays = 100;
    f.host.wave_ticks = 1000000;
    return 0;
  });
  auto c = f.client();
  auto reader = f.client("observer");
  auto sleeper = f.client("observer");
  sleeper.set_receive_buffer(4096);
  REQUIRE(reader.send_line(R"({"op":"subscribe","id":1})"));
  REQUIRE(sleeper.send_line(R"({"op":"subscribe","id":1})"));
  CHECK(parse(*reader.read_line(2s))["ok"].GetBool());
  CHECK(parse(*sleeper.read_line(2s))["ok"].GetBool());
  REQUIRE(c.send_line(R"({"op":"player.join","player":"a","position":[0,64,0]})"));
  REQUIRE(c.send_line(R"({"op":"emote.play","player":"a","emote":"test:wave"})"));
  // 300 frames of ~20 KB: far more than the sleeper's budget plus its small socket buffers. The
  // controller steps 10 ticks at a time and waits until the reader has them, so the reader
  // never falls behind its own budget however slow this machine is.
  const int ticks = 300;
  std::atomic<int> frames{0};
  std::atomic<bool> consecutive{true};
  std::thread read_thread([&] {
    long long last_tick = -1;
    while (last_tick < ticks - 1) {
      auto line = reader.read_line(10s);
      if (!line) {
        break;
      }
      long long t = -1;
      std::sscanf(line->c_str(), R"({"op":"frame","tick":%lld)", &t);
      if (t != last_tick + 1) {
        consecutive = false;
      }
      last_tick = t;
      ++frames;
    }
  });
  std::size_t max_queued = 0;
  for (int i = 0; i < ticks; i += 10) {
    REQUIRE(c.send_line(R"({"op":"clock.step","id":"s)" + std::to_string(i) + R"(","ticks":10})"));
    reply_to(c, "\"s" + std::to_string(i) + "\"");
    max_queued = std::max(max_queued, f.run_on([&] { return f.server->queued_outbound_bytes(); }));
    for (int w = 0; w < 1000 && frames.load() < i + 10; ++w) {
      std::this_thread::sleep_for(5ms);
    }
  }
  read_thread.join();
  CHECK(frames == ticks);
  CHECK(consecutive);
  CHECK(f.run_on([&] { return f.m.slow_consumer_disconnects_total; }) == 1);
  // Each connection's queue stays within its budget (plus the final bye line).
  CHECK(max_queued <= 2 * 256 * 1024 + 64);
  // The server let go of the sleeper (after at most the linger time for its bye); the other
  // two connections remain. (Draining the sleeper's socket through its 4 KB window would only
  // measure the kernel; the bye itself is checked in transport_test.cpp.)
  std::size_t open_connections = 3;
  for (int i = 0; i < 400 && open_connections != 2; ++i) {
    std::this_thread::sleep_for(10ms);
    open_connections = f.run_on([&] { return f.server->connection_count(); });
  }
  CHECK(open_connections == 2);
  CHECK(f.run_on([&] { return f.server->queued_outbound_bytes(); }) <= 256 * 1024);
}

TEST_CASE("hub: a lossy subscriber loses whole frames and learns how many") {
  hub_settings s = manual();
  s.limits.max_outbound_bytes = 32 * 1024;
  server_fixture f(s);
  f.run_on([&] {
    f.host.wave_displays = 100;
    f.host.wave_ticks = 1000000;
    return 0;
  });
  auto c = f.client();
  auto lossy = f.client("observer");
  REQUIRE(lossy.send_line(R"({"op":"subscribe","id":1,"lossy":true})"));
  CHECK(parse(*lossy.read_line(2s))["ok"].GetBool());
  REQUIRE(c.send_line(R"({"op":"player.join","player":"a","position":[0,64,0]})"));
  REQUIRE(c.send_line(R"({"op":"emote.play","player":"a","emote":"test:wave"})"));
  // ~40 MB of frames while the subscriber does not read: more than any socket buffers.
  REQUIRE(c.send_line(R"({"op":"clock.step","id":"s","ticks":2000})"));
  reply_to(c, R"("s")");
  // Drain, then one more tick: the first frame after the drops carries the count.
  std::int64_t received = 0;
  std::int64_t dropped = 0;
  std::int64_t expect = 0;
  bool gaps_match = true;
  auto drain = [&] {
    while (auto line = lossy.read_line(1s)) {
      const auto d = parse(*line);
      REQUIRE(str(d, "op") == "frame");
      const std::int64_t n = d.HasMember("dropped") ? d["dropped"].GetInt64() : 0;
      const auto t = d["tick"].GetInt64();
      gaps_match = gaps_match && t == expect + n;
      expect = t + 1;
      dropped += n;
      ++received;
    }
  };
  drain();
  REQUIRE(c.send_line(R"({"op":"clock.step","id":"t","ticks":1})"));
  reply_to(c, R"("t")");
  drain();
  CHECK(gaps_match);
  CHECK(dropped > 0);
  CHECK(received + dropped == 2001);
  CHECK(f.run_on([&] { return f.m.frames_dropped_total; }) == static_cast<std::uint64_t>(dropped));
  CHECK(f.run_on([&] { return f.m.slow_consumer_disconnects_total; }) == 0);
}

TEST_CASE("hub: inbound backpressure during a long clock.step never drops input") {
  hub_settings s = manual();
  s.limits.max_inbound_messages = 16;
  server_fixture f(s);
  auto stepper = f.client();
  auto flooder = f.client();
  REQUIRE(stepper.send_line(R"({"op":"clock.step","id":"s","ticks":2000})"));
  const int n = 3000;
  std::thread writer([&] {
    for (int i = 0; i < n; ++i) {
      flooder.send_line(R"({"op":"ping","id":)" + std::to_string(i) + "}");
    }
  });
  int got = 0;
  bool in_order = true;
  while (got < n) {
    auto line = flooder.read_line(5s);
    REQUIRE(line.has_value());
    const auto d = parse(*line);
    in_order = in_order && d["id"].GetInt() == got;
    ++got;
  }
  writer.join();
  CHECK(in_order);
  reply_to(stepper, R"("s")");
}

TEST_CASE("hub: a disconnect makes the connection's players leave, unless kept") {
  server_fixture f(manual());
  auto watcher = f.client("observer");
  REQUIRE(watcher.send_line(R"({"op":"subscribe","id":1,"events":["playback."]})"));
  reply_to(watcher, "1");
  {
    auto c = f.client();
    REQUIRE(c.send_line(R"({"op":"player.join","player":"gone","position":[0,64,0]})"));
    REQUIRE(c.send_line(
        R"({"op":"player.join","player":"kept","position":[3,64,0],"keep_on_disconnect":true})"));
    REQUIRE(c.send_line(R"({"op":"emote.play","player":"gone","emote":"test:wave"})"));
    REQUIRE(c.send_line(R"({"op":"emote.play","id":"last","player":"kept","emote":"test:wave"})"));
    reply_to(c, R"("last")");
  } // closed without bye
  for (int i = 0; i < 200 && f.run_on([&] { return f.host.player_count(); }) != 1; ++i) {
    std::this_thread::sleep_for(10ms);
  }
  auto c2 = f.client();
  REQUIRE(c2.send_line(R"({"op":"clock.step","id":"s","ticks":1})"));
  reply_to(c2, R"("s")");
  const auto frame = *watcher.read_line(2s);
  CHECK(frame.find(R"("player":"gone","emote":"test:wave","reason":"DISCONNECTED")") !=
        std::string::npos);
  CHECK(f.run_on([&] { return f.host.player_count(); }) == 1);
}

TEST_CASE("hub: max_connections refuses the next connection") {
  hub_settings s = manual();
  s.limits.max_connections = 2;
  server_fixture f(s);
  auto a = f.client();
  auto b = f.client();
  auto c = f.raw();
  CHECK(c.read_line(2s) == R"({"op":"bye","reason":"max_connections"})");
  CHECK_FALSE(c.read_line(2s).has_value());
  CHECK(f.run_on([&] { return f.m.connections_refused_total; }) == 1);
}

TEST_CASE("hub: a graceful stop sends SERVER_STOPPING records, then bye, then closes") {
  server_fixture f(manual());
  auto c = f.client();
  auto watcher = f.client("observer");
  REQUIRE(watcher.send_line(R"({"op":"subscribe","id":1})"));
  reply_to(watcher, "1");
  REQUIRE(c.send_line(R"({"op":"player.join","player":"a","position":[0,64,0]})"));
  REQUIRE(c.send_line(R"({"op":"emote.play","id":"p","player":"a","emote":"test:wave"})"));
  reply_to(c, R"("p")");
  std::promise<void> done;
  asio::post(f.io, [&] { f.server->stop([&] { done.set_value(); }); });
  const auto last = read_until(
      watcher, [](const std::string& l) { return l.find("SERVER_STOPPING") != std::string::npos; });
  CHECK(
      last.find(
          R"("type":"playback.stopped","session":1,"player":"a","emote":"test:wave","reason":"SERVER_STOPPING")") !=
      std::string::npos);
  CHECK(watcher.read_line(2s) == R"({"op":"bye","reason":"server_stopping"})");
  CHECK_FALSE(watcher.read_line(2s).has_value());
  CHECK(done.get_future().wait_for(5s) == std::future_status::ready);
  // No longer accepting.
  CHECK_FALSE(line_client::connect(f.tcp_addr, 1s).ok());
}

TEST_CASE("hub: a clock.step cut short by the stop is answered shutting_down") {
  server_fixture f(manual());
  f.host.step_delay = std::chrono::microseconds(100); // 72000 steps: at least 7.2 s
  auto c = f.client();
  REQUIRE(c.send_line(R"({"op":"clock.step","id":"long","ticks":72000})"));
  std::this_thread::sleep_for(50ms);
  std::promise<void> done;
  asio::post(f.io, [&] { f.server->stop([&] { done.set_value(); }); });
  const auto r = reply_to(c, R"("long")");
  CHECK(error_code(r) == "shutting_down");
  CHECK(parse(r)["tick"].GetInt64() < 72000);
  CHECK(c.read_line(2s) == R"({"op":"bye","reason":"server_stopping"})");
  CHECK(done.get_future().wait_for(5s) == std::future_status::ready);
}

TEST_CASE("hub: recording captures connects, messages, digests and the stop") {
  const auto file = temp_path("rec.ndjson");
  auto rec = recorder::open(file, recording_header_for_test(3), true);
  REQUIRE(rec.ok());
  {
    server_fixture f(manual(), rec.value().get());
    auto c = f.client();
    REQUIRE(c.send_line(R"({"op":"player.join","player":"a","position":[0,64,0]})"));
    REQUIRE(c.send_line(R"({"op":"emote.play","player":"a","emote":"test:wave"})"));
    REQUIRE(c.send_line(R"({"op":"clock.step","id":"s","ticks":3})"));
    reply_to(c, R"("s")");
    // Crash safety: everything up to the last tick is on disk already.
    std::stringstream ss;
    ss << std::ifstream(file).rdbuf();
    auto partial = emote::protocol::parse_recording(ss.str());
    REQUIRE(partial.ok());
    CHECK(partial->last_tick == 2);
    std::promise<void> done;
    asio::post(f.io, [&] { f.server->stop([&] { done.set_value(); }); });
    CHECK(done.get_future().wait_for(5s) == std::future_status::ready);
  }
  rec.value().reset();
  std::stringstream ss;
  ss << std::ifstream(file).rdbuf();
  auto r = emote::protocol::parse_recording(ss.str());
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error()));
  CHECK(r->header.seed == 3);
  int connects = 0;
  int msgs = 0;
  int frames = 0;
  bool server_stop = false;
  for (const auto& e : r->entries) {
    if (std::holds_alternative<emote::protocol::rec_connect>(e)) {
      ++connects;
    } else if (std::holds_alternative<emote::protocol::rec_msg>(e)) {
      ++msgs;
    } else if (const auto* fr = std::get_if<emote::protocol::rec_frame>(&e)) {
      ++frames;
      CHECK(fr->frame_line.has_value());
    } else if (const auto* d = std::get_if<emote::protocol::rec_disconnect>(&e)) {
      server_stop = server_stop || d->conn == 0;
    }
  }
  CHECK(connects == 1);
  CHECK(msgs == 3);
  CHECK(frames == 4); // ticks 0..2 and the stop's frame
  CHECK(server_stop);
  std::filesystem::remove(file);
}

TEST_CASE("hub: a recording stopped by a write error shows in emote_sim_recording_failed") {
  const auto file = temp_path("rec_failed.ndjson");
  std::filesystem::remove(file);
  auto rec = recorder::open(file, recording_header_for_test(0), false);
  REQUIRE(rec.ok());
  {
    server_fixture f(manual(), rec.value().get());
    const auto failed_metric = [&f] {
      const auto text = f.run_on([&f] { return f.server->render_metrics(); });
      const auto at = text.find("\nemote_sim_recording_failed ");
      return at == std::string::npos ? std::string("absent")
                                     : text.substr(at + 28, text.find('\n', at + 1) - at - 28);
    };
    auto c = f.client();
    REQUIRE(c.send_line(R"({"op":"clock.step","id":"s1","ticks":2})"));
    reply_to(c, R"("s1")");
    CHECK(failed_metric() == "0");
    f.run_on([&] {
      rec.value()->fail_next_write_for_test(ENOSPC, 0);
      return 0;
    });
    REQUIRE(c.send_line(R"({"op":"player.join","player":"a","position":[0,64,0]})")); // recorded
    REQUIRE(c.send_line(R"({"op":"clock.step","id":"s2","ticks":2})"));
    reply_to(c, R"("s2")");
    CHECK(failed_metric() == "1");
  }
  {
    server_fixture f(manual());
    const auto text = f.run_on([&f] { return f.server->render_metrics(); });
    CHECK(text.find("emote_sim_recording_failed") == std::string::npos); // not recording
  }
  rec.value().reset();
  std::filesystem::remove(file);
}

TEST_CASE("hub: metrics reflect the server") {
  server_fixture f(manual());
  auto c = f.client();
  auto o = f.client("observer");
  REQUIRE(c.send_line(R"({"op":"player.join","player":"a","position":[0,64,0]})"));
  REQUIRE(c.send_line(R"({"op":"nope"})"));
  REQUIRE(c.send_line(R"({"op":"clock.step","id":1,"ticks":4})"));
  reply_to(c, "1");
  const auto text = f.run_on([&] { return f.server->render_metrics(); });
  CHECK(text.find("emote_sim_connections{role=\"controller\"} 1\n") != std::string::npos);
  CHECK(text.find("emote_sim_connections{role=\"observer\"} 1\n") != std::string::npos);
  CHECK(text.find("emote_sim_ticks_total 4\n") != std::string::npos);
  CHECK(text.find("emote_sim_tick 4\n") != std::string::npos);
  CHECK(text.find("emote_sim_players 1\n") != std::string::npos);
  CHECK(text.find("emote_sim_errors_total{code=\"unknown_op\"} 1\n") != std::string::npos);
  CHECK(text.find("emote_sim_tick_duration_seconds_count 4\n") != std::string::npos);
  CHECK(text.find("emote_sim_received_bytes_total 0\n") == std::string::npos);
}

TEST_CASE("hub: constant-time token comparison") {
  CHECK(constant_time_equal("abc", "abc"));
  CHECK(constant_time_equal("", ""));
  CHECK_FALSE(constant_time_equal("abc", "abd"));
  CHECK_FALSE(constant_time_equal("abc", "ab"));
  CHECK_FALSE(constant_time_equal("", "a"));
  CHECK_FALSE(constant_time_equal(std::string("a\0b", 3), "a"));
}

// A measurement, not a check of speed: run it by hand with
//   build/dev/tests/test_server -tc="*measure*" --no-skip -s
// It serves a realtime clock for EMOTE_SIM_MEASURE_SECONDS (default 60) with a playing emote and
// a subscriber, then compares ticks done with the elapsed wall time.
TEST_CASE("[measure] realtime clock: ticks done vs elapsed" * doctest::skip(true)) {
  const char* env = std::getenv("EMOTE_SIM_MEASURE_SECONDS");
  const double seconds = env != nullptr ? std::atof(env) : 60.0;
  const auto t0 = std::chrono::steady_clock::now();
  server_fixture f; // realtime; the clock starts here
  f.run_on([&] {
    f.host.wave_ticks = 1000000;
    return 0;
  });
  auto c = f.client();
  auto o = f.client("observer");
  REQUIRE(o.send_line(R"({"op":"subscribe"})"));
  REQUIRE(c.send_line(R"({"op":"player.join","player":"a","position":[0,64,0]})"));
  REQUIRE(c.send_line(R"({"op":"emote.play","id":1,"player":"a","emote":"test:wave"})"));
  std::atomic<bool> run{true};
  std::thread reader([&] {
    while (run) {
      (void)o.read_line(100ms);
    }
  });
  std::this_thread::sleep_until(t0 + std::chrono::duration<double>(seconds));
  const auto [ticks, skipped, behind] = f.run_on(
      [&] { return std::make_tuple(f.m.ticks_total, f.m.ticks_skipped_total, f.m.ticks_behind); });
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  run = false;
  reader.join();
  const double expected = elapsed * 20.0;
  MESSAGE("elapsed " << elapsed << " s, ticks done " << ticks << ", expected " << expected << " ("
                     << (static_cast<double>(ticks) - expected) << " ticks, "
                     << (static_cast<double>(ticks) / elapsed) << " TPS), skipped " << skipped
                     << ", behind at the last tick " << behind);
  CHECK(std::abs(static_cast<double>(ticks) - expected) <= 2.0);
  CHECK(skipped == 0);
}

// protocol.md §2: observers cannot take the last limits.reserved_controller_connections slots.
TEST_CASE("hub: idle observers do not keep the controller out") {
  server_fixture f(manual()); // max_connections 256, 4 reserved for controllers
  std::vector<line_client> observers;
  int welcomed = 0;
  int refused = 0;
  for (int i = 0; i < 256; ++i) {
    auto c = f.raw();
    REQUIRE(c.send_line(R"({"op":"hello","protocol":1,"role":"observer"})"));
    auto line = c.read_line(2s);
    REQUIRE(line.has_value());
    if (line->starts_with(R"({"op":"welcome")")) {
      ++welcomed;
      observers.push_back(std::move(c));
    } else {
      CHECK(*line == R"({"op":"bye","reason":"max_connections"})");
      CHECK_FALSE(c.read_line(2s).has_value());
      ++refused;
    }
  }
  CHECK(welcomed == 252);
  CHECK(refused == 4);
  auto controller = f.client();
  REQUIRE(controller.send_line(R"({"op":"ping","id":1})"));
  CHECK(parse(reply_to(controller, "1"))["ok"].GetBool());
}

// protocol.md §2: the attack of connections opened and never used (re-opened as they close, ~200
// a second, 260 open at a time) took every slot before; now each new connection closes the
// oldest pending one, so the controller gets in on every attempt.
TEST_CASE("hub: pending-connection churn never keeps the controller out") {
  server_fixture f(manual()); // max_connections 256, 4 reserved, 64 pending, 8 per address
  std::atomic<bool> done{false};
  std::atomic<int> opened{0};
  std::thread churn([&] {
    std::deque<line_client> held;
    while (!done) {
      auto c = line_client::connect(f.tcp_addr, 2s);
      if (c.ok()) {
        held.push_back(std::move(c).value());
        ++opened;
      }
      if (held.size() > 260) {
        held.pop_front();
      }
      std::this_thread::sleep_for(5ms);
    }
  });
  while (opened < 300) {
    std::this_thread::sleep_for(10ms);
  }
  int welcomed = 0;
  for (int i = 0; i < 40; ++i) {
    auto c = f.raw();
    REQUIRE(c.send_line(R"({"op":"hello","protocol":1})"));
    const auto line = c.read_line(2s);
    welcomed += line && line->starts_with(R"({"op":"welcome")") ? 1 : 0;
  }
  done = true;
  churn.join();
  CHECK(welcomed == 40);
  CHECK(f.run_on([&] { return f.m.connections_evicted_total; }) > 200);
  CHECK(f.run_on([&] { return f.m.connections_pending; }) <= 64);
}

// protocol.md §2: the pending caps, globally and per address.
TEST_CASE("hub: a new pending connection over a cap closes the oldest pending one") {
  hub_settings s = manual();
  s.limits.max_pending_per_address = 3;
  server_fixture f(s);
  std::vector<line_client> pending;
  for (int i = 0; i < 3; ++i) {
    pending.push_back(f.raw());
  }
  // Wait until the server has them all, then one more from the same address.
  for (int i = 0; i < 100 && f.run_on([&] { return f.m.connections_pending; }) < 3; ++i) {
    std::this_thread::sleep_for(10ms);
  }
  auto fourth = f.raw();
  CHECK_FALSE(pending[0].read_line(2s).has_value()); // closed without a word
  CHECK(pending[0].eof());
  // The others are still there and may say hello.
  for (auto* c : {&pending[1], &pending[2], &fourth}) {
    REQUIRE(c->send_line(R"({"op":"hello","protocol":1})"));
    const auto w = c->read_line(2s);
    REQUIRE(w.has_value());
    CHECK(w->starts_with(R"({"op":"welcome")"));
  }
  CHECK(f.run_on([&] { return f.m.connections_evicted_total; }) == 1);
  CHECK(pending_cap(s.limits) == 64);
  limits_config small;
  small.max_connections = 10;
  CHECK(pending_cap(small) == 6); // never into the controllers' reservation
}

// protocol.md §2: hello, then neither a subscribe nor anything sent for the idle timeout: closed.
TEST_CASE("hub: a connection that says hello and then nothing is closed; subscribers and talkers "
          "stay") {
  hub_settings s = manual();
  s.idle_timeout = 300ms;
  server_fixture f(s);
  auto idle = f.client("observer");
  auto subscriber = f.client("observer");
  REQUIRE(subscriber.send_line(R"({"op":"subscribe","id":1})"));
  reply_to(subscriber, "1");
  auto talker = f.client();
  for (int i = 0; i < 8; ++i) {
    std::this_thread::sleep_for(100ms);
    REQUIRE(talker.send_line(R"({"op":"ping","id":)" + std::to_string(i) + "}"));
    reply_to(talker, std::to_string(i));
  }
  CHECK(idle.read_line(2s) == R"({"op":"bye","reason":"idle_timeout"})");
  CHECK_FALSE(idle.read_line(2s).has_value());
  CHECK(idle.eof());
  REQUIRE(subscriber.send_line(R"({"op":"ping","id":2})"));
  CHECK(parse(reply_to(subscriber, "2"))["ok"].GetBool());
}

// protocol.md §2: failed logins are throttled per address and role; a right token always gets in.
TEST_CASE("hub: after 5 failed logins an address is refused for a while; a right token still gets "
          "in") {
  hub_settings s = manual();
  s.auth.controller_token = "c-secret";
  server_fixture f(s);
  auto hello = [&](const std::string& token) {
    auto c = f.raw();
    REQUIRE(c.send_line(R"({"op":"hello","protocol":1,"token":")" + token + "\"}"));
    auto line = c.read_line(2s);
    REQUIRE(line.has_value());
    return *line;
  };
  for (int i = 0; i < 5; ++i) {
    CHECK(error_code(hello("wrong")) == "unauthorized");
  }
  const auto blocked = hello("wrong");
  CHECK(error_code(blocked) == "unauthorized");
  CHECK_MESSAGE(blocked.find("too many failed logins") != std::string::npos, blocked);
  // The right token is never refused by the throttle, and it resets the count.
  CHECK(hello("c-secret").starts_with(R"({"op":"welcome")"));
  for (int i = 0; i < 4; ++i) {
    CHECK(hello("wrong").find("too many") == std::string::npos);
  }
  CHECK(hello("c-secret").starts_with(R"({"op":"welcome")"));
  CHECK(f.run_on([&] { return f.m.logins_failed_total; }) == 10);
}

// The attack of a health check with a stale observer token run in a loop: the observer role's
// failures never block the controller (same address, same Unix socket).
TEST_CASE("hub: failed observer logins do not lock the controller out") {
  hub_settings s = manual();
  s.auth.controller_token = "c-secret";
  s.auth.observer_token = "o-secret";
  server_fixture f(s);
  for (const bool unix_socket : {false, true}) {
    CAPTURE(unix_socket);
    for (int i = 0; i < 7; ++i) {
      auto c = f.raw(unix_socket);
      REQUIRE(c.send_line(R"({"op":"hello","protocol":1,"role":"observer","token":"stale"})"));
      const auto line = c.read_line(2s);
      REQUIRE(line.has_value());
      CHECK(error_code(*line) == "unauthorized");
    }
    auto controller = f.client("controller", "c-secret", unix_socket);
    REQUIRE(controller.send_line(R"({"op":"ping","id":1})"));
    CHECK(parse(reply_to(controller, "1"))["ok"].GetBool());
    // And a blocked observer address still lets the right observer token in.
    auto observer = f.client("observer", "o-secret", unix_socket);
    REQUIRE(observer.send_line(R"({"op":"ping","id":2})"));
    CHECK(parse(reply_to(observer, "2"))["ok"].GetBool());
  }
}

namespace {

// Counts the lines logged at info level or above while it lives (the fixture turns logging off).
struct log_capture {
  log_capture() : sink(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(100000)) {
    previous = spdlog::default_logger();
    auto logger = std::make_shared<spdlog::logger>("capture", sink);
    logger->set_level(spdlog::level::info);
    spdlog::set_default_logger(logger);
  }
  ~log_capture() { spdlog::set_default_logger(previous); }
  std::size_t lines() const { return sink->last_raw().size(); }
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink;
  std::shared_ptr<spdlog::logger> previous;
};

} // namespace

// protocol.md §2: one log line per address per 10 s for refused connections and failed logins,
// the rest counted.
TEST_CASE("hub: 1,000 failed logins and 200 refused connections log a handful of lines") {
  hub_settings s = manual();
  s.auth.observer_token = "o-secret";
  s.limits.max_connections = 3;
  s.limits.reserved_controller_connections = 1;
  server_fixture f(s);
  log_capture log;
  for (int i = 0; i < 1000; ++i) {
    auto c = f.raw();
    REQUIRE(c.send_line(R"({"op":"hello","protocol":1,"role":"observer","token":"bad"})"));
    REQUIRE(c.read_line(2s).has_value());
  }
  // Observers fill their 2 slots; the next 200 are refused.
  auto o1 = f.client("observer", "o-secret");
  auto o2 = f.client("observer", "o-secret");
  for (int i = 0; i < 200; ++i) {
    auto c = f.raw();
    REQUIRE(c.send_line(R"({"op":"hello","protocol":1,"role":"observer","token":"o-secret"})"));
    CHECK(c.read_line(2s) == R"({"op":"bye","reason":"max_connections"})");
    CHECK_FALSE(c.read_line(2s).has_value());
  }
  const auto refused = f.run_on([&] { return f.m.connections_refused_total; });
  CHECK(refused == 200);
  CHECK(f.run_on([&] { return f.m.logins_failed_total; }) == 1000);
  // Two logins were welcomed (their lines), plus one line per kind per 10 s.
  CHECK_MESSAGE(log.lines() <= 8, log.lines());
  CHECK(f.run_on([&] { return f.m.log_lines_suppressed_total; }) >= 1190);
}

// protocol.md §10: out of file descriptors, the line listener waits before accepting again: it
// neither spins nor dies, and accepts once descriptors are free. Run in a child process whose
// descriptor limit is lowered.
TEST_CASE("listener: out of file descriptors it backs off and accepts again once they free") {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    asio::io_context io;
    int accepted = 0;
    auto l = listener::open(io, *parse_listen_address("127.0.0.1:0"),
                            [&](connection::socket_type, std::string) { ++accepted; });
    if (!l) {
      ::_exit(10);
    }
    const int client = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<std::uint16_t>(l.value()->bound().port));
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(client, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
      ::_exit(11);
    }
    rlimit lim{};
    ::getrlimit(RLIMIT_NOFILE, &lim);
    lim.rlim_cur = 128;
    ::setrlimit(RLIMIT_NOFILE, &lim);
    std::vector<int> held;
    for (int fd; (fd = ::open("/dev/null", O_RDONLY)) >= 0;) {
      held.push_back(fd);
    }
    rusage before{};
    ::getrusage(RUSAGE_SELF, &before);
    io.run_for(1s);
    rusage after{};
    ::getrusage(RUSAGE_SELF, &after);
    const auto cpu_us = [](const rusage& r) {
      return (r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1000000L + r.ru_utime.tv_usec +
             r.ru_stime.tv_usec;
    };
    const long spent = cpu_us(after) - cpu_us(before);
    if (accepted != 0) {
      ::_exit(12);
    }
    if (spent > 300000) { // a retry loop without a pause burns the whole second
      ::_exit(13);
    }
    for (int i = 0; i < 4; ++i) {
      ::close(held.back());
      held.pop_back();
    }
    io.run_for(500ms);
    ::_exit(accepted == 1 ? 0 : 14);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
