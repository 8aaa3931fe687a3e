#include "protocol/scenario.hpp"
#include "settings/config.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

using namespace emote;
using namespace emote::protocol;

namespace {

scenario load(std::string_view text, const char* file = "/data/s/handshake.json") {
  auto s = parse_scenario(text, file);
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error()));
  return std::move(*s);
}

std::string error_of(std::string_view text) {
  auto s = parse_scenario(text, "t.json");
  REQUIRE_FALSE(s.ok());
  return s.error();
}

} // namespace

TEST_CASE("the example scenario of protocol.md §7") {
  const scenario s = load(R"({
  "scenario": 1,
  "name": "handshake matches when the partner joins during the offer",
  "emotes": ["emotes"],
  "seed": 7,
  "config": {"max_active_display_entities": 512},
  "ticks": 400,
  "script": [
    {"tick": 0, "op": "player.join", "player": "alice", "position": [0, 64, 0], "yaw": 0},
    {"tick": 0, "op": "player.join", "player": "bob", "position": [0, 64, 1.2], "yaw": 180},
    {"tick": 1, "op": "emote.play", "id": "a", "player": "alice", "emote": "example:handshake"},
    {"tick": 5, "op": "emote.play", "id": "b", "player": "bob", "emote": "example:handshake"}
  ],
  "expect": [
    {"reply": "b", "ok": true, "role": "partner"},
    {"event": "partner.matched", "initiator": "alice", "partner": "bob", "by": 60},
    {"not": {"event": "playback.stopped", "reason": "MOVED"}}
  ]
})");
  CHECK(s.name == "handshake matches when the partner joins during the offer");
  REQUIRE(s.emotes.size() == 1);
  CHECK(s.emotes[0] == std::filesystem::path("/data/s/emotes"));
  CHECK(s.seed == 7);
  CHECK(s.engine.seed == 7);
  CHECK(s.engine.max_active_display_entities == 512);
  CHECK(s.config_json == R"({"max_active_display_entities":512})");
  CHECK(s.ticks == 400);
  REQUIRE(s.script.size() == 4);
  CHECK(s.script[1].tick == 0);
  CHECK(s.script[1].line ==
        R"({"op":"player.join","player":"bob","position":[0,64,1.2],"yaw":180})");
  CHECK(s.script[3].line ==
        R"({"op":"emote.play","id":"b","player":"bob","emote":"example:handshake"})");
  CHECK(s.expect.items().size() == 3);
}

TEST_CASE("defaults: name from the file, ticks = last script tick + 200, seed 0") {
  const scenario s = load(R"({"script":[{"tick":7,"op":"ping"},{"tick":3,"op":"ping","id":1}]})",
                          "dir/my_case.json");
  CHECK(s.name == "my_case");
  CHECK(s.ticks == 207);
  CHECK(s.seed == 0);
  CHECK(s.emotes.empty());
  CHECK(s.expect.empty());
  // Ordered by tick, file order within a tick.
  REQUIRE(s.script.size() == 2);
  CHECK(s.script[0].tick == 3);
  CHECK(s.script[0].index == 1);
  CHECK(load("{}").ticks == 200);
  const scenario same_tick = load(
      R"({"script":[{"tick":2,"op":"ping","id":"x"},{"tick":1,"op":"ping","id":"w"},{"tick":2,"op":"ping","id":"y"}]})");
  CHECK(same_tick.script[1].line == R"({"op":"ping","id":"x"})");
  CHECK(same_tick.script[2].line == R"({"op":"ping","id":"y"})");
}

TEST_CASE(
    "hand-written scenarios may carry comments and trailing commas; emotes may be one string") {
  const scenario s = load(R"({
    // a comment
    "emotes": "../fixtures/basic",
    "script": [ {"tick": 0, "op": "ping",}, ],
  })",
                          "/x/scenarios/a.json");
  CHECK(s.emotes[0] == std::filesystem::path("/x/fixtures/basic"));
  CHECK(s.script.size() == 1);
}

TEST_CASE("the top-level seed wins over config.seed") {
  CHECK(load(R"({"config":{"seed":5}})").seed == 5);
  CHECK(load(R"({"config":{"seed":5},"seed":9})").seed == 9);
}

TEST_CASE("scenario errors name the file and the path") {
  CHECK(error_of("[]") == "t.json:1:1: $: must be an object");
  CHECK(error_of(R"({"scenario":2})") == "t.json:1:13: $.scenario: must be 1");
  CHECK(error_of(R"({"tiks":5})") == "t.json:1:9: $.tiks: unknown key");
  CHECK(error_of(R"({"script":[{"op":"ping"}]})") == "t.json:1:12: $.script[0].tick: is required");
  CHECK(error_of(R"({"script":[{"tick":-1,"op":"ping"}]})") ==
        "t.json:1:20: $.script[0].tick: must be an integer >= 0");
  CHECK(error_of(R"({"script":[5]})") == "t.json:1:12: $.script[0]: must be an object");
  CHECK(error_of(R"({"ticks":10,"script":[{"tick":3,"op":"ping"},{"tick":10,"op":"ping"}]})") ==
        "t.json:1:54: $.script[1].tick: is not below ticks (10)");
  CHECK(error_of(R"({"script":[{"tick":0,"op":"hello"}]})")
            .starts_with("t.json:1:27: $.script[0].op: hello is not allowed"));
  CHECK(error_of(R"({"script":[{"tick":0,"op":"clock.step"}]})")
            .starts_with("t.json:1:27: $.script[0].op: clock.step"));
  CHECK(error_of(R"({"ticks":0})") == "t.json:1:10: $.ticks: must be an integer >= 1");
  CHECK(error_of(R"({"emotes":[3]})") == "t.json:1:12: $.emotes[0]: must be a non-empty string");
  CHECK(error_of(R"({"config":{"cooldown_mode":"later"}})") ==
        "t.json:1:28: $.config.cooldown_mode: must be \"start\" or \"stop\"");
  CHECK(error_of(R"({"expect":[{"event":"nope"}]})") ==
        "t.json:1:21: $.expect[0].event: unknown event type or prefix: nope");
  CHECK(error_of(R"({"a":1,})").starts_with("t.json:1:6: $.a: unknown key"));
  CHECK(error_of("{") == "t.json:1:2: invalid JSON: unexpected end of input");
}

