#include "settings/config.hpp"

#include "settings/listen_address.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>

namespace fs = std::filesystem;
using namespace emote::settings;

namespace {

struct fake_env {
  std::map<std::string, std::string> vars;
  env_lookup lookup() const {
    return [this](const std::string& k) -> std::optional<std::string> {
      auto it = vars.find(k);
      if (it == vars.end()) {
        return std::nullopt;
      }
      return it->second;
    };
  }
  env_names names() const {
    return [this] {
      std::vector<std::string> n;
      for (const auto& [k, v] : vars) {
        n.push_back(k);
      }
      return n;
    };
  }
};

fs::path write_temp(const std::string& name, const std::string& text) {
  const fs::path dir = fs::temp_directory_path() / "emote_sim_config_test";
  fs::create_directories(dir);
  const fs::path p = dir / name;
  std::ofstream(p) << text;
  return p;
}

server_config build_ok(const config_loader& l) {
  auto r = l.build();
  if (!r) {
    FAIL(r.error().text());
  }
  return std::move(r).value();
}

std::string build_error(const config_loader& l) {
  auto r = l.build();
  REQUIRE_FALSE(r.ok());
  return r.error().text();
}

} // namespace

TEST_CASE("listen addresses: tcp, bracketed IPv6 and unix sockets") {
  auto a = parse_listen_address("127.0.0.1:25580");
  REQUIRE(a.ok());
  CHECK(a->type == listen_address::kind::tcp);
  CHECK(a->host == "127.0.0.1");
  CHECK(a->port == 25580);
  CHECK(a->text() == "127.0.0.1:25580");

  auto v6 = parse_listen_address("[::1]:0");
  REQUIRE(v6.ok());
  CHECK(v6->host == "::1");
  CHECK(v6->port == 0);
  CHECK(v6->text() == "[::1]:0");

  auto u = parse_listen_address("unix:/tmp/emote.sock");
  REQUIRE(u.ok());
  CHECK(u->type == listen_address::kind::unix_socket);
  CHECK(u->path == "/tmp/emote.sock");
  CHECK(u->text() == "unix:/tmp/emote.sock");

  CHECK_FALSE(parse_listen_address("localhost").ok());
  CHECK_FALSE(parse_listen_address(":80").ok());
  CHECK_FALSE(parse_listen_address("host:65536").ok());
  CHECK_FALSE(parse_listen_address("host:8x").ok());
  CHECK_FALSE(parse_listen_address("::1:80").ok());
  CHECK_FALSE(parse_listen_address("unix:").ok());
  CHECK_FALSE(parse_listen_address("unix:/" + std::string(200, 'a')).ok());
}

TEST_CASE("config defaults") {
  config_loader l;
  const auto cfg = build_ok(l);
  REQUIRE(cfg.listen.size() == 1);
  CHECK(cfg.listen[0].text() == "127.0.0.1:25580");
  CHECK(cfg.clock == clock_mode::realtime);
  CHECK(cfg.tps == 20);
  CHECK(cfg.engine.seed == 0);
  CHECK(cfg.engine.max_active_display_entities == 512);
  CHECK(cfg.engine.cooldown_mode == emote::sim::cooldown_mode::start);
  CHECK(cfg.engine.max_players == 10000);
  REQUIRE(cfg.engine.permissions.size() == 1);
  CHECK(cfg.engine.permissions[0].permission == "emote.default");
  CHECK(cfg.limits.max_line_bytes == 1048576);
  CHECK(cfg.limits.max_inbound_messages == 65536);
  CHECK(cfg.limits.max_outbound_bytes == 16777216);
  CHECK(cfg.limits.max_connections == 256);
  CHECK_FALSE(cfg.metrics.has_value());
  CHECK(cfg.record.empty());
  CHECK(cfg.emotes == fs::path("emotes"));
  CHECK(cfg.effective_json == "{}");
}

