// The command line: one parser for every subcommand (`--opt=value` and `--opt value`, generated
// help), and every configuration key from the file, the environment and the command line with
// the same validation and message (the configuration table walked row by row). The "exe:" cases
// run the built executable.
#include "process.hpp"

#include "engine/core/identifier.hpp"
#include "server/cli/cli_args.hpp"
#include "server/cli/commands.hpp"
#include "settings/config.hpp"

#include <doctest/doctest.h>

#include <charconv>
#include <cstdlib>
#include <limits>

using namespace emote::server;
using namespace emote::server::testing;
using emote::settings::config_key;
using emote::settings::config_keys;
using emote::settings::config_type;

namespace {

std::filesystem::path data(const std::string& rel) {
  return std::filesystem::path(EMOTE_SIM_TEST_DATA) / "server" / rel;
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
    }
    out += c;
  }
  return out + "\"";
}

// The JSON a file holds for environment / command-line `text` (docs/guide/deployment.md): integers
// and booleans as such, lists as JSON or comma separated, `permissions` as JSON.
std::string file_form(config_type type, std::string_view text) {
  const auto t = emote::core::java_trim(text);
  switch (type) {
  case config_type::integer: {
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
    return !t.empty() && ec == std::errc{} && end == t.data() + t.size() ? std::to_string(n)
                                                                         : json_string(text);
  }
  case config_type::boolean:
    if (t == "true" || t == "1" || t == "yes") {
      return "true";
    }
    if (t == "false" || t == "0" || t == "no" || t.empty()) {
      return "false";
    }
    return json_string(text);
  case config_type::string:
  case config_type::path:
    return json_string(text);
  case config_type::string_list: {
    if (t.starts_with("[")) {
      return std::string(text);
    }
    std::string out = "[";
    std::size_t start = 0;
    while (!t.empty() && start <= t.size()) {
      auto comma = t.find(',', start);
      comma = comma == std::string_view::npos ? t.size() : comma;
      const auto item = emote::core::java_trim(t.substr(start, comma - start));
      if (!item.empty()) {
        out += (out.size() > 1 ? "," : "") + json_string(item);
      }
      start = comma + 1;
    }
    return out + "]";
  }
  case config_type::json:
    return std::string(text);
  }
  return {};
}

// Texts to try for a key: its default and values of every kind, valid and not.
std::vector<std::string> candidates(const config_key& k) {
  std::string d(k.default_json);
  if (d.size() >= 2 && d.front() == '"') {
    d = d.substr(1, d.size() - 2);
  }
  std::vector<std::string> out;
  if (k.type != config_type::path || d.empty() || d.starts_with("/")) {
    out.push_back(d); // relative paths differ by design: the file's folder, the working directory
  }
  switch (k.type) {
  case config_type::integer:
    out.insert(out.end(), {"abc", "1.5", std::to_string(k.min), std::to_string(k.max)});
    if (k.min > std::numeric_limits<std::int64_t>::min()) {
      out.push_back(std::to_string(k.min - 1));
    }
    if (k.max < std::numeric_limits<std::int64_t>::max()) {
      out.push_back(std::to_string(k.max + 1));
    }
    break;
  case config_type::boolean:
    out.insert(out.end(), {"true", "false", "maybe"});
    break;
  case config_type::string:
    out.insert(out.end(), {"", "abc", "manual", "stop", "127.0.0.1:9464", "unix:/m.sock"});
    break;
  case config_type::path:
    out.insert(out.end(), {"", "/tmp/emote_sim_cli_path"});
    break;
  case config_type::string_list:
    out.insert(out.end(), {"", "abc", "[1]", "127.0.0.1:1,127.0.0.1:1", "a:b, c:d"});
    break;
  case config_type::json:
    out.insert(out.end(), {"[]", "{}", "[1]", R"([{"permission":"a","emotes":["x("]}])",
                           R"([{"permission":"a","emotes":["*"],"cooldown":"x0.5"}])"});
    break;
  }
  return out;
}

struct outcome {
  bool ok = false;
  std::string effective; ///< when ok
  std::string key;       ///< when not: the key path, the source and the message
  std::string source;
  std::string message;
};

outcome load(const std::vector<std::string>& argv) {
  const std::vector<std::string_view> views(argv.begin(), argv.end());
  auto args = cli_args::parse(views, serve_cli().options);
  REQUIRE_MESSAGE(args.ok(), (args.ok() ? "" : args.error()));
  auto cfg = load_config(*args, serve_cli().options);
  outcome o;
  if (cfg) {
    o.ok = true;
    o.effective = cfg->effective_json;
    return o;
  }
  // "config: KEY (from SOURCE): MESSAGE" or "config: SOURCE: MESSAGE"
  const std::string& e = cfg.error();
  REQUIRE(e.starts_with("config: "));
  const auto from = e.find(" (from ");
  if (from == std::string::npos) {
    const auto colon = e.find(": ", 8);
    o.source = e.substr(8, colon - 8);
    o.message = e.substr(colon + 2);
    return o;
  }
  const auto close = e.find("): ", from);
  o.key = e.substr(8, from - 8);
  o.source = e.substr(from + 7, close - from - 7);
  o.message = e.substr(close + 3);
  return o;
}

struct scoped_env {
  scoped_env(std::string name, const std::string& value) : name_(std::move(name)) {
    ::setenv(name_.c_str(), value.c_str(), 1);
  }
  ~scoped_env() { ::unsetenv(name_.c_str()); }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

private:
  std::string name_;
};

} // namespace