TEST_CASE("scenario files are read with line and column: comments, trailing commas") {
  const std::string text = "// a scenario\n{\n  \"ticks\": 5, /* five */\n  \"script\": [\n"
                           "    {\"tick\": 1, \"op\": \"ping\",},\n  ],\n}\n";
  auto s = parse_scenario(text, "t.json");
  REQUIRE_MESSAGE(s.ok(), s.error());
  CHECK(s->ticks == 5);
  REQUIRE(s->script.size() == 1);
  CHECK(s->script[0].line == R"({"op":"ping"})");
  CHECK(error_of("{\n  \"ticks\": 5,\n  \"seed\": true\n}") ==
        "t.json:3:11: $.seed: must be an integer");
  CHECK(error_of("{\n  \"ticks\": 5\n  \"seed\": 1\n}") ==
        "t.json:3:3: invalid JSON: expected ',' or '}'");
  CHECK(error_of("{\"ticks\": 5, \"ticks\": 6}") == "t.json:1:14: $.ticks: duplicate key");
  CHECK(error_of("{\"ticks\": NaN}") ==
        "t.json:1:11: invalid JSON: non-finite numbers are not allowed");
  // Integers keep every digit; numbers beyond binary64 are read (and refused where they count).
  auto big = parse_scenario(
      R"({"seed":9007199254740993,"script":[{"tick":0,"op":"ping","n":18446744073709551615}]})",
      "t.json");
  REQUIRE_MESSAGE(big.ok(), big.error());
  CHECK(big->seed == 9007199254740993);
  CHECK(big->script[0].line == R"({"op":"ping","n":18446744073709551615})");
  auto missing = load_scenario("/nonexistent/dir/x.json");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().starts_with("/nonexistent/dir/x.json: cannot read"));
}

TEST_CASE("scenario files load from disk") {
  const auto dir = std::filesystem::temp_directory_path() / "emote_scenario_test";
  std::filesystem::create_directories(dir);
  const auto file = dir / "disk.json";
  std::ofstream(file)
      << R"({"name":"from disk","emotes":["content"],"script":[{"tick":0,"op":"ping"}]})";
  auto s = load_scenario(file);
  REQUIRE(s.ok());
  CHECK(s->name == "from disk");
  CHECK(s->emotes[0] == (dir / "content").lexically_normal());
  std::filesystem::remove_all(dir);
}

TEST_CASE("scenario config overrides go through the configuration loader") {
  const scenario ok =
      load(R"({"config":{"seed":-3,"cooldown_mode":"stop","max_active_display_entities":0,
    "disabled":[" demo:x "],"record_frames":true},"script":[]})");
  CHECK(ok.engine.seed == -3);
  CHECK(ok.engine.cooldown_mode == sim::cooldown_mode::stop);
  CHECK(ok.engine.max_active_display_entities == 0);
  CHECK(ok.engine.disabled == std::vector<std::string>{"demo:x"});
  const auto bad = error_of(R"({"config":{"limits":{"max_things":3}},"script":[]})");
  CHECK(bad.find("$.config.limits.max_things: unknown key") != std::string::npos);
  const auto regex = error_of(
      R"({"config":{"permissions":[{"permission":"a","emotes":["(unclosed"]}]},"script":[]})");
  CHECK(regex.find("$.config.permissions[0].emotes[0]") != std::string::npos);
}

TEST_CASE("a scenario writes back to text that parses to the same script") {
  scenario_text t;
  t.name = "round \"trip\"";
  t.emotes = {"../fixtures/basic"};
  t.seed = 4;
  t.config_json = R"({"cooldown_mode":"stop"})";
  t.ticks = 50;
  t.script = {{0, R"({"op":"player.join","player":"a","position":[0,64,0]})", 0},
              {3, R"({"op":"emote.stop_all"})", 1}};
  const std::string text = write_scenario(t);
  CHECK(text.find("\n    {\"tick\":3,\"op\":\"emote.stop_all\"}") != std::string::npos);
  auto s = parse_scenario(text, "/r/x.json");
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error()));
  CHECK(s->name == t.name);
  CHECK(s->seed == 4);
  CHECK(s->engine.cooldown_mode == sim::cooldown_mode::stop);
  CHECK(s->ticks == 50);
  REQUIRE(s->script.size() == 2);
  CHECK(s->script[0].line == t.script[0].line);
  CHECK(s->script[1].line == t.script[1].line);
  t.script.clear();
  CHECK(parse_scenario(write_scenario(t), "x.json").ok());
}