TEST_CASE("config precedence: defaults < file < environment < command line") {
  const auto file = write_temp("precedence.json", R"({
    // comments and trailing commas are accepted
    "schema_version": 1,
    "emotes": "my_emotes",
    "seed": 5,
    "tps": 10,
    "clock": "manual",
    "limits": {"max_connections": 7, "max_line_bytes": 4096,},
    "auth": {"controller_token": "secret"},
  })");
  fake_env env;
  env.vars["EMOTE_SIM_SEED"] = "6";
  env.vars["EMOTE_SIM_LIMITS_MAX_CONNECTIONS"] = "8";
  env.vars["EMOTE_SIM_LISTEN"] = "127.0.0.1:0, unix:/tmp/x.sock";
  config_loader l;
  REQUIRE_FALSE(l.add_file(file));
  REQUIRE_FALSE(l.add_environment(env.lookup(), env.names()));
  REQUIRE_FALSE(l.set("seed", "7", "--seed"));
  const auto cfg = build_ok(l);
  CHECK(cfg.engine.seed == 7);              // command line wins
  CHECK(cfg.limits.max_connections == 8);   // environment beats file
  CHECK(cfg.limits.max_line_bytes == 4096); // file beats defaults
  CHECK(cfg.limits.max_outbound_bytes == 16777216);
  CHECK(cfg.tps == 10);
  CHECK(cfg.clock == clock_mode::manual);
  CHECK(cfg.auth.controller_token == "secret");
  REQUIRE(cfg.listen.size() == 2);
  CHECK(cfg.listen[1].type == listen_address::kind::unix_socket);
  // relative paths in a file are relative to the file's folder
  CHECK(cfg.emotes == (file.parent_path() / "my_emotes").lexically_normal());
  // the effective config blanks tokens
  CHECK(cfg.effective_json.find("secret") == std::string::npos);
  CHECK(cfg.effective_json.find("\"seed\":7") != std::string::npos);
}

