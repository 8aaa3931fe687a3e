#include "protocol/config.hpp"
#include "protocol/json.hpp"
#include "protocol/scenario.hpp"

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

std::optional<std::string> config_error(std::string_view json, sim::engine_config& out) {
  rapidjson::Document d;
  REQUIRE_FALSE(parse_json(json, d));
  return apply_engine_config(out, d, "$.config");
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
  CHECK(error_of("[]") == "t.json: $: must be an object");
  CHECK(error_of(R"({"scenario":2})") == "t.json: $.scenario: must be 1");
  CHECK(error_of(R"({"tiks":5})") == "t.json: $.tiks: unknown key");
  CHECK(error_of(R"({"script":[{"op":"ping"}]})") == "t.json: $.script[0].tick: is required");
  CHECK(error_of(R"({"script":[{"tick":-1,"op":"ping"}]})") ==
        "t.json: $.script[0].tick: must be an integer >= 0");
  CHECK(error_of(R"({"script":[5]})") == "t.json: $.script[0]: must be an object");
  CHECK(error_of(R"({"ticks":10,"script":[{"tick":3,"op":"ping"},{"tick":10,"op":"ping"}]})") ==
        "t.json: $.script[1].tick: is not below ticks (10)");
  CHECK(error_of(R"({"script":[{"tick":0,"op":"hello"}]})")
            .starts_with("t.json: $.script[0].op: hello is not allowed"));
  CHECK(error_of(R"({"script":[{"tick":0,"op":"clock.step"}]})")
            .starts_with("t.json: $.script[0].op: clock.step"));
  CHECK(error_of(R"({"ticks":0})") == "t.json: $.ticks: must be an integer >= 1");
  CHECK(error_of(R"({"emotes":[3]})") == "t.json: $.emotes[0]: must be a non-empty string");
  CHECK(error_of(R"({"config":{"cooldown_mode":"later"}})") ==
        "t.json: $.config.cooldown_mode: must be \"start\" or \"stop\"");
  CHECK(error_of(R"({"expect":[{"event":"nope"}]})") ==
        "t.json: $.expect[0].event: unknown event type or prefix: nope");
  CHECK(error_of(R"({"a":1,})").starts_with("t.json: $.a: unknown key"));
  CHECK(error_of("{").starts_with("t.json: invalid JSON at offset 1"));
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

TEST_CASE("engine configuration keys") {
  sim::engine_config cfg;
  auto e = config_error(R"J({
    "schema_version": 1, "emotes": "emotes", "listen": ["127.0.0.1:25580"], "clock": "manual", "tps": 20,
    "seed": -3, "max_active_display_entities": 0, "cooldown_mode": "stop",
    "disabled": [" demo:disabled ", "demo:disabled", "demo:other"],
    "permissions": [
      {"permission": "emote.vip", "emotes": ["demo:.*"], "cooldown": "x0.5", "idle": {"delay": "200t", "emote": ["demo:a", 30, "demo:b", 70]}},
      {"permission": "emote.default", "emotes": ["*"], "cooldown": "95t", "idle": {"emote": ["demo:sit", "demo:(a|b)"]}}
    ],
    "auth": {"controller_token": "", "observer_token": "x"},
    "limits": {"max_players": 50, "max_line_bytes": 1048576},
    "metrics": "", "record": ""
  })J",
                        cfg);
  REQUIRE_FALSE_MESSAGE(e, (e ? *e : ""));
  CHECK(cfg.seed == -3);
  CHECK(cfg.max_active_display_entities == 0);
  CHECK(cfg.cooldown_mode == sim::cooldown_mode::stop);
  CHECK(cfg.disabled == std::vector<std::string>{"demo:disabled", "demo:other"});
  CHECK(cfg.max_players == 50);
  REQUIRE(cfg.permissions.size() == 2);
  const auto& vip = cfg.permissions[0];
  CHECK(vip.permission == "emote.vip");
  REQUIRE(vip.cooldown);
  CHECK(vip.cooldown->is_factor);
  CHECK(vip.cooldown->factor == 0.5);
  REQUIRE(vip.idle);
  CHECK(vip.idle->delay == 200);
  CHECK(vip.idle->emotes == std::vector<std::string>{"demo:a", "demo:b"});
  CHECK(vip.idle->weights == std::vector<std::int32_t>{30, 70});
  const auto& def = cfg.permissions[1];
  CHECK_FALSE(def.cooldown->is_factor);
  CHECK(def.cooldown->ticks == 95);
  CHECK(def.idle->delay == 3600);
  CHECK(def.idle->weights.empty());
}

