#include "protocol/config.hpp"

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
  const std::size_t c = id.find(':');
  if (c == std::string_view::npos || c == 0 || c + 1 == id.size()) {
    return false;
  }
  for (std::size_t i = 0; i < id.size(); ++i) {
    const char ch = id[i];
    const bool common =
        (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '.';
    if (i < c ? !common : (i > c && !common && ch != '/')) {
      return false;
    }
  }
  return true;
}

std::string_view trim(std::string_view s) {
  auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  };
  while (!s.empty() && space(s.front())) {
    s.remove_prefix(1);
  }
  while (!s.empty() && space(s.back())) {
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
  if (auto it = v.FindMember("delay"); it != v.MemberEnd()) {
    if (!it->value.IsString()) {
      return e.fail(path + ".delay", "must be a string");
    }
    auto t = parse_time_string(sv(it->value), 1);
    if (!t) {
      return e.fail(path + ".delay", "must be a valid Minecraft time: " + t.error());
    }
    idle.delay = *t;
  }
  auto it = v.FindMember("emote");
  if (it == v.MemberEnd()) {
    return e.fail(path + ".emote", "is required");
  }
  const Value& list = it->value;
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
  auto perm = v.FindMember("permission");
  if (perm == v.MemberEnd()) {
    return e.fail(path + ".permission", "is required");
  }
  if (!perm->value.IsString() || trim(sv(perm->value)).empty()) {
    return e.fail(path + ".permission", "must be a non-blank string");
  }
  rule.permission.assign(sv(perm->value));
  auto emotes = v.FindMember("emotes");
  if (emotes == v.MemberEnd()) {
    return e.fail(path + ".emotes", "is required");
  }
  if (!emotes->value.IsArray()) {
    return e.fail(path + ".emotes", "must be an array");
  }
  for (rapidjson::SizeType i = 0; i < emotes->value.Size(); ++i) {
    std::string p;
    if (!read_pattern(e, emotes->value[i], path + ".emotes[" + std::to_string(i) + "]", p)) {
      return false;
    }
    rule.emotes.push_back(std::move(p));
  }
  if (auto cd = v.FindMember("cooldown"); cd != v.MemberEnd() && !cd->value.IsNull()) {
    const std::string p = path + ".cooldown";
    if (!cd->value.IsString()) {
      return e.fail(p, "must be a string");
    }
    const std::string_view s = sv(cd->value);
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
      auto t = parse_time_string(s, 0);
      if (!t) {
        return e.fail(p, "must be a valid Minecraft time: " + t.error());
      }
      mod.ticks = *t;
    }
    rule.cooldown = mod;
  }
  if (auto idle = v.FindMember("idle"); idle != v.MemberEnd() && !idle->value.IsNull()) {
    sim::access_rule::idle_settings settings;
    if (!read_idle(e, idle->value, path + ".idle", settings)) {
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

core::result<std::int64_t, std::string> parse_time_string(std::string_view s, std::int64_t min) {
  std::size_t i = 0;
  while (i < s.size() && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '-')) {
    ++i;
  }
  const std::string_view number = s.substr(0, i);
  if (number.empty()) {
    return core::failure{std::string("expected float")};
  }
  { // -?([0-9]+(\.[0-9]*)?|\.[0-9]+)
    std::size_t j = number[0] == '-' ? 1 : 0;
    std::size_t int_digits = 0;
    while (j < number.size() && number[j] >= '0' && number[j] <= '9') {
      ++j;
      ++int_digits;
    }
    std::size_t frac_digits = 0;
    if (j < number.size() && number[j] == '.') {
      ++j;
      while (j < number.size() && number[j] >= '0' && number[j] <= '9') {
        ++j;
        ++frac_digits;
      }
      if (int_digits == 0 && frac_digits == 0) {
        return core::failure{std::string("invalid float")};
      }
    } else if (int_digits == 0) {
      return core::failure{std::string("invalid float")};
    }
    if (j != number.size()) {
      return core::failure{std::string("invalid float")};
    }
  }
  float f = 0;
  {
    // from_chars rejects a leading '.', so read "0.5" for ".5" (same value).
    std::string text(number);
    const bool negative = text[0] == '-';
    std::string body = negative ? text.substr(1) : text;
    if (body[0] == '.') {
      body.insert(body.begin(), '0');
    }
    auto r = std::from_chars(body.data(), body.data() + body.size(), f);
    if (r.ec == std::errc::result_out_of_range) {
      f = std::numeric_limits<float>::infinity();
    } else if (r.ec != std::errc()) {
      return core::failure{std::string("invalid float")};
    }
    if (negative) {
      f = -f;
    }
  }
  std::size_t u = i;
  while (u < s.size() && ((s[u] >= '0' && s[u] <= '9') || (s[u] >= 'A' && s[u] <= 'Z') ||
                          (s[u] >= 'a' && s[u] <= 'z') || s[u] == '_' || s[u] == '-' ||
                          s[u] == '.' || s[u] == '+')) {
    ++u;
  }
  const std::string_view unit = s.substr(i, u - i);
  float scale = 0;
  if (unit.empty() || unit == "t") {
    scale = 1;
  } else if (unit == "s") {
    scale = 20;
  } else if (unit == "d") {
    scale = 24000;
  } else {
    return core::failure{std::string("invalid unit")};
  }
  const float p = f * scale;
  const double rounded = std::floor(static_cast<double>(p) + 0.5);
  std::int64_t ticks = 0;
  if (std::isnan(rounded)) {
    ticks = 0;
  } else if (rounded >= 2147483647.0) {
    ticks = 2147483647;
  } else if (rounded <= -2147483648.0) {
    ticks = -2147483648LL;
  } else {
    ticks = static_cast<std::int64_t>(rounded);
  }
  if (ticks < min) {
    return core::failure{std::string("tick count too low")};
  }
  if (u != s.size()) {
    return core::failure{std::string("trailing input")};
  }
  return ticks;
}

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
        if (id.empty()) {
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