TEST_CASE("an invalid config names the key and the layer") {
  SUBCASE("unknown key in a file") {
    config_loader l;
    auto err = l.add_json(R"({"limits": {"max_lines": 3}})", "a.json", ".");
    REQUIRE(err);
    CHECK(err->key == "limits.max_lines");
    CHECK(err->text() == "config: limits.max_lines (from a.json): unknown key");
    // From a file, the source is FILE:LINE:COLUMN of the value.
    const auto file = write_temp("unknown.json", "{\n  \"limits\": {\"max_lines\": 3}}");
    config_loader f;
    auto ferr = f.add_file(file);
    REQUIRE(ferr);
    CHECK(ferr->text() ==
          "config: limits.max_lines (from " + file.string() + ":2:27): unknown key");
  }
  SUBCASE("wrong type") {
    config_loader l;
    REQUIRE_FALSE(l.add_json(R"({"tps": "fast"})", "a.json", "."));
    CHECK(build_error(l) == "config: tps (from a.json): must be an integer between 1 and 1000");
  }
  SUBCASE("out of range from the environment") {
    fake_env env;
    env.vars["EMOTE_SIM_LIMITS_MAX_LINE_BYTES"] = "10";
    config_loader l;
    REQUIRE_FALSE(l.add_environment(env.lookup(), env.names()));
    CHECK(build_error(l) == "config: limits.max_line_bytes (from EMOTE_SIM_LIMITS_MAX_LINE_BYTES): "
                            "must be an integer between 64 and 1073741824 (got 10)");
  }
  SUBCASE("not an integer on the command line") {
    config_loader l;
    REQUIRE_FALSE(l.set("seed", "abc", "--seed"));
    CHECK(build_error(l) == "config: seed (from --seed): must be an integer between "
                            "-9223372036854775808 and 9223372036854775807");
  }
  SUBCASE("environment and command-line text must be UTF-8, as a file must be") {
    config_loader l;
    auto err = l.set("listen", "unix:/tmp/\xff.sock", "EMOTE_SIM_LISTEN");
    REQUIRE(err);
    CHECK(err->text() == "config: listen (from EMOTE_SIM_LISTEN): is not valid UTF-8");
  }
  SUBCASE("the program's variables that are not keys are not unknown") {
    fake_env env;
    env.vars["EMOTE_SIM_CONFIG"] = "/etc/emote-sim.json";
    env.vars["EMOTE_SIM_TOKEN"] = "t";
    env.vars["EMOTE_SIM_VIEWER_DIR"] = "/usr/local/share/emote-sim/viewer";
    config_loader l;
    CHECK_FALSE(l.add_environment(env.lookup(), env.names()));
  }
  SUBCASE("unknown environment variable") {
    fake_env env;
    env.vars["EMOTE_SIM_LISTN"] = "x";
    config_loader l;
    auto err = l.add_environment(env.lookup(), env.names());
    REQUIRE(err);
    CHECK(err->key == "EMOTE_SIM_LISTN");
  }
  SUBCASE("bad listen address") {
    config_loader l;
    REQUIRE_FALSE(l.add_json(R"({"listen": ["127.0.0.1:25580", "nope"]})", "a.json", "."));
    CHECK(build_error(l) == "config: listen[1] (from a.json): expected HOST:PORT or unix:PATH");
  }
  SUBCASE("clock, cooldown_mode, schema_version, metrics") {
    config_loader a;
    REQUIRE_FALSE(a.add_json(R"({"clock": "fast"})", "f", "."));
    CHECK(build_error(a).starts_with("config: clock (from f)"));
    config_loader b;
    REQUIRE_FALSE(b.add_json(R"({"cooldown_mode": "end"})", "f", "."));
    CHECK(build_error(b).starts_with("config: cooldown_mode (from f)"));
    config_loader c;
    REQUIRE_FALSE(c.add_json(R"({"schema_version": 2})", "f", "."));
    CHECK(build_error(c) == "config: schema_version (from f): must be 1");
    config_loader d;
    REQUIRE_FALSE(d.add_json(R"({"metrics": "unix:/m.sock"})", "f", "."));
    CHECK(build_error(d) == "config: metrics (from f): must be a TCP HOST:PORT address");
  }
  SUBCASE("JSON syntax error in a file names FILE:LINE:COLUMN") {
    const auto file = write_temp("bad.json", "{\n  \"seed\": 1\n  \"tps\": 2}");
    config_loader l;
    auto err = l.add_file(file);
    REQUIRE(err);
    CHECK(err->text() == "config: " + file.string() + ":3:3: invalid JSON: expected ',' or '}'");
  }
  SUBCASE("an invalid value in a file names FILE:LINE:COLUMN of the value") {
    const auto file = write_temp("range.json", "{\n  // comment\n  \"tps\": 0,\n}");
    config_loader l;
    REQUIRE_FALSE(l.add_file(file));
    CHECK(build_error(l) == "config: tps (from " + file.string() +
                                ":3:10): must be an integer between 1 and 1000 (got 0)");
    const auto nested =
        write_temp("nested.json",
                   "{\"permissions\": [\n  {\"permission\": \"a\", \"emotes\": [\"*\", \"x(\"]}]}");
    config_loader n;
    REQUIRE_FALSE(n.add_file(nested));
    CHECK(build_error(n).starts_with("config: permissions[0].emotes[1] (from " + nested.string() +
                                     ":2:39): is neither *, an identifier nor a valid regular "
                                     "expression: "));
  }
  SUBCASE("missing file") {
    config_loader l;
    auto err = l.add_file("/nonexistent/emote-sim.json");
    REQUIRE(err);
    CHECK(err->text() == "config: /nonexistent/emote-sim.json: cannot open the config file");
  }
}

