#include "protocol/config.hpp"

#include "engine/core/identifier.hpp"
#include "engine/core/time_string.hpp"
#include "protocol/json.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <regex>
#include <set>

namespace emote::protocol {
namespace {

using rapidjson::Value;

std::string_view sv(const Value& v) {
  return {v.GetString(), v.GetStringLength()};
}

bool is_identifier(std::string_view id) {
  return core::check_identifier(id) == core::identifier_error::none;
}

// The time in ticks, or the detail after "must be a valid Minecraft time: ".
core::result<std::int64_t, std::string> time_ticks(std::string_view s, std::int32_t minimum) {
  auto t = core::parse_time(s, minimum);
  if (!t) {
    return core::failure{std::string(core::time_error_detail(t.error()))};
  }
  return std::int64_t{*t};
}

// Java String.trim(): strips every char <= U+0020 at both ends.
std::string_view trim(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= 0x20) {
    s.remove_prefix(1);
  }
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= 0x20) {
    s.remove_suffix(1);
  }
  return s;
}

// The first error, as "<path>: <message>".
struct errors {
  std::optional<std::string> first;
  bool fail(const std::string& path, std::string_view message) {
    if (!first) {
      first = path + ": " + std::string(message);
    }
    return false;
  }
};

bool read_pattern(errors& e, const Value& v, const std::string& path, std::string& out) {
  if (!v.IsString()) {
    return e.fail(path, "must be a string");
  }
  out.assign(sv(v));
  if (out == "*" || is_identifier(out)) {
    return true;
  }
  try {
    std::regex re(out, std::regex::ECMAScript);
  } catch (const std::regex_error&) {
    return e.fail(path, "invalid regular expression");
  }
  return true;
}

bool read_idle(errors& e, const Value& v, const std::string& path,
               sim::access_rule::idle_settings& idle) {
  if (!v.IsObject()) {
    return e.fail(path, "must be an object");
  }
  for (const auto& m : v.GetObject()) {
    const std::string_view k = sv(m.name);
    if (k != "delay" && k != "emote") {
      return e.fail(path + "." + std::string(k), "unknown key");
    }
  }
  if (const auto* it = find_member(v, "delay"); it != nullptr) {
    if (!it->IsString()) {
      return e.fail(path + ".delay", "must be a string");
    }
    auto t = time_ticks(sv(*it), 1);
    if (!t) {
      return e.fail(path + ".delay", "must be a valid Minecraft time: " + t.error());
    }
    idle.delay = *t;
  }
  const auto* it = find_member(v, "emote");
  if (it == nullptr) {
    return e.fail(path + ".emote", "is required");
  }
  const Value& list = *it;
  const std::string lpath = path + ".emote";
  if (!list.IsArray() || list.Empty()) {
    return e.fail(lpath, "must be a non-empty array");
  }
  idle.emotes.clear();
  idle.weights.clear();
  const bool weighted = list.Size() >= 2 && list[1].IsNumber();
  if (weighted && list.Size() % 2 != 0) {
    return e.fail(lpath, "must contain complete id and chance pairs");
  }
  std::int64_t total = 0;
  for (rapidjson::SizeType i = 0; i < list.Size(); ++i) {
    const std::string p = lpath + "[" + std::to_string(i) + "]";
    if (weighted && i % 2 == 1) {
      auto w = as_int64(list[i]);
      if (!list[i].IsNumber()) {
        return e.fail(p, "must be a number");
      }
      if (!w || *w < 1 || *w > 100) {
        return e.fail(p, "must be an integer between 1 and 100");
      }
      idle.weights.push_back(static_cast<std::int32_t>(*w));
      total += *w;
      continue;
    }
    std::string id;
    if (weighted) {
      if (!list[i].IsString()) {
        return e.fail(p, "must be a string");
      }
      id.assign(sv(list[i]));
      if (!is_identifier(id)) {
        return e.fail(p, "must be an emote id (weighted entries take no patterns)");
      }
    } else if (!read_pattern(e, list[i], p, id)) {
      return false;
    }
    if (std::find(idle.emotes.begin(), idle.emotes.end(), id) != idle.emotes.end()) {
      return e.fail(p, "must not duplicate an earlier entry");
    }
    idle.emotes.push_back(std::move(id));
  }
  if (weighted && total != 100) {
    return e.fail(lpath, "chances must total 100");
  }
  return true;
}

