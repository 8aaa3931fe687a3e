// Recording → replay, and bot ↔ run, through the real server code paths with the synthetic
// sim_host (synthetic_host.hpp). The same checks against the real Engine and content are in
// server_engine_test.cpp.
#include "server/qa/replay.hpp"

#include "engine_server.hpp"
#include "protocol/recording.hpp"
#include "protocol/runner.hpp"
#include "protocol/scenario.hpp"
#include "server/daemon/hub.hpp"
#include "server/qa/bot.hpp"
#include "server/qa/line_client.hpp"
#include "synthetic_host.hpp"

#include <doctest/doctest.h>
#include <spdlog/spdlog.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>
#include <unistd.h>

using namespace emote::server;
using namespace emote::protocol;
using namespace emote::settings;
using emote::server::testing::step_clock;
using emote::server::testing::synthetic_host;
namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

std::filesystem::path temp_path(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("emote_sim_replay_" + std::to_string(::getpid()) + "_" + name);
}

std::string slurp(const std::filesystem::path& p) {
  std::stringstream ss;
  ss << std::ifstream(p).rdbuf();
  return ss.str();
}

// A manual-clock hub on its own thread, serving a synthetic host.
struct live_server {
  explicit live_server(recorder* rec = nullptr) {
    spdlog::set_level(spdlog::level::off);
    hub_settings s;
    s.clock = clock_mode::manual;
    server = std::make_unique<hub>(io, s, host, m, rec);
    REQUIRE_FALSE(server->listen({*parse_listen_address("127.0.0.1:0")}));
    addr = server->bound()[0];
    guard.emplace(io.get_executor());
    thread = std::thread([this] { io.run(); });
  }
  ~live_server() {
    asio::post(io, [this] {
      server.reset();
      guard.reset();
      io.stop();
    });
    thread.join();
  }
  void stop() {
    std::promise<void> done;
    asio::post(io, [&] { server->stop([&] { done.set_value(); }); });
    REQUIRE(done.get_future().wait_for(5s) == std::future_status::ready);
  }
  line_client client() {
    auto c = line_client::connect(addr, 2s);
    REQUIRE(c.ok());
    c->send_line(R"({"op":"hello","protocol":1,"client":"replay-test"})");
    REQUIRE(c->read_line(2s).has_value());
    return std::move(c).value();
  }

  asio::io_context io;
  synthetic_host host;
  metrics m;
  std::unique_ptr<hub> server;
  listen_address addr;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> guard;
  std::thread thread;
};

// Records a session with two connections, a disconnect and a stop; returns the file's text.
std::string record_session(bool with_frames) {
  const auto file = temp_path(with_frames ? "frames.ndjson" : "digests.ndjson");
  emote::protocol::recording_header h;
  h.server = EMOTE_SIM_VERSION;
  h.content_digest = std::string(64, 'a');
  h.started = iso8601_now();
  auto rec = recorder::open(file, h, with_frames);
  REQUIRE(rec.ok());
  {
    live_server s(rec.value().get());
    auto a = s.client();
    a.send_line(R"({"op":"player.join","player":"alice","position":[0,64,0]})");
    a.send_line(R"({"op":"emote.play","player":"alice","emote":"test:wave"})");
    step_clock(a, 3, "s1");
    {
      auto b = s.client();
      b.send_line(R"({"op":"player.join","player":"bob","position":[5,64,0]})");
      b.send_line(R"({"op":"emote.play","id":"b","player":"bob","emote":"test:wave"})");
      REQUIRE(b.read_line(2s).has_value());
    } // bob's connection closes: bob leaves (DISCONNECTED)
    for (int i = 0; i < 200 && s.host.player_count() != 1; ++i) {
      std::this_thread::sleep_for(5ms);
    }
    step_clock(a, 5, "s2");
    a.send_line(R"({"op":"emote.stop","player":"alice"})");
    a.send_line(R"({"op":"emote.play","player":"alice","emote":"test:wave"})");
    step_clock(a, 2, "s3");
    s.stop();
  }
  rec.value().reset();
  auto text = slurp(file);
  std::filesystem::remove(file);
  return text;
}

