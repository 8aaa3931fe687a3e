#include "protocol/scenario.hpp"

#include "protocol/config.hpp"
#include "protocol/json.hpp"

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>

namespace emote::protocol {
namespace {

using rapidjson::Value;

constexpr std::int64_t default_tail_ticks = 200;
constexpr std::uintmax_t max_scenario_bytes = std::uintmax_t{64} << 20;

std::string_view sv(const Value& v) {
  return {v.GetString(), v.GetStringLength()};
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
  for (const auto& m : doc.GetObject()) {
    const std::string_view k = sv(m.name);
    if (k != "scenario" && k != "name" && k != "description" && k != "emotes" && k != "seed" &&
        k != "config" && k != "ticks" && k != "script" && k != "expect") {
      return fail("$." + std::string(k), "unknown key");
    }
  }
  if (auto it = doc.FindMember("scenario"); it != doc.MemberEnd()) {
    auto v = as_int64(it->value);
    if (!v || *v != 1) {
      return fail("$.scenario", "must be 1");
    }
  }
  if (auto it = doc.FindMember("name"); it != doc.MemberEnd()) {
    if (!it->value.IsString()) {
      return fail("$.name", "must be a string");
    }
    s.name.assign(sv(it->value));
  }
  if (auto it = doc.FindMember("emotes"); it != doc.MemberEnd()) {
    const std::filesystem::path base = file.parent_path();
    auto add = [&](const Value& v, const std::string& path) -> std::optional<std::string> {
      if (!v.IsString() || v.GetStringLength() == 0) {
        return path + ": must be a non-empty string";
      }
      std::filesystem::path p(std::string(sv(v)));
      s.emotes.push_back((p.is_absolute() ? p : base / p).lexically_normal());
      return std::nullopt;
    };
    if (it->value.IsString()) {
      if (auto e = add(it->value, "$.emotes")) {
        return core::failure{where + ": " + *e};
      }
    } else if (it->value.IsArray()) {
      for (rapidjson::SizeType i = 0; i < it->value.Size(); ++i) {
        if (auto e = add(it->value[i], "$.emotes[" + std::to_string(i) + "]")) {
          return core::failure{where + ": " + *e};
        }
      }
    } else {
      return fail("$.emotes", "must be an array of folders");
    }
  }
  if (auto it = doc.FindMember("config"); it != doc.MemberEnd()) {
    if (auto e = apply_engine_config(s.engine, it->value, "$.config")) {
      return core::failure{where + ": " + *e};
    }
    s.config_json = to_json(it->value);
  }
  if (auto it = doc.FindMember("seed"); it != doc.MemberEnd()) {
    auto v = as_int64(it->value);
    if (!v) {
      return fail("$.seed", "must be an integer");
    }
    s.engine.seed = *v;
  }
  s.seed = s.engine.seed;

  std::int64_t last_tick = -1;
  if (auto it = doc.FindMember("script"); it != doc.MemberEnd()) {
    if (!it->value.IsArray()) {
      return fail("$.script", "must be an array");
    }
    for (rapidjson::SizeType i = 0; i < it->value.Size(); ++i) {
      Value& entry = it->value[i];
      const std::string path = "$.script[" + std::to_string(i) + "]";
      if (!entry.IsObject()) {
        return fail(path, "must be an object");
      }
      auto tick = entry.FindMember("tick");
      if (tick == entry.MemberEnd()) {
        return fail(path + ".tick", "is required");
      }
      auto t = as_int64(tick->value);
      if (!t || *t < 0 || *t > std::numeric_limits<std::int32_t>::max()) {
        return fail(path + ".tick", "must be an integer >= 0");
      }
      auto op = entry.FindMember("op");
      if (op != entry.MemberEnd() && op->value.IsString() && !script_op_allowed(sv(op->value))) {
        return fail(path + ".op", std::string(sv(op->value)) +
                                      " is not allowed in a script (the runner owns the "
                                      "connection and the clock)");
      }
      entry.EraseMember("tick"); // keeps the members' order
      s.script.push_back({*t, to_json(entry), i});
      last_tick = std::max(last_tick, *t);
    }
    std::stable_sort(s.script.begin(), s.script.end(),
                     [](const script_entry& a, const script_entry& b) { return a.tick < b.tick; });
  }
  s.ticks = last_tick + default_tail_ticks;
  if (last_tick < 0) {
    s.ticks = default_tail_ticks;
  }
  if (auto it = doc.FindMember("ticks"); it != doc.MemberEnd()) {
    auto v = as_int64(it->value);
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
  if (auto it = doc.FindMember("expect"); it != doc.MemberEnd()) {
    auto set = expectation_set::parse(it->value);
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