TEST_CASE("permissions: access rules, cooldown modifiers and idle settings") {
  config_loader l;
  REQUIRE_FALSE(l.add_json(R"({"permissions": [
      {"permission": "emote.vip", "emotes": ["demo:.*"], "cooldown": "x0.5",
       "idle": {"delay": "200t", "emote": ["demo:a", 40, "demo:b", 60]}},
      {"permission": "emote.default", "emotes": ["*"], "cooldown": "95t",
       "idle": {"delay": "10s", "emote": ["demo:sit", "demo:.*"]}}
    ], "disabled": [" demo:x ", "", "demo:x", "demo:y"]})",
                           "f", "."));
  const auto cfg = build_ok(l);
  const auto& p = cfg.engine.permissions;
  REQUIRE(p.size() == 2);
  CHECK(p[0].permission == "emote.vip");
  REQUIRE(p[0].cooldown);
  CHECK(p[0].cooldown->is_factor);
  CHECK(p[0].cooldown->factor == 0.5);
  REQUIRE(p[0].idle);
  CHECK(p[0].idle->delay == 200);
  CHECK(p[0].idle->emotes == std::vector<std::string>{"demo:a", "demo:b"});
  CHECK(p[0].idle->weights == std::vector<std::int32_t>{40, 60});
  CHECK_FALSE(p[1].cooldown->is_factor);
  CHECK(p[1].cooldown->ticks == 95);
  CHECK(p[1].idle->delay == 200);
  CHECK(p[1].idle->weights.empty());
  CHECK(cfg.engine.disabled == std::vector<std::string>{"demo:x", "demo:y"});

  auto bad = [](const char* json) {
    config_loader b;
    REQUIRE_FALSE(b.add_json(json, "f", "."));
    return build_error(b);
  };
  CHECK(bad(R"({"permissions": [{"permission": "a", "emotes": ["*"]},
                                {"permission": "a", "emotes": ["*"]}]})") ==
        "config: permissions[1].permission (from f): duplicate permission 'a'");
  CHECK(bad(R"({"permissions": [{"permission": "a", "emotes": ["demo:(" ]}]})")
            .starts_with("config: permissions[0].emotes[0] (from f): is neither *"));
  CHECK(bad((R"({"permissions": [{"permission": "a", "emotes": [")" + std::string(1025, 'x') +
             R"(|"]}]})")
                .c_str()) == "config: permissions[0].emotes[0] (from f): regular expression is "
                             "longer than 1024 bytes");
  // Deep nesting and large repetitions are RE2's to bound: an error, never a crash.
  {
    // Deep nesting is parsed without recursion; a repetition count RE2 cannot read makes `{`
    // a literal (RE2 syntax). Both compile, neither crashes.
    config_loader deep;
    REQUIRE_FALSE(deep.add_json(R"({"permissions": [{"permission": "a", "emotes": [")" +
                                    std::string(500, '(') + std::string(500, ')') + R"("]}]})",
                                "f", "."));
    CHECK(build_ok(deep).engine.permissions[0].emotes[0].size() == 1000);
    config_loader literal;
    REQUIRE_FALSE(literal.add_json(
        R"({"permissions": [{"permission": "a", "emotes": ["x{4444444444444444444}"]}]})", "f",
        "."));
    CHECK(build_ok(literal).engine.permissions.size() == 1);
  }
  CHECK(bad(R"x({"permissions": [{"permission": "a", "emotes": ["x{1000}{1000}"]}]})x")
            .starts_with("config: permissions[0].emotes[0] (from f): is neither *"));
  // ECMAScript-only constructs are not RE2: backreferences and lookaround are refused.
  CHECK(bad(R"x({"permissions": [{"permission": "a", "emotes": ["(a)\\1"]}]})x")
            .starts_with("config: permissions[0].emotes[0] (from f): is neither *"));
  CHECK(bad(R"x({"permissions": [{"permission": "a", "emotes": ["a(?=b)"]}]})x")
            .starts_with("config: permissions[0].emotes[0] (from f): is neither *"));
  CHECK(bad(R"({"permissions": [{"permission": "a", "emotes": ["*"], "cooldown": "x-1"}]})") ==
        "config: permissions[0].cooldown (from f): factor must be a finite number >= 0");
  CHECK(bad(R"({"permissions": [{"permission": "a", "emotes": ["*"], "cooldown": "5m"}]})") ==
        "config: permissions[0].cooldown (from f): must be a valid Minecraft time: invalid unit");
  CHECK(bad(R"({"permissions": [{"permission": "a", "emotes": ["*"],
                                 "idle": {"delay": "0t", "emote": ["a:b"]}}]})") ==
        "config: permissions[0].idle.delay (from f): must be a valid Minecraft time: tick count "
        "too low");
  CHECK(bad(R"({"permissions": [{"permission": "a", "emotes": ["*"],
                                 "idle": {"emote": ["a:b", 40, "a:c", 500]}}]})") ==
        "config: permissions[0].idle.emote[3] (from f): must be an integer between 1 and 100");
  CHECK(bad(R"({"permissions": [{"permission": "a", "emotes": ["*"],
                                 "idle": {"emote": ["a:.*", 40, "a:c", 60]}}]})") ==
        "config: permissions[0].idle.emote[0] (from f): must be a valid lowercase Minecraft "
        "identifier (patterns are only allowed in the equal-weight form)");
  CHECK(bad(R"({"permissions": [{"permission": "a", "emotes": ["*"], "cooldown": "x1e999"}]})") ==
        "config: permissions[0].cooldown (from f): factor must be a finite number >= 0");
  // A factor too small for binary64 reads as zero (the one decimal reader), not as infinity.
  {
    config_loader tiny;
    REQUIRE_FALSE(tiny.add_json(
        R"({"permissions": [{"permission": "a", "emotes": ["*"], "cooldown": "x1e-400"}]})", "f",
        "."));
    CHECK(build_ok(tiny).engine.permissions.size() == 1);
  }
  CHECK(bad(R"({"permissions": [{"permission": "a", "emotes": ["*"], "cooldown": "xfast"}]})") ==
        "config: permissions[0].cooldown (from f): must be a time string or xFACTOR (e.g. "
        "\"95t\", \"x0.5\")");
  // Permission names are trimmed, so " a" and "a" are the same permission.
  CHECK(bad(R"({"permissions": [{"permission": "a", "emotes": ["*"]},
                                {"permission": " a ", "emotes": ["*"]}]})") ==
        "config: permissions[1].permission (from f): duplicate permission 'a'");
  CHECK(bad(R"({"permissions": [{"permission": "a", "emotes": ["*"],
                                 "idle": {"emote": ["a:b", 40, "a:c", 50]}}]})") ==
        "config: permissions[0].idle.emote (from f): weights must total 100 (got 90)");
  CHECK(bad(R"({"permissions": [{"permission": "a", "emotes": ["*"],
                                 "idle": {"emote": ["a:b", "a:b"]}}]})") ==
        "config: permissions[0].idle.emote[1] (from f): repeats 'a:b'");
  CHECK(bad(R"({"permissions": [{"permission": " ", "emotes": ["*"]}]})") ==
        "config: permissions[0].permission (from f): must not be blank");
  CHECK(bad(R"({"permissions": [{"emotes": ["*"]}]})") ==
        "config: permissions[0].permission (from f): is required");
  CHECK(bad(R"({"permissions": [{"permission": "a", "emotes": ["*"], "colour": 1}]})") ==
        "config: permissions[0].colour (from f): unknown key");

  // Environment/command line take permissions as JSON text.
  config_loader e;
  REQUIRE_FALSE(e.set("permissions", R"([{"permission":"emote.default","emotes":["a:b"]}])",
                      "EMOTE_SIM_PERMISSIONS"));
  CHECK(build_ok(e).engine.permissions[0].emotes == std::vector<std::string>{"a:b"});
}

