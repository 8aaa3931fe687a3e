#include "protocol/scenario.hpp"

#include "engine/core/file_text.hpp"
#include "engine/json/source_reader.hpp"
#include "engine/json/wire_reader.hpp"
#include "engine/json/writer.hpp"
#include "settings/config.hpp"

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>
#include <utility>

namespace emote::protocol {

using json::as_int64;
using json::find_member;
using json::json_out;
using json::to_json;
namespace {

using rapidjson::Value;

constexpr std::int64_t default_tail_ticks = 200;
constexpr std::uintmax_t max_scenario_bytes = std::uintmax_t{64} << 20;

// The entry as the client line it scripts: every member but `tick`, in written order.
std::string without_tick(const Value& entry) {
  std::string line;
  json_out o(line);
  o.ch('{');
  bool first = true;
  for (const auto& m : entry.GetObject()) {
    if (json::string_of(m.name) == "tick") {
      continue;
    }
    if (!first) {
      o.ch(',');
    }
    first = false;
    o.str(json::string_of(m.name));
    o.ch(':');
    o.value(m.value);
  }
  o.ch('}');
  return line;
}

// "<line>:<column>" of the value `path` names, or of its nearest ancestor that exists (a path
// may name a member that is missing, such as a required key).
std::string position_of(const json::json_value& root, std::string path) {
  const json::json_value* v = json::find_path(root, path);
  while (v == nullptr && path.size() > 1) {
    const auto cut = path.find_last_of(".[");
    if (cut == std::string::npos || cut == 0) {
      path = "$";
    } else {
      path.resize(cut);
    }
    v = json::find_path(root, path);
  }
  if (v == nullptr) {
    v = &root;
  }
  return std::to_string(v->line) + ":" + std::to_string(v->column);
}

} // namespace

bool script_op_allowed(std::string_view op) noexcept {
  return op != "hello" && op != "bye" && op != "clock.step";
}

core::result<scenario, std::string> parse_scenario(std::string_view text,
                                                   const std::filesystem::path& file) {
  // Scenario files are written by people: the line/column reader in its relaxed dialect
  // (comments, trailing commas), and every error names file:line:column.
  const std::string where = file.string();
  const json::json_parse_result parsed = json::parse_source(text, json::source_dialect::relaxed);
  if (!parsed.ok) {
    const auto& e = parsed.error;
    std::string m = where + ":" + std::to_string(e.line) + ":" + std::to_string(e.column) + ": ";
    if (e.path != "$") {
      m += e.path + ": ";
    }
    return core::failure{m + e.message};
  }
  // "<file>:<line>:<column>: <path>: <message>"
  auto fail = [&](const std::string& path, std::string_view message) {
    return core::failure{where + ":" + position_of(parsed.root, path) + ": " + path + ": " +
                         std::string(message)};
  };
  // An error text that starts with its path ("$.expect[0].event: ...").
  auto fail_text = [&](const std::string& text_with_path) {
    const auto colon = text_with_path.find(": ");
    const std::string path =
        colon == std::string::npos ? std::string("$") : text_with_path.substr(0, colon);
    return core::failure{where + ":" + position_of(parsed.root, path) + ": " + text_with_path};
  };
  rapidjson::Document doc;
  json::to_rapidjson(parsed.root, doc, doc.GetAllocator());
  if (!doc.IsObject()) {
    return fail("$", "must be an object");
  }
  scenario s;
  s.file = file;
  s.name = file.stem().string();
  for (const auto& m : std::as_const(doc).GetObject()) {
    const std::string_view k = json::string_of(m.name);
    if (std::find(scenario_keys.begin(), scenario_keys.end(), k) == scenario_keys.end()) {
      return fail("$." + std::string(k), "unknown key");
    }
  }
  if (const auto* it = find_member(doc, "scenario"); it != nullptr) {
    auto v = as_int64(*it);
    if (!v || *v != 1) {
      return fail("$.scenario", "must be 1");
    }
  }
  if (const auto* it = find_member(doc, "name"); it != nullptr) {
    if (!it->IsString()) {
      return fail("$.name", "must be a string");
    }
    s.name.assign(json::string_of(*it));
  }
  if (const auto* it = find_member(doc, "emotes"); it != nullptr) {
    const std::filesystem::path base = file.parent_path();
    auto add = [&](const Value& v, const std::string& path) -> std::optional<std::string> {
      if (!v.IsString() || v.GetStringLength() == 0) {
        return path + ": must be a non-empty string";
      }
      std::filesystem::path p(std::string(json::string_of(v)));
      s.emotes.push_back((p.is_absolute() ? p : base / p).lexically_normal());
      return std::nullopt;
    };
    if (it->IsString()) {
      if (auto e = add(*it, "$.emotes")) {
        return fail_text(*e);
      }
    } else if (it->IsArray()) {
      for (rapidjson::SizeType i = 0; i < it->Size(); ++i) {
        if (auto e = add((*it)[i], "$.emotes[" + std::to_string(i) + "]")) {
          return fail_text(*e);
        }
      }
    } else {
      return fail("$.emotes", "must be an array of folders");
    }
  }
  if (const auto* it = find_member(doc, "config"); it != nullptr) {
    // The overrides are read by the configuration loader of `serve` (protocol.md §10), on top of
    // the defaults, so a scenario accepts exactly what a config file does.
    if (!it->IsObject()) {
      return fail("$.config", "must be an object");
    }
    s.config_json = to_json(*it);
    settings::config_loader loader;
    auto failed = loader.add_json(s.config_json, "$.config", file.parent_path());
    core::result<settings::server_config, settings::config_error> built = settings::server_config{};
    if (!failed) {
      built = loader.build();
      if (!built.ok()) {
        failed = built.error();
      }
    }
    if (failed) {
      return fail("$.config." + failed->key, failed->message);
    }
    s.engine = built->engine;
  }
  if (const auto* it = find_member(doc, "seed"); it != nullptr) {
    auto v = as_int64(*it);
    if (!v) {
      return fail("$.seed", "must be an integer");
    }
    s.engine.seed = *v;
  }
  s.seed = s.engine.seed;

  std::int64_t last_tick = -1;
  if (const auto* it = find_member(doc, "script"); it != nullptr) {
    if (!it->IsArray()) {
      return fail("$.script", "must be an array");
    }
    for (rapidjson::SizeType i = 0; i < it->Size(); ++i) {
      const Value& entry = (*it)[i];
      const std::string path = "$.script[" + std::to_string(i) + "]";
      if (!entry.IsObject()) {
        return fail(path, "must be an object");
      }
      const auto* tick = find_member(entry, "tick");
      if (tick == nullptr) {
        return fail(path + ".tick", "is required");
      }
      auto t = as_int64(*tick);
      if (!t || *t < 0 || *t > std::numeric_limits<std::int32_t>::max()) {
        return fail(path + ".tick", "must be an integer >= 0");
      }
      const auto* op = find_member(entry, "op");
      if (op != nullptr && op->IsString() && !script_op_allowed(json::string_of(*op))) {
        return fail(path + ".op", std::string(json::string_of(*op)) +
                                      " is not allowed in a script (the runner owns the "
                                      "connection and the clock)");
      }
      s.script.push_back({*t, without_tick(entry), i});
      last_tick = std::max(last_tick, *t);
    }
    std::stable_sort(s.script.begin(), s.script.end(),
                     [](const script_entry& a, const script_entry& b) { return a.tick < b.tick; });
  }
  s.ticks = last_tick + default_tail_ticks;
  if (last_tick < 0) {
    s.ticks = default_tail_ticks;
  }
  if (const auto* it = find_member(doc, "ticks"); it != nullptr) {
    auto v = as_int64(*it);
    if (!v || *v < 1 || *v > std::numeric_limits<std::int32_t>::max()) {
      return fail("$.ticks", "must be an integer >= 1");
    }
    s.ticks = *v;
    if (last_tick >= s.ticks) {
      for (const auto& e : s.script) {
        if (e.tick >= s.ticks) {
          return fail("$.script[" + std::to_string(e.index) + "].tick",
                      "is not below ticks (" + std::to_string(s.ticks) + ")");
        }
      }
    }
  }
  if (const auto* it = find_member(doc, "expect"); it != nullptr) {
    auto set = expectation_set::parse(*it);
    if (!set) {
      return fail_text(set.error());
    }
    s.expect = std::move(*set);
  }
  return s;
}

core::result<scenario, std::string> load_scenario(const std::filesystem::path& file) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) {
    return core::failure{file.string() + ": cannot read: " + ec.message()};
  }
  if (size > max_scenario_bytes) {
    return core::failure{file.string() + ": larger than 64 MiB"};
  }
  auto text = core::read_file_text(file, max_scenario_bytes);
  if (!text) {
    return core::failure{std::move(text.error())};
  }
  return parse_scenario(*text, file);
}

