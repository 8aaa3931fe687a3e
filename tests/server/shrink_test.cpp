// `emote-sim shrink` (docs/guide/qa.md): a 2,000-input recording in which one input pair causes
// the expected refusal (alice plays t:cool twice, the second inside its cooldown) among noise of
// other players shrinks to the three inputs it needs, and the written scenario passes `run`.
#include "engine_server.hpp"
#include "process.hpp"
#include "protocol/decode.hpp"
#include "protocol/recording_scenario.hpp"
#include "protocol/runner.hpp"
#include "server/host/engine_host.hpp"
#include "server/qa/shrink.hpp"

#include <doctest/doctest.h>

#include <chrono>

using namespace emote::server;
using namespace emote::protocol;
using namespace emote::server::testing;

namespace {

constexpr int noise_players = 10;

// 2,000 recorded inputs over 400 ticks: connection 2 joins ten players and moves, plays, stops
// and queries them; connection 1 joins alice at tick 0 and plays t:cool at ticks 5 and 40 (its
// cooldown ends at 45: the second play is refused).
std::string noisy_text(std::size_t* inputs) {
  std::string text;
  append_header(text, recording_header{EMOTE_SIM_VERSION,
                                       1,
                                       0,
                                       "{}",
                                       content_digest({test_emotes()}).value(),
                                       "2026-12-05T00:00:00Z",
                                       "test",
                                       {}});
  append_connect(text, 0, 1, "controller", "a");
  append_connect(text, 0, 2, "controller", "noise");
  std::size_t n = 0;
  auto msg = [&](std::int64_t tick, std::int64_t conn, const std::string& line) {
    auto decoded = decode_request(line);
    REQUIRE_MESSAGE(decoded.ok(), line);
    append_msg(text, tick, conn, decoded->record);
    ++n;
  };
  msg(0, 1, R"({"op":"player.join","player":"alice","position":[0.5,64,0.5]})");
  for (int p = 0; p < noise_players; ++p) {
    msg(0, 2,
        R"({"op":"player.join","player":"n)" + std::to_string(p) + R"(","position":[)" +
            std::to_string(4 * (p + 1)) + ".5,64,0.5]}");
  }
  std::uint32_t lcg = 12345; // a fixed sequence of noise
  for (std::int64_t tick = 1; n < 2000; ++tick) {
    if (tick == 5) {
      msg(tick, 1, R"({"op":"emote.play","id":"p1","player":"alice","emote":"t:cool"})");
    }
    if (tick == 40) {
      msg(tick, 1, R"({"op":"emote.play","id":"p2","player":"alice","emote":"t:cool"})");
    }
    for (int k = 0; k < 5 && n < 2000; ++k) {
      lcg = lcg * 1664525U + 1013904223U;
      const std::string who = "n" + std::to_string((lcg >> 8) % noise_players);
      const std::string id = std::to_string(n);
      switch ((lcg >> 20) % 5) {
      case 0:
        msg(tick, 2,
            R"({"op":"player.update","player":")" + who + R"(","yaw":)" +
                std::to_string((lcg >> 12) % 360) + "}");
        break;
      case 1:
        msg(tick, 2,
            R"({"op":"emote.play","id":)" + id + R"(,"player":")" + who + R"(","emote":"t:wave"})");
        break;
      case 2:
        msg(tick, 2, R"({"op":"emote.stop","player":")" + who + R"("})");
        break;
      case 3:
        msg(tick, 2, R"({"op":"ping","id":)" + id + "}");
        break;
      default:
        msg(tick, 2, R"({"op":"state.get","id":)" + id + R"(,"player":")" + who + R"("})");
        break;
      }
    }
  }
  append_disconnect(text, 400, 2);
  *inputs = n;
  return text;
}

recording noisy_recording(std::size_t* inputs) {
  auto r = parse_recording(noisy_text(inputs));
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error()));
  return std::move(r).value();
}

scenario base_scenario(const converted_recording& c) {
  auto s = parse_scenario(write_scenario(c.text), "/tmp/shrunk.json");
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error()));
  s->emotes = {test_emotes()};
  return std::move(s).value();
}

} // namespace