TEST_CASE("cli: --opt=value and --opt value are the same; flags, operands and --") {
  const cli_option options[] = {value_option("out", "FILE", "output"),
                                value_option("emotes", "DIR", "folders", true),
                                flag_option("json", "as JSON")};
  const std::string_view argv[] = {"a",           "--out=x=y", "--emotes", "e1",
                                   "--emotes=e2", "--json",    "--",       "--not-an-option"};
  auto p = cli_args::parse(argv, options);
  REQUIRE(p.ok());
  CHECK(p->value("out") == "x=y");
  CHECK(p->values("emotes") == std::vector<std::string>{"e1", "e2"});
  CHECK(p->has("json"));
  CHECK(p->positional() == std::vector<std::string>{"a", "--not-an-option"});

  const std::string_view twice[] = {"--out=a", "--out", "b"};
  CHECK(cli_args::parse(twice, options).error() == "option '--out' given twice");
  const std::string_view no_value[] = {"--out"};
  CHECK(cli_args::parse(no_value, options).error() == "option '--out' needs a value");
  const std::string_view flag_value[] = {"--json=yes"};
  CHECK(cli_args::parse(flag_value, options).error() == "option '--json' takes no value");
  const std::string_view unknown[] = {"--colour=red"};
  CHECK(cli_args::parse(unknown, options).error() == "unknown option '--colour'");
  const std::string_view dash[] = {"-x"};
  CHECK(cli_args::parse(dash, options).error() == "unknown option '-x'");
}

TEST_CASE("cli: help is generated from the declared options and the configuration table") {
  const std::string help = cli_help(serve_cli());
  CHECK(help.starts_with("usage: emote-sim serve [--config FILE]"));
  for (const config_key& k : config_keys()) {
    const std::string form =
        "  --" + std::string(k.flag) +
        (k.type == config_type::boolean ? std::string() : " " + std::string(k.value_name));
    CHECK_MESSAGE(help.find(form) != std::string::npos, form);
    CHECK_MESSAGE(help.find(std::string(k.help.substr(0, k.help.find('\n')))) != std::string::npos,
                  k.name);
  }
  CHECK(help.find("--tps N") != std::string::npos);
  CHECK(help.find("(default: 20)") != std::string::npos);
  // Every command's help names each of its options.
  using cli_fn = const cli_command& (*)();
  for (const cli_fn cli :
       {cli_fn{check_cli}, cli_fn{list_cli}, cli_fn{run_cli}, cli_fn{serve_cli}, cli_fn{bot_cli},
        cli_fn{replay_cli}, cli_fn{record_to_scenario_cli}, cli_fn{stress_cli}}) {
    const cli_command& c = cli();
    const std::string h = cli_help(c);
    CHECK(h.starts_with("usage: emote-sim " + std::string(c.name)));
    for (const auto& o : c.options) {
      CHECK_MESSAGE(h.find("--" + std::string(o.name)) != std::string::npos, o.name);
    }
  }
}