bool read_rule(errors& e, const Value& v, const std::string& path, sim::access_rule& rule) {
  if (!v.IsObject()) {
    return e.fail(path, "must be an object");
  }
  for (const auto& m : v.GetObject()) {
    const std::string_view k = sv(m.name);
    if (k != "permission" && k != "emotes" && k != "cooldown" && k != "idle") {
      return e.fail(path + "." + std::string(k), "unknown key");
    }
  }
  const auto* perm = find_member(v, "permission");
  if (perm == nullptr) {
    return e.fail(path + ".permission", "is required");
  }
  if (!perm->IsString() || core::is_blank(sv(*perm))) {
    return e.fail(path + ".permission", "must be a non-blank string");
  }
  rule.permission.assign(sv(*perm));
  const auto* emotes = find_member(v, "emotes");
  if (emotes == nullptr) {
    return e.fail(path + ".emotes", "is required");
  }
  if (!emotes->IsArray()) {
    return e.fail(path + ".emotes", "must be an array");
  }
  for (rapidjson::SizeType i = 0; i < emotes->Size(); ++i) {
    std::string p;
    if (!read_pattern(e, (*emotes)[i], path + ".emotes[" + std::to_string(i) + "]", p)) {
      return false;
    }
    rule.emotes.push_back(std::move(p));
  }
  if (const auto* cd = find_member(v, "cooldown"); cd != nullptr && !cd->IsNull()) {
    const std::string p = path + ".cooldown";
    if (!cd->IsString()) {
      return e.fail(p, "must be a string");
    }
    const std::string_view s = sv(*cd);
    sim::access_rule::cooldown_modifier mod;
    if (!s.empty() && s[0] == 'x') {
      double k = 0;
      auto r = std::from_chars(s.data() + 1, s.data() + s.size(), k);
      if (r.ec != std::errc() || r.ptr != s.data() + s.size() || !std::isfinite(k) || k < 0) {
        return e.fail(p, "must be a time like \"95t\" or a factor like \"x0.5\" (finite, >= 0)");
      }
      mod.is_factor = true;
      mod.factor = k;
    } else {
      auto t = time_ticks(s, 0);
      if (!t) {
        return e.fail(p, "must be a valid Minecraft time: " + t.error());
      }
      mod.ticks = *t;
    }
    rule.cooldown = mod;
  }
  if (const auto* idle = find_member(v, "idle"); idle != nullptr && !idle->IsNull()) {
    sim::access_rule::idle_settings settings;
    if (!read_idle(e, *idle, path + ".idle", settings)) {
      return false;
    }
    rule.idle = std::move(settings);
  }
  return true;
}

bool read_int(errors& e, const Value& v, const std::string& path, std::int64_t lo, std::int64_t hi,
              std::int64_t& out) {
  auto i = as_int64(v);
  if (!v.IsNumber() || !i) {
    return e.fail(path, "must be an integer");
  }
  if (*i < lo || *i > hi) {
    return e.fail(path, "must be between " + std::to_string(lo) + " and " + std::to_string(hi));
  }
  out = *i;
  return true;
}

bool read_limits(errors& e, const Value& v, const std::string& path, sim::engine_config& out) {
  if (!v.IsObject()) {
    return e.fail(path, "must be an object");
  }
  for (const auto& m : v.GetObject()) {
    const std::string_view k = sv(m.name);
    const std::string p = path + "." + std::string(k);
    std::int64_t n = 0;
    if (k == "max_players") {
      if (!read_int(e, m.value, p, 1, std::numeric_limits<std::int32_t>::max(), n)) {
        return false;
      }
      out.max_players = static_cast<std::int32_t>(n);
    } else if (k == "max_line_bytes" || k == "max_inbound_messages" || k == "max_outbound_bytes" ||
               k == "max_connections") {
      if (!read_int(e, m.value, p, 1, std::numeric_limits<std::int64_t>::max(), n)) {
        return false;
      }
    } else {
      return e.fail(p, "unknown configuration key");
    }
  }
  return true;
}

} // namespace