TEST_CASE("the effective config reads back as a layer") {
  config_loader l;
  REQUIRE_FALSE(l.add_json(R"({"seed": 42, "limits": {"max_players": 5},
                               "auth": {"observer_token": "t"}, "disabled": ["a:b"]})",
                           "f", "/base"));
  const auto first = build_ok(l);
  config_loader again;
  REQUIRE_FALSE(again.add_json(first.effective_json, "recording", "/elsewhere"));
  const auto second = build_ok(again);
  CHECK(second.engine.seed == 42);
  CHECK(second.engine.max_players == 5);
  CHECK(second.engine.disabled == std::vector<std::string>{"a:b"});
  CHECK(second.auth.observer_token.empty());
  CHECK(second.effective_json == first.effective_json);
}

TEST_CASE("the table: names, flags and variables follow one rule; defaults are the fields'") {
  for (const auto& k : config_keys()) {
    std::string flag;
    std::string env = "EMOTE_SIM_";
    for (const char c : k.name) {
      flag += c == '.' || c == '_' ? '-' : c;
      env += c == '.' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    CHECK_MESSAGE(k.flag == flag, k.name);
    CHECK_MESSAGE(k.env == env, k.name);
    CHECK_MESSAGE(!k.help.empty(), k.name);
    CHECK_MESSAGE(static_cast<bool>(k.apply), k.name);
    CHECK(find_config_key(k.name) == &k);
  }
  // The engine's and the server's own default-constructed settings agree with the table's
  // defaults (the table's are what a configuration without the key gets).
  config_loader l;
  const auto cfg = build_ok(l);
  const emote::sim::engine_config engine;
  CHECK(cfg.engine.seed == engine.seed);
  CHECK(cfg.engine.max_active_display_entities == engine.max_active_display_entities);
  CHECK(cfg.engine.cooldown_mode == engine.cooldown_mode);
  CHECK(cfg.engine.disabled == engine.disabled);
  CHECK(cfg.engine.permissions == engine.permissions);
  CHECK(cfg.engine.max_players == engine.max_players);
  CHECK(cfg.engine.caches == engine.caches);
  const limits_config limits;
  CHECK(cfg.limits.max_line_bytes == limits.max_line_bytes);
  CHECK(cfg.limits.max_inbound_messages == limits.max_inbound_messages);
  CHECK(cfg.limits.max_inbound_bytes == limits.max_inbound_bytes);
  CHECK(cfg.limits.max_outbound_bytes == limits.max_outbound_bytes);
  CHECK(cfg.limits.max_connections == limits.max_connections);
  const server_config plain;
  CHECK(cfg.tps == plain.tps);
  CHECK(cfg.clock == plain.clock);
  CHECK(cfg.record_frames == plain.record_frames);
}

TEST_CASE("caches: check_caches and the memo sizes (powers of two)") {
  config_loader l;
  REQUIRE_FALSE(l.set("check_caches", "true", "--check-caches"));
  REQUIRE_FALSE(l.set("memo.decomposition_slots", "1024", "--memo-decomposition-slots"));
  const auto cfg = build_ok(l);
  CHECK(cfg.engine.caches.mode == emote::core::cache_mode::check);
  CHECK(cfg.engine.caches.decomposition_slots == 1024);
  CHECK(cfg.engine.caches.transform_text_slots == 32768);
  config_loader bad;
  REQUIRE_FALSE(bad.set("memo.transform_text_slots", "1000", "--memo-transform-text-slots"));
  CHECK(build_error(bad) == "config: memo.transform_text_slots (from --memo-transform-text-slots): "
                            "must be a power of two from 16 to 16777216");
}

TEST_CASE("64-bit integers are exact from every layer") {
  const auto file = write_temp("seed.json", "{\"seed\": 9007199254740993}");
  config_loader f;
  REQUIRE_FALSE(f.add_file(file));
  const auto from_file = build_ok(f);
  CHECK(from_file.engine.seed == 9007199254740993);
  CHECK(from_file.effective_json == R"({"seed":9007199254740993})");
  config_loader again;
  REQUIRE_FALSE(again.add_json(from_file.effective_json, "recording", "/"));
  CHECK(build_ok(again).engine.seed == 9007199254740993);
  // A repeated key is an error in a hand-written file, at the second occurrence.
  const auto twice = write_temp("twice.json", "{\"seed\": 1,\n \"seed\": 9007199254740993}");
  config_loader repeated;
  auto dup = repeated.add_file(twice);
  REQUIRE(dup);
  CHECK(dup->text().starts_with("config: " + twice.string() + ":2:"));
  CHECK(dup->text().find("duplicate key") != std::string::npos);
  config_loader low;
  REQUIRE_FALSE(low.add_json(R"({"seed": -9223372036854775808})", "f", "/"));
  CHECK(build_ok(low).engine.seed == INT64_MIN);
  config_loader over;
  REQUIRE_FALSE(over.add_json(R"({"seed": 9223372036854775808})", "f", "/"));
  CHECK(build_error(over) == "config: seed (from f): must be an integer between "
                             "-9223372036854775808 and 9223372036854775807");
  fake_env env;
  env.vars["EMOTE_SIM_SEED"] = "-9007199254740993";
  config_loader e;
  REQUIRE_FALSE(e.add_environment(env.lookup(), env.names()));
  CHECK(build_ok(e).engine.seed == -9007199254740993);
}

TEST_CASE("JSON text from the environment names the variable, line and column") {
  fake_env env;
  env.vars["EMOTE_SIM_PERMISSIONS"] = R"([{"permission": "a", "emotes": ["x("]}])";
  config_loader l;
  REQUIRE_FALSE(l.add_environment(env.lookup(), env.names()));
  CHECK(build_error(l).starts_with(
      "config: permissions[0].emotes[0] (from EMOTE_SIM_PERMISSIONS:1:33): is neither *"));
  fake_env broken;
  broken.vars["EMOTE_SIM_LISTEN"] = R"(["a",)";
  config_loader b;
  auto err = b.add_environment(broken.lookup(), broken.names());
  REQUIRE(err);
  CHECK(err->text() ==
        "config: listen (from EMOTE_SIM_LISTEN:1:6): invalid JSON: unexpected end of input");
}

TEST_CASE("render keys (render.md §2): defaults, layers and the entity id range") {
  const server_config d = build_ok(config_loader{});
  CHECK(d.render.entity_id_base == 1000000000);
  CHECK(d.render.display_range == 160);
  CHECK(d.render.player_range == 512);
  CHECK(d.render.view_distance == 10);
  CHECK(d.render.uuid_seed == 0);

  config_loader l;
  const auto added = l.add_json(R"({"render": {"entity_id_base": 1000, "display_range": 96,
                                               "view_distance": 6, "uuid_seed": -5}})",
                                "a.json", ".");
  REQUIRE_MESSAGE(!added, (added ? added->text() : ""));
  REQUIRE_FALSE(l.set("render.player_range", "64", "--render-player-range"));
  const server_config c = build_ok(l);
  CHECK(c.render.entity_id_base == 1000);
  CHECK(c.render.display_range == 96);
  CHECK(c.render.player_range == 64);
  CHECK(c.render.view_distance == 6);
  CHECK(c.render.uuid_seed == -5);

  // entity_id_base + M <= 2^31 - 1, M = max_active_display_entities (2^20 when 0).
  config_loader edge;
  REQUIRE_FALSE(edge.add_json(R"({"render": {"entity_id_base": 2147483135}})", "a.json", "."));
  CHECK(build_ok(edge).render.entity_id_base == 2147483135); // + 512 = 2^31 - 1
  config_loader over;
  REQUIRE_FALSE(over.add_json(R"({"render": {"entity_id_base": 2147483136}})", "b.json", "."));
  CHECK(build_error(over) ==
        "config: render.entity_id_base (from b.json): render.entity_id_base (2147483136) plus "
        "max_active_display_entities (512) must not exceed 2147483647");
  // Set alone, the display limit is the key named.
  config_loader limit;
  REQUIRE_FALSE(
      limit.set("max_active_display_entities", "2147483647", "--max-active-display-entities"));
  CHECK(build_error(limit).starts_with(
      "config: max_active_display_entities (from --max-active-display-entities): "));
  config_loader unlimited;
  REQUIRE_FALSE(unlimited.add_json(
      R"({"max_active_display_entities": 0, "render": {"entity_id_base": 2146435072}})", "c.json",
      "."));
  CHECK(build_error(unlimited).find("(1048576)") != std::string::npos);
  config_loader vd;
  REQUIRE_FALSE(vd.set("render.view_distance", "40", "--render-view-distance"));
  CHECK(build_error(vd).find("between 2 and 32") != std::string::npos);
}

