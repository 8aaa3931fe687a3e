// `emote-sim diff` (protocol.md §8): two recordings made by the server with the real Engine, or
// two scenario outputs, compared tick by tick: the first divergent tick and what differs there
// (inputs, replies, events, state), the header's differences (content files), and the command
// line's exit statuses.
#include "server/qa/diff.hpp"

#include "engine_server.hpp"
#include "process.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

using namespace emote::server;
using namespace emote::protocol;
using namespace emote::server::testing;

namespace {

struct session_options {
  int phases = 6;         ///< alice plays once per phase
  int phase_ticks = 1000; ///< ticks per phase
  int changed_phase = -1; ///< this phase plays t:big instead of t:wave
  bool frames = false;    ///< --record-frames
  emote::sim::engine_config engine;
};

// alice joins, plays t:cool (a cooldown) at tick 1 and then t:wave once per phase, each phase
// `phase_ticks` long; a state dump every 100 ticks.
std::filesystem::path record(const std::filesystem::path& file, const session_options& o) {
  std::filesystem::remove(file);
  recording_header h;
  h.server = EMOTE_SIM_VERSION;
  auto content = read_content_manifest({test_emotes()});
  REQUIRE(content.ok());
  h.content_digest = content->digest;
  h.content_files = content->files;
  h.started = iso8601_now();
  auto rec = recorder::open(file, h, o.frames);
  REQUIRE(rec.ok());
  rec.value()->set_state_every(100);
  {
    engine_server s(o.engine, test_emotes(), rec.value().get());
    auto a = s.client();
    a.send_line(R"({"op":"player.join","player":"alice","position":[0.5,64,0.5]})");
    step_clock(a, 1, "j");
    a.send_line(R"({"op":"emote.play","id":"c","player":"alice","emote":"t:cool"})");
    for (int p = 0; p < o.phases; ++p) {
      const std::string id = "p" + std::to_string(p);
      step_clock(a, o.phase_ticks, "s" + id);
      a.send_line(R"({"op":"emote.play","id":")" + id + R"(","player":"alice","emote":")" +
                  (p == o.changed_phase ? "t:big" : "t:wave") + "\"}");
    }
    step_clock(a, 10, "end");
    s.stop();
  }
  rec.value().reset();
  return file;
}

diff_timeline timeline(const std::filesystem::path& file) {
  auto t = read_timeline(file);
  REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error()));
  return std::move(t).value();
}

// The tick at which the recording applied the message with this id.
std::int64_t tick_of(const std::filesystem::path& file, const std::string& id) {
  auto r = read_recording(file);
  REQUIRE(r.ok());
  for (const auto& e : r->entries) {
    if (const auto* m = std::get_if<rec_msg>(&e);
        m != nullptr && m->json.find(R"("id":")" + id + "\"") != std::string::npos) {
      return m->tick;
    }
  }
  FAIL("no message " << id);
  return -1;
}

} // namespace

