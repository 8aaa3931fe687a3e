#include "protocol/scenario.hpp"

#include "protocol/config.hpp"
#include "protocol/json.hpp"

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>
#include <utility>

namespace emote::protocol {
namespace {

using rapidjson::Value;

constexpr std::int64_t default_tail_ticks = 200;
constexpr std::uintmax_t max_scenario_bytes = std::uintmax_t{64} << 20;

std::string_view sv(const Value& v) {
  return {v.GetString(), v.GetStringLength()};
}

// The entry as the client line it scripts: every member but `tick`, in written order.
std::string without_tick(const Value& entry) {
  std::string line;
  json_out o(line);
  o.ch('{');
  bool first = true;
  for (const auto& m : entry.GetObject()) {
    if (sv(m.name) == "tick") {
      continue;
    }
    if (!first) {
      o.ch(',');
    }
    first = false;
    o.str(sv(m.name));
    o.ch(':');
    o.value(m.value);
  }
  o.ch('}');
  return line;
}

} // namespace

bool script_op_allowed(std::string_view op) noexcept {
  return op != "hello" && op != "bye" && op != "clock.step";
}

core::result<scenario, std::string> parse_scenario(std::string_view text,
                                                   const std::filesystem::path& file) {
  const std::string where = file.string();
  auto fail = [&](const std::string& path, std::string_view message) {
    return core::failure{where + ": " + path + ": " + std::string(message)};
  };
  rapidjson::Document doc;
  if (auto err = parse_json(text, doc, json_dialect::relaxed)) {
    return core::failure{where + ": " + err->message};
  }
  if (!doc.IsObject()) {
    return fail("$", "must be an object");
  }
  scenario s;
  s.file = file;
  s.name = file.stem().string();
  for (const auto& m : std::as_const(doc).GetObject()) {
    const std::string_view k = sv(m.name);
    if (k != "scenario" && k != "name" && k != "description" && k != "emotes" && k != "seed" &&
        k != "config" && k != "ticks" && k != "script" && k != "expect") {
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
    s.name.assign(sv(*it));
  }
  if (const auto* it = find_member(doc, "emotes"); it != nullptr) {
    const std::filesystem::path base = file.parent_path();
    auto add = [&](const Value& v, const std::string& path) -> std::optional<std::string> {
      if (!v.IsString() || v.GetStringLength() == 0) {
        return path + ": must be a non-empty string";
      }
      std::filesystem::path p(std::string(sv(v)));
      s.emotes.push_back((p.is_absolute() ? p : base / p).lexically_normal());
      return std::nullopt;
    };
    if (it->IsString()) {
      if (auto e = add(*it, "$.emotes")) {
        return core::failure{where + ": " + *e};
      }
    } else if (it->IsArray()) {
      for (rapidjson::SizeType i = 0; i < it->Size(); ++i) {
        if (auto e = add((*it)[i], "$.emotes[" + std::to_string(i) + "]")) {
          return core::failure{where + ": " + *e};
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
    config_loader loader;
    auto failed = loader.add_json(s.config_json, "$.config", file.parent_path());
    core::result<server_config, config_error> built = server_config{};
    if (!failed) {
      built = loader.build();
      if (!built.ok()) {
        failed = built.error();
      }
    }
    if (failed) {
      return core::failure{where + ": $.config." + failed->key + ": " + failed->message};
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
      if (op != nullptr && op->IsString() && !script_op_allowed(sv(*op))) {
        return fail(path + ".op", std::string(sv(*op)) +
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
      return core::failure{where + ": " + set.error()};
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
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    return core::failure{file.string() + ": cannot open"};
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_scenario(ss.str(), file);
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