std::optional<std::string> apply_engine_config(sim::engine_config& out,
                                               const rapidjson::Value& config,
                                               const std::string& path) {
  errors e;
  if (!config.IsObject()) {
    e.fail(path, "must be an object");
    return e.first;
  }
  for (const auto& m : config.GetObject()) {
    const std::string_view k = sv(m.name);
    const std::string p = path + "." + std::string(k);
    const Value& v = m.value;
    std::int64_t n = 0;
    if (k == "schema_version") {
      if (!read_int(e, v, p, 1, 1, n)) {
        break;
      }
    } else if (k == "seed") {
      if (!read_int(e, v, p, std::numeric_limits<std::int64_t>::min(),
                    std::numeric_limits<std::int64_t>::max(), n)) {
        break;
      }
      out.seed = n;
    } else if (k == "max_active_display_entities") {
      if (!read_int(e, v, p, 0, std::numeric_limits<std::int32_t>::max(), n)) {
        break;
      }
      out.max_active_display_entities = static_cast<std::int32_t>(n);
    } else if (k == "cooldown_mode") {
      if (v.IsString() && sv(v) == "start") {
        out.cooldown_mode = sim::cooldown_mode::start;
      } else if (v.IsString() && sv(v) == "stop") {
        out.cooldown_mode = sim::cooldown_mode::stop;
      } else {
        e.fail(p, "must be \"start\" or \"stop\"");
        break;
      }
    } else if (k == "disabled") {
      if (!v.IsArray()) {
        e.fail(p, "must be an array");
        break;
      }
      std::vector<std::string> ids;
      for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
        const std::string ip = p + "[" + std::to_string(i) + "]";
        if (!v[i].IsString()) {
          e.fail(ip, "must be a string");
          break;
        }
        const std::string_view id = trim(sv(v[i]));
        if (core::is_blank(id)) {
          e.fail(ip, "must not be blank");
          break;
        }
        if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
          ids.emplace_back(id);
        }
      }
      if (e.first) {
        break;
      }
      out.disabled = std::move(ids);
    } else if (k == "permissions") {
      if (!v.IsArray()) {
        e.fail(p, "must be an array");
        break;
      }
      std::vector<sim::access_rule> rules;
      std::set<std::string> names;
      for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
        sim::access_rule rule;
        const std::string ip = p + "[" + std::to_string(i) + "]";
        if (!read_rule(e, v[i], ip, rule)) {
          break;
        }
        if (!names.insert(rule.permission).second) {
          e.fail(ip + ".permission", "duplicate permission name: " + rule.permission);
          break;
        }
        rules.push_back(std::move(rule));
      }
      if (e.first) {
        break;
      }
      out.permissions = std::move(rules);
    } else if (k == "limits") {
      if (!read_limits(e, v, p, out)) {
        break;
      }
    } else if (k == "tps") {
      if (!read_int(e, v, p, 20, 20, n)) {
        break;
      }
    } else if (k == "clock") {
      if (!v.IsString() || (sv(v) != "realtime" && sv(v) != "manual")) {
        e.fail(p, "must be \"realtime\" or \"manual\"");
        break;
      }
    } else if (k == "emotes" || k == "metrics" || k == "record") {
      if (!v.IsString()) {
        e.fail(p, "must be a string");
        break;
      }
    } else if (k == "listen") {
      if (!v.IsArray()) {
        e.fail(p, "must be an array");
        break;
      }
      for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
        if (!v[i].IsString()) {
          e.fail(p + "[" + std::to_string(i) + "]", "must be a string");
          break;
        }
      }
      if (e.first) {
        break;
      }
    } else if (k == "auth") {
      if (!v.IsObject()) {
        e.fail(p, "must be an object");
        break;
      }
      for (const auto& a : v.GetObject()) {
        const std::string_view ak = sv(a.name);
        if (ak != "controller_token" && ak != "observer_token") {
          e.fail(p + "." + std::string(ak), "unknown configuration key");
          break;
        }
        if (!a.value.IsString()) {
          e.fail(p + "." + std::string(ak), "must be a string");
          break;
        }
      }
      if (e.first) {
        break;
      }
    } else {
      e.fail(p, "unknown configuration key");
      break;
    }
  }
  return e.first;
}

} // namespace emote::protocol