TEST_CASE("cli: every configuration key works from the file, the environment and the command "
          "line, with the same validation and message") {
  const auto dir = scratch_dir("cli_table");
  const auto empty = dir / "empty.json";
  std::ofstream(empty) << "{}";
  std::size_t valid = 0;
  std::size_t invalid = 0;
  for (const config_key& k : config_keys()) {
    for (const std::string& text : candidates(k)) {
      CAPTURE(k.name);
      CAPTURE(text);
      // The file: {"key": value} or {"group": {"leaf": value}}.
      const std::string name(k.name);
      const auto dot = name.find('.');
      const std::string value = file_form(k.type, text);
      const std::string json = dot == std::string::npos
                                   ? "{" + json_string(name) + ": " + value + "}"
                                   : "{" + json_string(name.substr(0, dot)) + ": {" +
                                         json_string(name.substr(dot + 1)) + ": " + value + "}}";
      const auto file = dir / "config.json";
      std::ofstream(file, std::ios::trunc) << json;
      const outcome from_file = load({"--config=" + file.string()});

      outcome from_env;
      {
        const scoped_env env(std::string(k.env), text);
        from_env = load({"--config=" + empty.string()});
      }
      std::vector<outcome> from_flags;
      const std::string flag = "--" + std::string(k.flag);
      if (k.type == config_type::string_list) {
        // A list on the command line is the option repeated, one element each.
        if (!text.empty() && !text.starts_with("[")) {
          std::vector<std::string> argv = {"--config=" + empty.string()};
          std::size_t start = 0;
          while (start <= text.size()) {
            auto comma = text.find(',', start);
            comma = comma == std::string::npos ? text.size() : comma;
            argv.push_back(flag + "=" +
                           std::string(emote::core::java_trim(
                               std::string_view(text).substr(start, comma - start))));
            start = comma + 1;
          }
          from_flags.push_back(load(argv));
        }
      } else if (k.type != config_type::boolean) {
        from_flags.push_back(load({"--config=" + empty.string(), flag + "=" + text}));
        from_flags.push_back(load({"--config", empty.string(), flag, text}));
      } else if (value == "true") {
        from_flags.push_back(load({"--config=" + empty.string(), flag}));
      }

      for (const outcome* o : {&from_env}) {
        REQUIRE(o->ok == from_file.ok);
      }
      for (const auto& o : from_flags) {
        REQUIRE(o.ok == from_file.ok);
      }
      if (from_file.ok) {
        ++valid;
        CHECK(from_file.effective.find(dot == std::string::npos
                                           ? json_string(name)
                                           : json_string(name.substr(dot + 1))) !=
              std::string::npos);
        CHECK(from_env.effective == from_file.effective);
        for (const auto& o : from_flags) {
          CHECK(o.effective == from_file.effective);
        }
        continue;
      }
      ++invalid;
      // Same key path and message; the source names the file with line and column, the variable
      // or the flag (with the position inside JSON text when there is one).
      CHECK(from_file.source.starts_with(file.string() + ":1:"));
      CHECK(from_env.key == from_file.key);
      CHECK(from_env.message == from_file.message);
      CHECK((from_env.source == k.env || from_env.source.starts_with(std::string(k.env) + ":1:")));
      for (const auto& o : from_flags) {
        CHECK(o.key == from_file.key);
        CHECK(o.message == from_file.message);
        CHECK((o.source == flag || o.source.starts_with(flag + ":1:")));
      }
    }
  }
  // Each kind of key met valid and invalid values.
  CHECK(valid >= config_keys().size());
  CHECK(invalid >= config_keys().size());
}

TEST_CASE("exe: --opt=value works for every subcommand") {
  const auto dir = scratch_dir("exe_equals");
  const std::string emotes = data("emotes").string();
  std::string out;
  std::string err;

  // serve: the value reaches the configuration (and names the flag).
  CHECK(process::run({"serve", "--config=", "--tps=0"}, dir, nullptr, &err) == 2);
  CHECK(err.find("config: tps (from --tps): must be an integer between 1 and 1000 (got 0)") !=
        std::string::npos);
  // check: flags only; a value is refused.
  CHECK(process::run({"check", "--strict=yes", emotes}, dir, nullptr, &err) == 2);
  CHECK(err.find("option '--strict' takes no value") != std::string::npos);
  CHECK(process::run({"check", "--json", emotes}, dir, &out) == 0);
  CHECK(out.find("\"summary\"") != std::string::npos);
  // list
  CHECK(process::run({"list", "--emotes=" + emotes, "--disabled=t:wave"}, dir, &out, &err) == 0);
  CHECK(out.find("t:wave") != std::string::npos);
  CHECK(out.find("(disabled)") != std::string::npos);
  // run
  const auto scenario = data("scenarios/live.json").string();
  CHECK(process::run(
            {"run", "--out=" + (dir / "run.ndjson").string(), "--emotes=" + emotes, scenario}, dir,
            &out, &err) == 0);
  CHECK(std::filesystem::file_size(dir / "run.ndjson") > 0);
  // bot: the address is parsed from --connect=ADDR.
  CHECK(process::run({"bot", "--connect=nowhere", scenario}, dir, nullptr, &err) == 2);
  CHECK(err.find("--connect nowhere: ") != std::string::npos);
  // replay and record-to-scenario on a recording with only its header.
  const auto rec = dir / "header.ndjson";
  std::ofstream(rec) << R"({"emote_sim_recording":1,"server":"0.1.0","protocol":1,"seed":7,)"
                     << R"("config":{"emotes":)" << json_string(emotes)
                     << R"(},"content_digest":"","started":"2026-01-01T00:00:00Z"})"
                     << "\n";
  CHECK(process::run({"replay", "--log-level=loud", rec.string()}, dir, nullptr, &err) == 2);
  CHECK(err.find("unknown log level 'loud'") != std::string::npos);
  // Expectations need a replay, which needs the recorded content (the digest here is empty).
  CHECK(process::run({"record-to-scenario", rec.string()}, dir, &out, &err) == 2);
  CHECK_MESSAGE(err.find("--expect none needs no replay") != std::string::npos, err);
  CHECK(process::run({"record-to-scenario", "--expect=some", rec.string()}, dir, &out, &err) == 2);
  CHECK(err.find("--expect must be all, lifecycle or none") != std::string::npos);
  CHECK(process::run({"record-to-scenario", "--out=" + (dir / "s.json").string(), "--name=captured",
                      "--expect=none", rec.string()},
                     dir, &out, &err) == 0);
  CHECK(read_file(dir / "s.json").find("\"captured\"") != std::string::npos);
  // stress
  CHECK(process::run({"stress", "--instances=0"}, dir, nullptr, &err) == 2);
  CHECK(err.find("--instances must be an integer 1..1000000") != std::string::npos);
  CHECK(process::run({"stress", "--time=2t", "--instances=1", "--recipients=0", "--unpaced",
                      "--emotes=" + emotes, "--json"},
                     dir, &out, &err) == 0);
  CHECK(out.find("\"instances\":1") != std::string::npos);
}