TEST_CASE("[engine] diff: a one-input difference in a 6,000-tick recording is found at its tick; "
          "identical recordings are identical") {
  const auto start = std::chrono::steady_clock::now();
  const auto dir = scratch_dir("diff_long");
  session_options o;
  const auto a = record(dir / "a.ndjson", o);
  const auto same = record(dir / "same.ndjson", o);
  o.changed_phase = 3;
  const auto b = record(dir / "b.ndjson", o);
  const std::int64_t changed = tick_of(b, "p3");
  CHECK(changed == 1 + 4 * 1000); // the join's tick, then four phases
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("three 6,000-tick recordings in " << seconds << " s");

  const diff_timeline ta = timeline(a);
  REQUIRE(ta.last_tick >= 6000);
  const auto identical = diff_timelines(ta, timeline(same), "a", "same");
  CHECK_MESSAGE(!identical.tick.has_value(), identical.text);
  CHECK(identical.status == 0);
  CHECK(identical.ticks_compared == ta.last_tick + 1);
  CHECK_MESSAGE(
      identical.text.ends_with("diff: " + std::to_string(ta.last_tick + 1) + " ticks, identical\n"),
      identical.text);

  const auto report = diff_timelines(ta, timeline(b), "a.ndjson", "b.ndjson");
  CHECK(report.status == 1);
  REQUIRE_MESSAGE(report.tick.has_value(), report.text);
  CHECK(*report.tick == changed);
  CHECK(report.inputs_tick == std::optional<std::int64_t>(changed));
  CHECK(report.replies_tick == std::optional<std::int64_t>(changed));
  CHECK(report.output_tick == std::optional<std::int64_t>(changed));
  CHECK(report.state_tick == std::optional<std::int64_t>(changed));
  const std::string& text = report.text;
  CHECK_MESSAGE(text.find("diff: diverged at tick " + std::to_string(changed) + "\n") !=
                    std::string::npos,
                text);
  // The input, named on both sides.
  CHECK_MESSAGE(
      text.find(
          R"(  input 0 of 2 in A: conn 1 {"op":"emote.play","id":"p3","player":"alice","emote":"t:wave"})") !=
          std::string::npos,
      text);
  CHECK(
      text.find(
          R"(  input 0 of 2 in B: conn 1 {"op":"emote.play","id":"p3","player":"alice","emote":"t:big"})") !=
      std::string::npos);
  // The state: the first dump both hold after the tick; t:big (10 ticks) is over by then, t:wave
  // still holds its last pose.
  CHECK_MESSAGE(text.find("state differs at tick " + std::to_string(changed) + " (A ") !=
                    std::string::npos,
                text);
  CHECK(text.find(", the dumps of tick 4100:\n") != std::string::npos);
  CHECK_MESSAGE(text.find(R"(  sessions.5.emote: A "t:wave", B (absent))") != std::string::npos,
                text);
  // Digests only: diff says how to see the events.
  CHECK(text.find("record with --record-frames") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("[engine] diff: another build (a perturbed rule) on the same inputs: the state diverges "
          "first, the field is named; recorded frames name the differing event") {
  const auto dir = scratch_dir("diff_build");
  session_options o;
  o.phases = 2;
  o.phase_ticks = 60;
  o.frames = true;
  const auto a = record(dir / "a.ndjson", o);
  session_options perturbed = o;
  perturbed.engine.test_cooldown_skew = 1;
  const auto b = record(dir / "b.ndjson", perturbed);
  const auto report = diff_timelines(timeline(a), timeline(b), "a", "b");
  REQUIRE_MESSAGE(report.tick.has_value(), report.text);
  CHECK(*report.tick == 1); // t:cool is played at tick 1
  CHECK_FALSE(report.inputs_tick.has_value());
  CHECK(report.state_tick == std::optional<std::int64_t>(1));
  CHECK_MESSAGE(report.text.find(R"(cooldowns.alice["t:cool"].ready: A 41, B 42)") !=
                    std::string::npos,
                report.text);

  // With frames, a different play shows as its event.
  session_options changed = o;
  changed.changed_phase = 1;
  const auto c = record(dir / "c.ndjson", changed);
  const auto events = diff_timelines(timeline(a), timeline(c), "a", "c");
  REQUIRE(events.output_tick.has_value());
  // The first differing event of that tick: t:big's first display is another node.
  CHECK_MESSAGE(events.text.find("output differs at tick " + std::to_string(*events.inputs_tick)) !=
                    std::string::npos,
                events.text);
  CHECK(
      events.text.find(
          R"(  event 1 of 4 in A: {"type":"display.spawn","session":3,"handle":2,"node":"hand")") !=
      std::string::npos);
  CHECK(events.text.find(
            R"(  event 1 of 6 in B: {"type":"display.spawn","session":3,"handle":2,"node":"a")") !=
        std::string::npos);
  CHECK(events.text.find("--record-frames") == std::string::npos);

  // Headers that list other content files: the files are named (removed: in A only).
  diff_timeline ta = timeline(a);
  diff_timeline tc = timeline(c);
  REQUIRE(tc.header.content_files.has_value());
  tc.header.content_digest = std::string(64, 'f');
  tc.header.content_files->at(0).digest = std::string(64, '0');
  tc.header.content_files->pop_back();
  const auto content = diff_timelines(ta, tc, "a", "c");
  CHECK_MESSAGE(content.text.find("note: the content differs (A " + ta.header.content_digest +
                                  ", B " + std::string(64, 'f') + ")") != std::string::npos,
                content.text);
  CHECK(content.text.find("  changed: " + ta.header.content_files->front().path + "\n") !=
        std::string::npos);
  CHECK(content.text.find("  removed: " + ta.header.content_files->back().path + "\n") !=
        std::string::npos);
  tc.header.content_files.reset();
  CHECK(diff_timelines(ta, tc, "a", "c")
            .text.find("  (B: content differs; this recording does not list its files)\n") !=
        std::string::npos);

  // Configurations: only the keys that differ, leaving out where and how each server ran
  // (protocol.md §8: record, listen, clock, ...).
  diff_timeline ca = timeline(a);
  diff_timeline cb = timeline(a);
  ca.header.config_json =
      R"({"emotes":"/a","listen":["127.0.0.1:1"],"clock":"manual","record":"/x/a.ndjson","seed":0,"limits":{"max_players":10,"max_line_bytes":5}})";
  cb.header.config_json =
      R"({"emotes":"/b","listen":["127.0.0.1:2"],"clock":"realtime","record":"/y/b.ndjson","seed":0,"limits":{"max_players":10,"max_line_bytes":5}})";
  CHECK_MESSAGE(diff_timelines(ca, cb, "a", "b").text.find("configurations") == std::string::npos,
                diff_timelines(ca, cb, "a", "b").text);
  cb.header.config_json =
      R"({"record":"/y/b.ndjson","seed":0,"limits":{"max_players":12,"max_line_bytes":5},"cooldown_mode":"stop"})";
  const auto keys = diff_timelines(ca, cb, "a", "b").text;
  CHECK_MESSAGE(keys.find("note: the configurations differ:\n  limits.max_players: A 10, B 12\n"
                          "  cooldown_mode: A (absent), B \"stop\"\n") != std::string::npos,
                keys);
  // Run-only keys (record, listen, clock, ...) are never named (the header's "recording" is not a
  // key line).
  CHECK_MESSAGE(keys.find("\n  record") == std::string::npos, keys);
  std::filesystem::remove_all(dir);
}

TEST_CASE("record-to-scenario's config leaves out where and how the server ran") {
  // protocol.md §8: the run-only keys are not copied into a scenario.
  CHECK(
      emote::protocol::simulation_config_json(
          R"({"emotes":"/e","listen":["x"],"clock":"manual","tps":20,"seed":3,"metrics":"","http":"","record":"/r","record_frames":true,"record_state_every":100,"limits":{"max_players":5}})") ==
      R"({"seed":3,"limits":{"max_players":5}})");
  CHECK(emote::protocol::run_only_config_key("record"));
  CHECK_FALSE(emote::protocol::run_only_config_key("limits"));
}

TEST_CASE("exe: diff on scenario outputs: identical, a changed event named, damaged lines and "
          "usage errors") {
  const auto dir = scratch_dir("diff_exe");
  const std::string emotes = test_emotes().string();
  auto scenario = [&](const std::string& name, const std::string& emote) {
    const auto file = dir / (name + ".json");
    std::ofstream(file)
        << R"({"scenario":1,"name":")" << name << R"(","ticks":20,"script":[)"
        << R"({"tick":0,"op":"player.join","player":"alice","position":[0.5,64,0.5]},)"
        << R"({"tick":3,"op":"emote.play","id":"p","player":"alice","emote":")" << emote
        << R"("}]})";
    const auto out = dir / (name + ".ndjson");
    REQUIRE(process::run({"run", file.string(), "--emotes", emotes, "--out", out.string()}, dir) ==
            0);
    return out.string();
  };
  const std::string a = scenario("a", "t:wave");
  const std::string a2 = scenario("a2", "t:wave");
  const std::string b = scenario("b", "t:big");
  std::string out;
  std::string err;
  CHECK(process::run({"diff", a, a2}, dir, &out, &err) == 0);
  CHECK_MESSAGE(out.find("diff: 20 ticks, identical\n") != std::string::npos, out << err);
  CHECK(process::run({"diff", a, b}, dir, &out, &err) == 1);
  CHECK_MESSAGE(out.find("diff: diverged at tick 3 (A ends at tick 19, B at tick 13)\n") !=
                    std::string::npos,
                out);
  CHECK(out.find("replies differ at tick 3:\n  reply 0 of 1 in A: ") != std::string::npos);
  CHECK(
      out.find(
          R"(  event 0 of 2 in A: {"type":"display.spawn","session":1,"handle":1,"node":"hand")") !=
      std::string::npos);
  CHECK(out.find(
            R"(  event 0 of 4 in B: {"type":"display.spawn","session":1,"handle":1,"node":"a")") !=
        std::string::npos);

  // A damaged line: named FILE:LINE:COLUMN, the ticks before it compared, exit 1.
  std::string text = read_file(a2);
  const auto line3 = text.find('\n', text.find('\n') + 1) + 1;
  text.insert(line3, "{\"op\":\"frame\",\"tick\":");
  text.insert(text.find('\n', line3), "\n");
  const auto damaged = dir / "damaged.ndjson";
  std::ofstream(damaged, std::ios::binary) << text;
  CHECK(process::run({"diff", a, damaged.string()}, dir, &out, &err) == 1);
  CHECK_MESSAGE(err.find("diff: " + damaged.string() + ":3:") != std::string::npos, err);
  CHECK_MESSAGE(out.find("; B is damaged at " + damaged.string() + ":3:") != std::string::npos,
                out);

  // Usage errors and unreadable files: exit 2.
  CHECK(process::run({"diff"}, dir, nullptr, &err) == 2);
  CHECK(process::run({"diff", a}, dir, nullptr, &err) == 2);
  CHECK(err.find("diff") != std::string::npos);
  CHECK(process::run({"diff", a, b, a}, dir, nullptr, &err) == 2);
  CHECK(process::run({"diff", "--frames", a, b}, dir, nullptr, &err) == 2);
  CHECK(err.find("unknown option '--frames'") != std::string::npos);
  CHECK(process::run({"diff", a, (dir / "missing.ndjson").string()}, dir, nullptr, &err) == 2);
  CHECK(err.find("missing.ndjson: cannot open") != std::string::npos);
  CHECK(process::run({"diff", a, dir.string()}, dir, nullptr, &err) == 2);
  CHECK(err.find("is a folder") != std::string::npos);
  std::ofstream(dir / "empty.ndjson") << "\n";
  CHECK(process::run({"diff", (dir / "empty.ndjson").string(), a}, dir, nullptr, &err) == 2);
  CHECK(err.find("empty.ndjson: empty") != std::string::npos);
  const auto header = dir / "header.ndjson";
  std::ofstream(header) << R"({"emote_sim_recording":1,"server":"0.1.0","protocol":1,"seed":7,)"
                        << R"("config":{},"content_digest":"","started":"2026-01-01T00:00:00Z"})"
                        << "\n";
  CHECK(process::run({"diff", header.string(), a}, dir, nullptr, &err) == 2);
  CHECK(err.find("cannot compare a recording with a scenario output") != std::string::npos);
  const auto not_json = dir / "text.ndjson";
  std::ofstream(not_json) << R"({"emote_sim_recording":1,)"
                          << "\n";
  CHECK(process::run({"diff", not_json.string(), header.string()}, dir, nullptr, &err) == 2);
  CHECK_MESSAGE(err.find("text.ndjson: line 1: ") != std::string::npos, err);
  CHECK(process::run({"diff", "--help"}, dir, &out) == 0);
  CHECK(out.starts_with("usage: emote-sim diff A B"));
  CHECK(process::run({"--help"}, dir, &out) == 0);
  CHECK(out.find("  diff A B") != std::string::npos);
  std::filesystem::remove_all(dir);
}