/// Parses recording text and replays it on a fresh synthetic host.
replay_result replay_text(const std::string& text) {
  auto r = emote::protocol::parse_recording(text);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error()));
  synthetic_host fresh;
  return replay_recording(*r, fresh);
}

} // namespace

TEST_CASE("replay: a recorded session replays identical; a changed input diverges at its tick") {
  for (const bool with_frames : {false, true}) {
    CAPTURE(with_frames);
    const std::string text = record_session(with_frames);
    {
      const auto result = replay_text(text);
      CHECK_FALSE(result.divergence.has_value());
      CHECK(result.ticks == 11); // ticks 0..10, the last one being the stop's frame
    }
    // Change one recorded input: bob's play (applied at tick 3) names another emote.
    const std::string from =
        R"({"tick":3,"conn":2,"msg":{"op":"emote.play","id":"b","player":"bob","emote":"test:wave"})";
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    std::string changed = text;
    changed.replace(
        at, from.size(),
        R"({"tick":3,"conn":2,"msg":{"op":"emote.play","id":"b","player":"bob","emote":"test:nope"})");
    {
      // With the replies recorded, the refused play's reply is the first difference.
      const auto result = replay_text(changed);
      REQUIRE(result.divergence.has_value());
      CHECK(result.divergence->tick == 3);
      CHECK(result.divergence->reply_conn == std::optional<std::int64_t>(2));
    }
    // Without replies (a recording from before they were recorded) the frames show it.
    std::string no_replies;
    for (std::size_t pos = 0; pos < changed.size();) {
      const std::size_t nl = changed.find('\n', pos);
      const std::string line = changed.substr(pos, nl + 1 - pos);
      if (line.find(R"(,"reply":)") == std::string::npos) {
        no_replies += line;
      }
      pos = nl + 1;
    }
    const auto result = replay_text(no_replies);
    REQUIRE(result.divergence.has_value());
    CHECK(result.divergence->tick == 3);
    CHECK_FALSE(result.divergence->reply_conn.has_value());
    CHECK(result.divergence->recorded_digest != result.divergence->replayed_digest);
    if (with_frames) {
      CHECK(result.divergence->recorded_frame.has_value());
      CHECK(result.divergence->details.find("recorded:") != std::string::npos);
    }
  }
}

TEST_CASE("replay: the server's stop is recorded as a disconnect of connection 0") {
  const std::string text = record_session(false);
  CHECK(text.find(R"({"tick":10,"conn":0,"disconnect":{}})") != std::string::npos);
  // A crash while writing leaves a truncated last line, which is ignored.
  const auto cut = text.substr(0, text.size() - 7);
  auto r = emote::protocol::parse_recording(cut);
  REQUIRE(r.ok());
  CHECK(r->truncated_tail);
}

TEST_CASE("bot: a scenario against a live server gives the same output as run") {
  const std::string scenario_text = R"({
    "scenario": 1, "name": "wave twice", "ticks": 30,
    "script": [
      {"tick": 0, "op": "player.join", "player": "alice", "position": [0, 64, 0]},
      {"tick": 0, "op": "subscribe", "id": "sub"},
      {"tick": 2, "op": "emote.play", "id": "p1", "player": "alice", "emote": "test:wave"},
      {"tick": 9, "op": "emote.stop", "id": "s1", "player": "alice"},
      {"tick": 9, "op": "emote.play", "id": "p2", "player": "alice", "emote": "test:wave"},
      {"tick": 12, "op": "emote.play", "id": "bad", "player": "ghost", "emote": "test:wave"}
    ],
    "expect": [
      {"reply": "p1", "ok": true, "session": 1, "role": "solo"},
      {"reply": "bad", "ok": false, "error": {"code": "unknown_player"}},
      {"event": "playback.stopped", "player": "alice", "reason": "MANUAL", "tick": 9},
      {"count": {"event": "playback.started"}, "equals": 2}
    ]})";
  auto s = emote::protocol::parse_scenario(scenario_text, "wave.json");
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error()));
  const auto run = emote::protocol::run_scenario(
      *s,
      [](const emote::protocol::scenario&)
          -> emote::core::result<std::unique_ptr<emote::protocol::sim_host>, std::string> {
        return std::unique_ptr<emote::protocol::sim_host>(std::make_unique<synthetic_host>());
      });
  CHECK_MESSAGE(run.passed, run.failure);
  live_server live;
  bot_options options;
  options.address = live.addr;
  const auto bot = run_bot(*s, options);
  CHECK_MESSAGE(bot.passed, bot.failure);
  CHECK(bot.base_tick == 0);
  CHECK(bot.output == run.output);
  CHECK(bot.output.find(R"("type":"display.update")") != std::string::npos);

  // A second run against the same server starts later: expectations are relative to it.
  const auto again = run_bot(*s, options);
  CHECK(again.base_tick == 30);
  // Session numbers continue on a live server, so "session": 1 no longer matches.
  CHECK_FALSE(again.passed);
  CHECK(again.failure.find("p1") != std::string::npos);
}

