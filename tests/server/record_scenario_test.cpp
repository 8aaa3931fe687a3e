// record-to-scenario expectations (docs/guide/qa.md): a session recorded by the server with the
// real Engine (two connections that both use ids 1, 2, 3) becomes a scenario whose expectations
// come from replaying the recording; it passes on this build and fails when the behaviour
// changes (the test-only cooldown skew, or a moved expectation).
#include "engine_server.hpp"
#include "protocol/recording_scenario.hpp"
#include "protocol/runner.hpp"
#include "server/host/engine_host.hpp"
#include "server/qa/recorded_expect.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <unistd.h>

using namespace emote::server;
using namespace emote::protocol;
using namespace emote::server::testing;

namespace {

// alice (connection 1) plays t:cool at tick 1 and again at tick 41, the tick its 2 s cooldown
// ends; bob (connection 2) plays t:close; both play t:handshake and match; bob's connection closes.
recording record_two_connections() {
  const auto file = std::filesystem::temp_directory_path() /
                    ("emote_sim_r2s_" + std::to_string(::getpid()) + ".ndjson");
  std::filesystem::remove(file);
  recording_header h;
  h.server = EMOTE_SIM_VERSION;
  h.content_digest = content_digest({test_emotes()}).value();
  h.started = iso8601_now();
  auto rec = recorder::open(file, h, false);
  REQUIRE(rec.ok());
  {
    engine_server s({}, test_emotes(), rec.value().get());
    auto a = s.client();
    auto b = s.client();
    // Each message waits for its reply, so the order within a tick is the order written here.
    auto send = [&](line_client& c, const std::string& line, const std::string& id) {
      c.send_line(line);
      for (;;) {
        auto reply = c.read_line(5s);
        REQUIRE(reply.has_value());
        if (reply->find(R"("id":)" + id + ",") != std::string::npos) {
          return;
        }
      }
    };
    send(a, R"({"op":"player.join","id":1,"player":"alice","position":[0.5,64,0.5],"yaw":0})", "1");
    send(b, R"({"op":"player.join","id":1,"player":"bob","position":[0.5,64,1.7],"yaw":180})", "1");
    step_clock(a, 1, "s0");
    send(a, R"({"op":"emote.play","id":2,"player":"alice","emote":"t:cool"})", "2");
    send(b, R"({"op":"emote.play","id":2,"player":"bob","emote":"t:close"})", "2");
    step_clock(a, 40, "s1");
    send(a, R"({"op":"emote.play","id":3,"player":"alice","emote":"t:cool"})", "3");
    step_clock(a, 40, "s2");
    send(a, R"({"op":"emote.play","id":4,"player":"alice","emote":"t:handshake"})", "4");
    step_clock(a, 2, "s3");
    send(b, R"({"op":"emote.play","id":3,"player":"bob","emote":"t:handshake"})", "3");
    step_clock(a, 30, "s4");
    b.send_line(R"({"op":"bye"})"); // bob leaves with his connection (at whichever tick)
    step_clock(a, 5, "s5");
  }
  rec.value().reset();
  auto r = read_recording(file);
  std::filesystem::remove(file);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error()));
  return std::move(r).value();
}

// The scenario record-to-scenario writes, at `level`.
std::string generated(const recording& r, expect_level level) {
  auto c = convert_recording(r, scenario_conversion{"captured", {test_emotes().string()}, "[]"});
  REQUIRE(c.ok());
  emote::sim::engine_config cfg;
  cfg.seed = r.header.seed;
  auto host = make_engine_host(test_emotes(), cfg);
  REQUIRE(host.ok());
  auto expect = recorded_expectations(r, *c, *host.value(), level);
  REQUIRE_MESSAGE(expect.ok(), (expect.ok() ? "" : expect.error()));
  c->text.expect_json = *expect;
  return write_scenario(c->text);
}

run_result run_text(const std::string& text, std::int64_t cooldown_skew = 0) {
  auto s = parse_scenario(text, "/tmp/captured.json");
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error()));
  s->engine.test_cooldown_skew = cooldown_skew;
  return run_scenario(*s, scenario_host_factory({}));
}

std::vector<std::string> expectation_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text.substr(text.find("\"expect\"")));
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("    {")) {
      out.push_back(line.back() == ',' ? line.substr(0, line.size() - 1) : line);
    }
  }
  return out;
}

} // namespace