TEST_CASE("the configuration sets the display range from render.entity_id_base") {
  // render.md §2: the engine refuses player entity ids in [entity_id_base, base + M].
  emote::settings::config_loader l;
  REQUIRE_FALSE(l.add_json(R"({"render":{"entity_id_base":5000},"max_active_display_entities":10})",
                           "test", "/"));
  const auto cfg = l.build();
  REQUIRE(cfg.ok());
  CHECK(cfg->engine.display_entity_ids_first == 5000);
  CHECK(cfg->engine.display_entity_ids_last == 5010);
}

TEST_CASE("gate entries (gate.md §1): names, addresses, refusals naming the key") {
  SUBCASE("LISTEN=BACKEND and NAME=LISTEN=BACKEND, from a repeated option") {
    config_loader l;
    REQUIRE_FALSE(
        l.set_list("gate", {"25566=127.0.0.1:25565", "lobby=0.0.0.0:0=backend:25567"}, "--gate"));
    auto c = l.build();
    REQUIRE(c);
    REQUIRE(c->gates.size() == 2);
    CHECK(c->gates[0].name == "gate1");
    CHECK(c->gates[0].listen.text() == "127.0.0.1:25566");
    CHECK(c->gates[0].backend.text() == "127.0.0.1:25565");
    CHECK(c->gates[1].name == "lobby");
    CHECK(c->gates[1].listen.text() == "0.0.0.0:0");
    CHECK(c->gates[1].backend.text() == "backend:25567");
    CHECK(c->limits.gate_max_frame_bytes == 2097151);
  }
  SUBCASE("from the environment, comma separated") {
    fake_env env;
    env.vars["EMOTE_SIM_GATE"] = "a=1=2,b=3=4";
    env.vars["EMOTE_SIM_LIMITS_GATE_CONNECT_TIMEOUT_MS"] = "250";
    config_loader l;
    REQUIRE_FALSE(l.add_environment(env.lookup(), env.names()));
    auto c = l.build();
    REQUIRE(c);
    CHECK(c->gates.size() == 2);
    CHECK(c->limits.gate_connect_timeout_ms == 250);
  }
  SUBCASE("refusals") {
    const auto error = [](std::vector<std::string> items) {
      config_loader l;
      REQUIRE_FALSE(l.set_list("gate", items, "--gate"));
      return build_error(l);
    };
    CHECK(error({"127.0.0.1:1"}) == "config: gate[0] (from --gate): must be [NAME=]LISTEN=BACKEND, "
                                    "e.g. 0.0.0.0:25566=127.0.0.1:25565");
    CHECK(error({"a=1=unix:/tmp/x.sock"}).find("gate[0] (from --gate): backend address:") !=
          std::string::npos);
    CHECK(error({"a=1=2", "a=3=4"}) == "config: gate[1] (from --gate): the name 'a' is used twice");
    CHECK(error({"1=2", "1=3"}).find("listens on 127.0.0.1:1 twice") != std::string::npos);
    CHECK(error({"a b=1=2"}).find("must be 1 to 64 letters") != std::string::npos);
  }
}