TEST_CASE("bot: refuses a realtime server and reports unmet expectations") {
  auto s = emote::protocol::parse_scenario(
      R"({"scenario":1,"name":"n","ticks":2,"script":[{"tick":0,"op":"ping","id":1}],
          "expect":[{"reply":1,"ok":false}]})",
      "n.json");
  REQUIRE(s.ok());
  {
    live_server manual;
    bot_options o;
    o.address = manual.addr;
    const auto r = run_bot(*s, o);
    CHECK_FALSE(r.passed);
    CHECK(r.failure.find("expect[0]") != std::string::npos);
  }
  spdlog::set_level(spdlog::level::off);
  asio::io_context io;
  synthetic_host host;
  metrics m;
  hub realtime(io, hub_settings{}, host, m, nullptr);
  REQUIRE_FALSE(realtime.listen({*parse_listen_address("127.0.0.1:0")}));
  realtime.start();
  std::thread t([&] { io.run_for(3s); });
  bot_options o;
  o.address = realtime.bound()[0];
  const auto r = run_bot(*s, o);
  CHECK_FALSE(r.passed);
  CHECK(r.failure.find("manual") != std::string::npos);
  t.join();
}

TEST_CASE("replay: replies are recorded with their connection and compared") {
  const std::string text = record_session(false);
  // Bob's play (connection 2, tick 3) and its reply, right after the message.
  const std::string msg =
      R"({"tick":3,"conn":2,"msg":{"op":"emote.play","id":"b","player":"bob","emote":"test:wave"}})";
  const auto at = text.find(msg);
  REQUIRE(at != std::string::npos);
  const std::string reply_prefix = R"({"tick":3,"conn":2,"reply":{"op":"reply","id":"b",)";
  const auto reply_at = text.find(reply_prefix);
  REQUIRE_MESSAGE(reply_at == at + msg.size() + 1, text);
  auto r = emote::protocol::parse_recording(text);
  REQUIRE(r.ok());
  CHECK(std::count_if(r->entries.begin(), r->entries.end(),
                      [](const auto& e) { return std::holds_alternative<rec_reply>(e); }) >= 1);

  // A recorded reply that the replay does not give back diverges at its tick, on its connection.
  const auto line_end = text.find('\n', reply_at);
  std::string changed = text;
  changed.replace(reply_at, line_end - reply_at,
                  R"({"tick":3,"conn":2,"reply":{"op":"reply","id":"b","tick":3,"ok":false,)"
                  R"("error":{"code":"cooldown","message":"x"}}})");
  const auto result = replay_text(changed);
  REQUIRE(result.divergence.has_value());
  CHECK(result.divergence->tick == 3);
  REQUIRE(result.divergence->reply_conn.has_value());
  CHECK(*result.divergence->reply_conn == 2);
  CHECK(result.divergence->details.find(
            R"(recorded: {"op":"reply","id":"b","tick":3,"ok":false)") != std::string::npos);
  CHECK(result.divergence->details.find(R"(replayed: {"op":"reply","id":"b")") !=
        std::string::npos);
}
