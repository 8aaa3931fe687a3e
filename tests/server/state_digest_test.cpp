// State digests and dumps in recordings (protocol.md §8): a session recorded by the server with
// the real Engine holds a state digest for every tick and a dump every K ticks; replaying it on
// the same rules agrees on every digest, and on a deliberately perturbed rule (the test-only
// cooldown skew) the replay names the first tick whose state diverged, before any output
// differs, and the field that differs.
#include "engine_server.hpp"
#include "server/qa/replay.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <unistd.h>

using namespace emote::server;
using namespace emote::protocol;
using namespace emote::server::testing;

namespace {

std::filesystem::path temp_path(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("emote_sim_state_" + std::to_string(::getpid()) + "_" + name);
}

// alice plays t:cool (a 2 s cooldown) at tick 1 and the session runs to tick 30; a dump every
// 10 ticks.
recording record_cooldown_session(std::string* text = nullptr) {
  const auto file = temp_path("cool.ndjson");
  std::filesystem::remove(file);
  recording_header h;
  h.server = EMOTE_SIM_VERSION;
  h.content_digest = std::string(64, 'a');
  h.started = iso8601_now();
  auto rec = recorder::open(file, h, false);
  REQUIRE(rec.ok());
  rec.value()->set_state_every(10);
  {
    engine_server s({}, test_emotes(), rec.value().get());
    auto a = s.client();
    a.send_line(R"({"op":"player.join","player":"alice","position":[0.5,64,0.5]})");
    step_clock(a, 1, "s0");
    a.send_line(R"({"op":"emote.play","id":"p","player":"alice","emote":"t:cool"})");
    step_clock(a, 30, "s1");
  }
  rec.value().reset();
  if (text != nullptr) {
    std::ifstream in(file, std::ios::binary);
    text->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  auto r = read_recording(file);
  std::filesystem::remove(file);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error()));
  return std::move(r).value();
}

replay_result replay_with(const recording& r, emote::sim::engine_config cfg) {
  auto h = make_engine_host(test_emotes(), cfg);
  REQUIRE(h.ok());
  return replay_recording(r, *h.value());
}

} // namespace

TEST_CASE("[engine] state digests: every tick's state is recorded, a dump every K ticks; the "
          "same rules replay every digest identical") {
  const recording r = record_cooldown_session();
  // Ticks 0..30 ran. The client's close, after the last tick, is not recorded (a tick that
  // never ran; protocol.md §8).
  REQUIRE(r.last_tick == 30);
  // One digest per tick that ran (with or without output), dumps at the multiples of 10.
  CHECK(r.states.size() == 31);
  for (std::int64_t t = 0; t <= 30; ++t) {
    CHECK_MESSAGE(r.states.contains(t), "tick " << t);
  }
  CHECK(r.state_dumps.size() == 4);
  CHECK(r.state_dumps.contains(0));
  CHECK(r.state_dumps.contains(30));
  REQUIRE(r.state_dumps.contains(10));
  const std::string& dump = r.state_dumps.at(10);
  CHECK_MESSAGE(dump.find(R"("cooldowns":{"alice":{"t:cool":)") != std::string::npos, dump);
  CHECK(dump.find(R"("players":{"alice":{)") != std::string::npos);
  CHECK(dump.find(R"("sessions":{"1":{"emote":"t:cool")") != std::string::npos);
  // The digest moves with the state: the session runs, so consecutive ticks differ.
  CHECK(r.states.at(5) != r.states.at(6));

  const auto same = replay_with(r, {});
  CHECK_FALSE(same.divergence);
  CHECK_FALSE(same.state);
  CHECK(same.states_compared == 31);
}

TEST_CASE("[engine] state digests: a perturbed rule (cooldown one tick longer) diverges in state "
          "at the play's tick while the output stays identical; the diff names the field") {
  const recording r = record_cooldown_session();
  emote::sim::engine_config perturbed;
  perturbed.test_cooldown_skew = 1;
  const auto result = replay_with(r, perturbed);
  CHECK_FALSE(result.divergence); // the frames never show the cooldown
  REQUIRE(result.state);
  CHECK(result.state->tick == 1); // the play was applied in tick 1
  CHECK(result.state->recorded_digest == r.states.at(1));
  CHECK(result.state->replayed_digest != result.state->recorded_digest);
  // Described at the first dump after the divergence, both states of tick 10.
  CHECK(result.state->dump_tick == 10);
  CHECK(result.state->compared_tick == 10);
  CHECK_MESSAGE(result.state->details.find("cooldowns.alice[\"t:cool\"].ready: recorded 41, "
                                           "replayed 42") != std::string::npos,
                result.state->details);
  // Only the cooldown differs.
  CHECK_MESSAGE(result.state->details.find("players.") == std::string::npos, result.state->details);
}

TEST_CASE("[engine] state digests: under 64 bytes per tick in the file (dumps apart)") {
  std::string text;
  const recording r = record_cooldown_session(&text);
  // The digests' share: the `,"state":"…"` member of a tick's output line, or the whole
  // `{"tick":N,"state":"…"}` line of a tick without output. Dumps are counted apart.
  std::size_t digest_bytes = 0;
  std::size_t dump_bytes = 0;
  std::size_t dumps = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto at = line.find(R"(,"state":")");
    if (line.find(R"("state_dump":)") != std::string::npos) {
      dump_bytes += line.size() + 1;
      ++dumps;
    } else if (at != std::string::npos && line.find(R"("digest":)") != std::string::npos) {
      digest_bytes += 27; // ,"state":"<16 hex>"
    } else if (at != std::string::npos) {
      digest_bytes += line.size() + 1;
      CHECK(line.size() + 1 <= 43); // {"tick":999999,"state":"<16>"} and its newline
    }
  }
  const auto ticks = r.states.size(); // the ticks that ran
  const double per_tick = static_cast<double>(digest_bytes) / static_cast<double>(ticks);
  MESSAGE("state digests: " << per_tick << " bytes per tick over " << ticks << " ticks; " << dumps
                            << " dumps of " << dump_bytes / std::max<std::size_t>(dumps, 1)
                            << " bytes on average");
  CHECK(per_tick > 16);
  CHECK(per_tick < 64);
}