TEST_CASE("exe: list reads the configuration as serve does, EMOTE_SIM_* included") {
  const auto dir = scratch_dir("exe_list");
  const std::string emotes = data("emotes").string();
  std::string out;
  std::string err;
  // The environment alone.
  CHECK(process::run({"list"}, dir, &out, &err,
                     {"EMOTE_SIM_EMOTES=" + emotes, "EMOTE_SIM_DISABLED=t:wave,t:big"}) == 0);
  CHECK(out.find("t:wave") != std::string::npos);
  CHECK(out.find("t:big") != std::string::npos);
  std::size_t marked = 0;
  for (auto p = out.find("(disabled)"); p != std::string::npos; p = out.find("(disabled)", p + 1)) {
    ++marked;
  }
  CHECK(marked == 2);
  // The file of EMOTE_SIM_CONFIG, its paths relative to it; the environment overrides it.
  std::filesystem::create_directories(dir / "config");
  std::filesystem::copy(data("emotes"), dir / "config" / "content");
  const std::string file = (dir / "config" / "emote-sim.json").string();
  std::ofstream(file) << R"({"emotes": "content", "disabled": ["t:close"]})";
  CHECK(process::run({"list"}, dir, &out, &err, {"EMOTE_SIM_CONFIG=" + file}) == 0);
  CHECK(out.find("t:close") != std::string::npos);
  CHECK(out.find("(disabled)") != std::string::npos);
  CHECK(process::run({"list"}, dir, &out, &err,
                     {"EMOTE_SIM_CONFIG=" + file, "EMOTE_SIM_DISABLED="}) == 0);
  CHECK(out.find("t:close") != std::string::npos);
  CHECK(out.find("(disabled)") == std::string::npos);
  // Without --config or EMOTE_SIM_CONFIG every command reads config/emote-sim.json of the
  // working directory when it exists.
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  const std::string_view none[] = {"--emotes=x"};
  const auto no_config = cli_args::parse(none, list_cli().options);
  const auto found = config_file(*no_config);
  std::filesystem::current_path(cwd);
  CHECK(found == std::filesystem::path("config/emote-sim.json"));
  // The same validation as serve.
  CHECK(process::run({"list"}, dir, &out, &err, {"EMOTE_SIM_TPS=0"}) == 2);
  CHECK(
      err.find("config: tps (from EMOTE_SIM_TPS): must be an integer between 1 and 1000 (got 0)") !=
      std::string::npos);
  CHECK(process::run({"list"}, dir, &out, &err, {"EMOTE_SIM_EMOTES=" + (dir / "none").string()}) ==
        2);
  CHECK(err.find("not a folder") != std::string::npos);
}

TEST_CASE("exe: a configuration error names FILE:LINE:COLUMN") {
  const auto dir = scratch_dir("exe_config_position");
  const auto file = dir / "c.json";
  std::ofstream(file) << "{\n  \"tps\": 20,\n  \"limits\": {\"max_connections\": 0}\n}\n";
  std::string err;
  CHECK(process::run({"serve", "--config=" + file.string()}, dir, nullptr, &err) == 2);
  CHECK(err.find("config: limits.max_connections (from " + file.string() +
                 ":3:33): must be an integer between 1 and 1000000 (got 0)") != std::string::npos);
  std::ofstream(file, std::ios::trunc) << "{\n  \"tps\": 20\n  \"seed\": 1\n}\n";
  CHECK(process::run({"list", "--config", file.string()}, dir, nullptr, &err) == 2);
  CHECK(err.find("config: " + file.string() + ":3:3: invalid JSON: ") != std::string::npos);
}