TEST_CASE("[engine] shrink: 2,000 recorded inputs with one causal pair shrink to the 3 inputs "
          "that still meet the expectation; the written scenario passes run") {
  std::size_t inputs = 0;
  const recording r = noisy_recording(&inputs);
  CHECK(inputs == 2000);
  scenario_conversion options{"shrunk",
                              {test_emotes().string()},
                              R"([{"reply":"1/p2","ok":false,"error":{"code":"cooldown"}}])"};
  auto c = convert_recording(r, options);
  REQUIRE(c.ok());
  const scenario base = base_scenario(*c);
  REQUIRE(base.expect.items().size() == 1);

  const auto started = std::chrono::steady_clock::now();
  auto result = shrink_script(*c, base, scenario_host_factory({}));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  REQUIRE_MESSAGE(result.ok(), (result.ok() ? "" : result.error()));
  MESSAGE("shrink: " << result->units_before << " inputs -> " << result->units_after << " in "
                     << result->runs << " runs, " << seconds << " s");
  CHECK(result->units_before == 2001); // the 2,000 messages and the disconnect
  CHECK(result->script.size() <= 5);
  CHECK(seconds < 60);
  const char* needed[] = {
      R"({"op":"player.join","player":"alice","position":[0.5,64,0.5]})",
      R"({"op":"emote.play","id":"1/p1","player":"alice","emote":"t:cool"})",
      R"({"op":"emote.play","id":"1/p2","player":"alice","emote":"t:cool"})",
  };
  REQUIRE(result->script.size() == std::size(needed));
  for (std::size_t i = 0; i < std::size(needed); ++i) {
    CHECK(result->script[i].line == needed[i]);
  }

  // The written scenario (script and the expectation) passes run; without the first play it
  // would not (the pair is causal).
  scenario_text minimal = c->text;
  minimal.expect_json = expect_array_text(base.expect);
  minimal.script = result->script;
  const std::string written = write_scenario(minimal);
  auto s = parse_scenario(written, "/tmp/shrunk.json");
  REQUIRE(s.ok());
  CHECK(s->script.size() == 3);
  const auto passed = run_scenario(*s, scenario_host_factory({}));
  CHECK_MESSAGE(passed.passed, passed.failure << "\n" << written);
  s->script.erase(s->script.begin() + 1);
  CHECK_FALSE(run_scenario(*s, scenario_host_factory({})).passed);

  // Deterministic: the same again.
  auto again = shrink_script(*c, base, scenario_host_factory({}));
  REQUIRE(again.ok());
  CHECK(again->runs == result->runs);
  REQUIRE(again->script.size() == result->script.size());
  for (std::size_t i = 0; i < again->script.size(); ++i) {
    CHECK(again->script[i].line == result->script[i].line);
  }
}

TEST_CASE("[engine] shrink: the kept inputs move to start near tick 0, keeping the phase mod 20") {
  // alice joins at 1003 and plays t:cool at 1005 and 1040 (refused: cooldown); a noise player
  // joins at 0. The shrunk script moves 1000 ticks earlier and still meets the expectation.
  std::string text;
  append_header(text, recording_header{EMOTE_SIM_VERSION,
                                       1,
                                       0,
                                       "{}",
                                       content_digest({test_emotes()}).value(),
                                       "2026-12-05T00:00:00Z",
                                       "test",
                                       {}});
  append_connect(text, 0, 1, "controller", "a");
  const auto msg = [&](std::int64_t tick, const std::string& line) {
    auto decoded = decode_request(line);
    REQUIRE_MESSAGE(decoded.ok(), line);
    append_msg(text, tick, 1, decoded->record);
  };
  msg(0, R"({"op":"player.join","player":"noise","position":[9.5,64,0.5]})");
  msg(1003, R"({"op":"player.join","player":"alice","position":[0.5,64,0.5]})");
  msg(1005, R"({"op":"emote.play","id":"p1","player":"alice","emote":"t:cool"})");
  msg(1040, R"({"op":"emote.play","id":"p2","player":"alice","emote":"t:cool"})");
  auto r = parse_recording(text);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error()));
  const std::string expect = R"([{"reply":"1/p2","ok":false,"error":{"code":"cooldown"}}])";
  auto c = convert_recording(*r, scenario_conversion{"moved", {test_emotes().string()}, expect});
  REQUIRE(c.ok());
  const scenario base = base_scenario(*c);
  auto result = shrink_script(*c, base, scenario_host_factory({}));
  REQUIRE_MESSAGE(result.ok(), (result.ok() ? "" : result.error()));
  CHECK(result->tick_offset == 1000);
  REQUIRE(result->script.size() == 3);
  CHECK(result->script[0].tick == 3);
  CHECK(result->script[1].tick == 5);
  CHECK(result->script[2].tick == 40);
  CHECK(result->ticks == base.ticks - 1000);
  // An expectation that names a tick keeps the recorded ticks, and says why.
  auto ticked = convert_recording(
      *r, scenario_conversion{
              "kept", {test_emotes().string()}, R"([{"reply":"1/p2","tick":1040,"ok":false}])"});
  REQUIRE(ticked.ok());
  const scenario base2 = base_scenario(*ticked);
  auto kept = shrink_script(*ticked, base2, scenario_host_factory({}));
  REQUIRE(kept.ok());
  CHECK(kept->tick_offset == 0);
  // Not rebased: the kept inputs are at their recorded ticks (all after the 1,000 idle ones).
  CHECK(kept->script.front().tick > 1000);
  CHECK(kept->not_rebased == "the expectations name ticks");
}

TEST_CASE("[engine] shrink: a recording that does not meet the expectations is refused") {
  std::size_t inputs = 0;
  const recording r = noisy_recording(&inputs);
  auto c = convert_recording(r, scenario_conversion{"x", {}, R"([{"reply":"1/p2","ok":true}])"});
  REQUIRE(c.ok());
  const scenario base = base_scenario(*c);
  auto result = shrink_script(*c, base, scenario_host_factory({}));
  REQUIRE_FALSE(result.ok());
  CHECK_MESSAGE(result.error().starts_with("the whole recording does not meet the expectations: "
                                           "expect[0]"),
                result.error());
}