TEST_CASE("[engine] record-to-scenario: the expectations hold on this build and fail when the "
          "behaviour changes") {
  const recording r = record_two_connections();
  const std::string all = generated(r, expect_level::all);
  // Replies of both connections, each under its own id, and the lifecycle events at their ticks.
  for (
      const char* e : {
          R"({"reply":"1/1","tick":0,"ok":true})",
          R"({"reply":"2/1","tick":0,"ok":true})",
          R"({"reply":"1/3","tick":41,"ok":true,"emote":"t:cool","role":"solo"})",
          R"({"reply":"2/3","tick":83,"ok":true,"emote":"t:handshake","role":"partner"})",
          R"({"event":"playback.started","player":"alice","emote":"t:cool","role":"solo","tick":1})",
          R"({"event":"partner.matched",)",
          R"({"count":{"event":"playback."},"equals":)",
      }) {
    CHECK_MESSAGE(all.find(e) != std::string::npos, e << "\n" << all);
  }
  const auto passed = run_text(all);
  CHECK_MESSAGE(passed.passed, passed.failure);

  // A cooldown one tick longer refuses alice's second t:cool: the scenario fails on its reply.
  const auto skewed = run_text(all, 1);
  CHECK_FALSE(skewed.passed);
  CHECK_MESSAGE(skewed.failure.find(R"({"reply":"1/3","tick":41,"ok":true,"emote":"t:cool")") !=
                    std::string::npos,
                skewed.failure);
  // The same with only the lifecycle: the second playback.started is missing.
  const std::string lifecycle = generated(r, expect_level::lifecycle);
  const auto skewed_lifecycle = run_text(lifecycle, 1);
  CHECK_FALSE(skewed_lifecycle.passed);
  CHECK_MESSAGE(skewed_lifecycle.failure.find(R"("emote":"t:cool","role":"solo","tick":41})") !=
                    std::string::npos,
                skewed_lifecycle.failure);

  // An expectation moved by one tick fails.
  std::string moved = all;
  const std::string match = R"("tick":1})";
  const auto at = moved.find(R"({"event":"playback.started","player":"alice")");
  REQUIRE(at != std::string::npos);
  moved.replace(moved.find(match, at), match.size(), R"("tick":2})");
  CHECK_FALSE(run_text(moved).passed);

  // No expectation pins a session number: one extra playback at the start (every later session
  // numbered one higher) fails only the total, not the events after it.
  CHECK(all.find(R"("session")") == std::string::npos);
  std::string extra = all;
  const std::string first_join = R"({"tick":0,"op":"player.join")";
  const auto j = extra.find(first_join);
  REQUIRE_MESSAGE(j != std::string::npos, all);
  extra.insert(j, R"({"tick":0,"op":"player.join","player":"zed","position":[40.5,64,0.5]},
    {"tick":0,"op":"emote.play","player":"zed","emote":"t:wave"},
    )");
  const auto shifted = run_text(extra);
  CHECK_FALSE(shifted.passed);
  CHECK_MESSAGE(shifted.failure.find(R"("count":{"event":"playback."})") != std::string::npos,
                shifted.failure);
  CHECK_MESSAGE(shifted.failure.find(R"("event":"playback.started")") == std::string::npos,
                shifted.failure);
  CHECK_MESSAGE(shifted.failure.find(R"("event":"partner.matched")") == std::string::npos,
                shifted.failure);

  // A partner that becomes an initiator fails its reply's expectation (the role is compared).
  std::string turned = all;
  const std::string bob_yaw = R"("player":"bob","position":[0.5,64,1.7],"yaw":180)";
  const auto b = turned.find(bob_yaw);
  REQUIRE_MESSAGE(b != std::string::npos, all);
  turned.replace(b, bob_yaw.size(), R"("player":"bob","position":[0.5,64,1.7],"yaw":90)");
  const auto away = run_text(turned);
  CHECK_FALSE(away.passed);
  CHECK_MESSAGE(away.failure.find(R"("role":"partner")") != std::string::npos, away.failure);
}

TEST_CASE("[engine] record-to-scenario: ids are unique across connections; lifecycle is a subset "
          "of all; none is empty") {
  const recording r = record_two_connections();
  const std::string all = generated(r, expect_level::all);
  auto s = parse_scenario(all, "/tmp/captured.json");
  REQUIRE(s.ok());
  std::set<std::string> ids;
  std::size_t with_id = 0;
  for (const auto& e : s->script) {
    const auto at = e.line.find(R"("id":")");
    if (at != std::string::npos) {
      ++with_id;
      ids.insert(e.line.substr(at, e.line.find('"', at + 6) - at));
    }
  }
  CHECK(with_id == 7); // alice's 1..4, bob's 1..3
  CHECK(ids.size() == with_id);

  const auto every = expectation_lines(all);
  const auto some = expectation_lines(generated(r, expect_level::lifecycle));
  CHECK(some.size() < every.size());
  CHECK_FALSE(some.empty());
  for (const auto& e : some) {
    CHECK_MESSAGE(std::find(every.begin(), every.end(), e) != every.end(), e);
    CHECK(e.find(R"("reply")") == std::string::npos);
  }
  const std::string none = generated(r, expect_level::none);
  CHECK(none.find(R"("expect": [])") != std::string::npos);
  CHECK(run_text(none).passed);
}