TEST_CASE("invalid configuration names the key") {
  sim::engine_config cfg;
  const std::pair<const char*, const char*> cases[] = {
      {R"({"bogus":1})", "$.config.bogus: unknown configuration key"},
      {R"({"max_active_display_entities":-1})",
       "$.config.max_active_display_entities: must be between 0 and 2147483647"},
      {R"({"seed":"7"})", "$.config.seed: must be an integer"},
      {R"({"disabled":["  "]})", "$.config.disabled[0]: must not be blank"},
      {R"({"disabled":["\u3000"]})", "$.config.disabled[0]: must not be blank"},
      {R"({"permissions":[{"permission":"\u2003","emotes":[]}]})",
       "$.config.permissions[0].permission: must be a non-blank string"},
      {R"({"limits":{"max_players":0}})",
       "$.config.limits.max_players: must be between 1 and 2147483647"},
      {R"({"limits":{"max_things":3}})", "$.config.limits.max_things: unknown configuration key"},
      {R"({"tps":30})", "$.config.tps: must be between 20 and 20"},
      {R"({"permissions":[{"emotes":["*"]}]})", "$.config.permissions[0].permission: is required"},
      {R"({"permissions":[{"permission":"a","emotes":["(unclosed"]}]})",
       "$.config.permissions[0].emotes[0]: invalid regular expression"},
      {R"({"permissions":[{"permission":"a","emotes":[]},{"permission":"a","emotes":[]}]})",
       "$.config.permissions[1].permission: duplicate permission name: a"},
      {R"({"permissions":[{"permission":"a","emotes":[],"cooldown":"x-1"}]})",
       "$.config.permissions[0].cooldown: must be a time like \"95t\" or a factor like \"x0.5\" "
       "(finite, >= 0)"},
      {R"({"permissions":[{"permission":"a","emotes":[],"cooldown":"5q"}]})",
       "$.config.permissions[0].cooldown: must be a valid Minecraft time: invalid unit"},
      {R"({"permissions":[{"permission":"a","emotes":[],"idle":{"delay":"0t","emote":["a:b"]}}]})",
       "$.config.permissions[0].idle.delay: must be a valid Minecraft time: tick count too low"},
      {R"({"permissions":[{"permission":"a","emotes":[],"idle":{"emote":["a:b",50]}}]})",
       "$.config.permissions[0].idle.emote: chances must total 100"},
      {R"({"permissions":[{"permission":"a","emotes":[],"idle":{"emote":["a:b",50,"a:c"]}}]})",
       "$.config.permissions[0].idle.emote: must contain complete id and chance pairs"},
      {R"({"permissions":[{"permission":"a","emotes":[],"idle":{"emote":["a:b",101]}}]})",
       "$.config.permissions[0].idle.emote[1]: must be an integer between 1 and 100"},
      {R"({"permissions":[{"permission":"a","emotes":[],"idle":{"emote":["a:b","a:b"]}}]})",
       "$.config.permissions[0].idle.emote[1]: must not duplicate an earlier entry"},
      {R"({"permissions":[{"permission":"a","emotes":[],"extra":1}]})",
       "$.config.permissions[0].extra: unknown key"},
      {R"({"auth":{"token":"x"}})", "$.config.auth.token: unknown configuration key"},
  };
  for (const auto& [json, message] : cases) {
    auto e = config_error(json, cfg);
    REQUIRE_MESSAGE(e, json);
    CHECK(*e == message);
  }
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