TEST_CASE("[engine] exe: shrink RECORDING --expect FILE -o OUT writes a scenario that run passes") {
  const auto dir = scratch_dir("shrink");
  std::size_t inputs = 0;
  std::ofstream(dir / "rec.ndjson", std::ios::binary) << noisy_text(&inputs);
  std::ofstream(dir / "expect.json") << "// the refusal to keep\n"
                                        R"([{"reply":"1/p2","error":{"code":"cooldown"}}])";
  const std::string emotes = test_emotes().string();
  std::string out;
  std::string err;
  CHECK(process::run({"shrink", (dir / "rec.ndjson").string(), "--expect",
                      (dir / "expect.json").string(), "-o", (dir / "min.json").string(),
                      "--replay-emotes", emotes},
                     dir, &out, &err) == 0);
  CHECK_MESSAGE(err.starts_with("shrink: 3 of 2001 recorded inputs kept (3 script lines), "), err);
  CHECK(process::run({"run", (dir / "min.json").string()}, dir, &out, &err) == 0);
  CHECK_MESSAGE(out.find("1 passed, 0 failed") != std::string::npos, out);
  // protocol.md §7: --quiet leaves the output out; the verdict also goes to stderr when stdout
  // is not a terminal (here a pipe).
  CHECK(process::run({"run", "--quiet", (dir / "min.json").string()}, dir, &out, &err) == 0);
  CHECK_MESSAGE(out.find('{') == std::string::npos, out); // no reply or frame line
  CHECK_MESSAGE(out.ends_with("1 passed, 0 failed\n"), out);
  CHECK_MESSAGE(err.ends_with("1 passed, 0 failed\n"), err);

  // A scenario folder without the recording's content: record-to-scenario and shrink warn and
  // still write (docs/guide/qa.md).
  std::filesystem::create_directories(dir / "other");
  CHECK(process::run({"record-to-scenario", (dir / "rec.ndjson").string(), "--expect", "none",
                      "--out", (dir / "r2s.json").string(), "--emotes", "other"},
                     dir, &out, &err) == 0);
  CHECK_MESSAGE(err.find("record-to-scenario: warning: the scenario's emotes other (" +
                         (dir / "other").string() +
                         ") do not hold the recording's content files") != std::string::npos,
                err);
  CHECK(std::filesystem::exists(dir / "r2s.json"));
  CHECK(process::run({"record-to-scenario", (dir / "rec.ndjson").string(), "--expect", "none",
                      "--out", (dir / "r2s.json").string(), "--emotes", emotes},
                     dir, &out, &err) == 0);
  CHECK_MESSAGE(err.find("warning") == std::string::npos, err);
  CHECK(process::run({"shrink", (dir / "rec.ndjson").string(), "--expect",
                      (dir / "expect.json").string(), "-o", (dir / "min2.json").string(),
                      "--replay-emotes", emotes, "--emotes", "other"},
                     dir, &out, &err) == 0);
  CHECK_MESSAGE(err.find("shrink: warning: the scenario's emotes other") != std::string::npos, err);
  const std::string written = read_file(dir / "min.json");
  CHECK(written.find(R"({"reply":"1/p2","error":{"code":"cooldown"}})") != std::string::npos);

  // Expectations the whole recording does not meet: exit 1, naming them.
  std::ofstream(dir / "unmet.json") << R"({"expect":[{"reply":"1/p2","ok":true}]})";
  CHECK(process::run({"shrink", (dir / "rec.ndjson").string(), "--expect",
                      (dir / "unmet.json").string(), "--replay-emotes", emotes},
                     dir, &out, &err) == 1);
  CHECK_MESSAGE(err.find("does not meet the expectations: expect[0]") != std::string::npos, err);
  // The recorded id instead of the rewritten one: the note says how ids are written.
  std::ofstream(dir / "raw_id.json") << R"([{"reply":"p2","ok":false}])";
  CHECK(process::run({"shrink", (dir / "rec.ndjson").string(), "--expect",
                      (dir / "raw_id.json").string(), "--replay-emotes", emotes},
                     dir, &out, &err) == 1);
  CHECK_MESSAGE(err.find("note: reply ids are those record-to-scenario writes, C/ID") !=
                    std::string::npos,
                err);
  // --expect is required; an expectation file with an error names its place.
  CHECK(process::run({"shrink", (dir / "rec.ndjson").string()}, dir, &out, &err) == 2);
  CHECK(err.find("--expect FILE is required") != std::string::npos);
  std::ofstream(dir / "bad.json") << R"([{"reply":"1/p2","nope":]])";
  CHECK(process::run({"shrink", (dir / "rec.ndjson").string(), "--expect",
                      (dir / "bad.json").string(), "--replay-emotes", emotes},
                     dir, &out, &err) == 2);
  CHECK_MESSAGE(err.find("bad.json:1:") != std::string::npos, err);
}