std::string write_scenario(const scenario_text& s) {
  std::string out;
  json_out o(out);
  o.raw("{\n  \"scenario\": 1,\n  \"name\": ");
  o.str(s.name);
  o.raw(",\n  \"emotes\": [");
  for (std::size_t i = 0; i < s.emotes.size(); ++i) {
    if (i != 0) {
      o.raw(", ");
    }
    o.str(s.emotes[i]);
  }
  o.raw("],\n  \"seed\": ");
  o.i64(s.seed);
  o.raw(",\n  \"config\": ");
  o.raw(s.config_json.empty() ? std::string_view("{}") : std::string_view(s.config_json));
  o.raw(",\n  \"ticks\": ");
  o.i64(s.ticks);
  o.raw(",\n  \"script\": [");
  for (std::size_t i = 0; i < s.script.size(); ++i) {
    const auto& e = s.script[i];
    o.raw(i == 0 ? "\n    {\"tick\":" : ",\n    {\"tick\":");
    o.i64(e.tick);
    // The line is an object: splice its members after the tick.
    std::string_view body = e.line;
    if (body.size() >= 2 && body.front() == '{' && body != "{}") {
      o.ch(',');
      o.raw(body.substr(1));
    } else {
      o.ch('}');
    }
  }
  o.raw(s.script.empty() ? "],\n  \"expect\": " : "\n  ],\n  \"expect\": ");
  o.raw(s.expect_json.empty() ? std::string_view("[]") : std::string_view(s.expect_json));
  o.raw("\n}\n");
  return out;
}

} // namespace emote::protocol
