#include "settings/config.hpp"

#include "engine/core/decimal.hpp"
#include "engine/core/file_text.hpp"

#include "engine/core/identifier.hpp"
#include "engine/core/time_string.hpp"
#include "engine/core/utf8.hpp"
#include "engine/json/source_reader.hpp"
#include "engine/json/writer.hpp"
#include "engine/rules/access.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

extern char** environ; // NOLINT: POSIX, used to list EMOTE_SIM_* names

namespace emote::settings {

namespace fs = std::filesystem;
using core::failure;
using json::json_value;

// A value of one key as a layer gave it.
struct config_value {
  std::shared_ptr<const json_value> value;
  std::string source;     ///< file name, `EMOTE_SIM_X`, `--flag`, `defaults`
  bool positions = false; ///< the value's line/column are meaningful in `source`
  fs::path base_dir;      ///< for relative paths; empty = working directory
};

namespace {

using problem = std::optional<config_problem>;

problem bad(std::string message, std::string path = {}) {
  return config_problem{std::move(path), std::move(message)};
}

// ---------------------------------------------------------------------------------------------
// Validators: one per kind of key. Each checks a value and stores it in its field.

problem integer_value(const config_key& k, const config_value& v, std::int64_t& out) {
  const std::string range = k.min == k.max ? "must be " + std::to_string(k.min)
                                           : "must be an integer between " + std::to_string(k.min) +
                                                 " and " + std::to_string(k.max);
  // Integer tokens are exact (engine/json); `20.0` and `2e1` are integers too.
  const auto n = v.value->is_number() ? v.value->number().as_int64() : std::nullopt;
  if (!n) {
    return bad(range);
  }
  if (*n < k.min || *n > k.max) {
    return bad(k.min == k.max ? range : range + " (got " + std::to_string(*n) + ")");
  }
  out = *n;
  return std::nullopt;
}

template <typename T>
problem integer_into(const config_key& k, const config_value& v, T& out) {
  std::int64_t n = 0;
  if (auto p = integer_value(k, v, n)) {
    return p;
  }
  out = static_cast<T>(n);
  return std::nullopt;
}

/// A memo's slot count: in range (the row's) and a power of two.
problem memo_slots_into(const config_key& k, const config_value& v, std::uint32_t& out) {
  std::int64_t n = 0;
  if (auto p = integer_value(k, v, n)) {
    return p;
  }
  if (auto why = core::memo_slots_problem(static_cast<std::uint64_t>(n))) {
    return bad(*why);
  }
  out = static_cast<std::uint32_t>(n);
  return std::nullopt;
}

problem string_value(const config_value& v, std::string& out) {
  if (!v.value->is_string()) {
    return bad("must be a string");
  }
  out = v.value->as_string();
  return std::nullopt;
}

/// An HTTP listener's TCP address (`metrics`, `http`): empty is off, a bare PORT is loopback.
problem http_address_value(const config_value& v, std::optional<listen_address>& out) {
  std::string s;
  if (auto p = string_value(v, s)) {
    return p;
  }
  out.reset();
  if (s.empty()) {
    return std::nullopt;
  }
  if (s.find_first_not_of("0123456789") == std::string::npos) {
    s = "127.0.0.1:" + s;
  }
  auto a = parse_listen_address(s);
  if (!a) {
    return bad(a.error());
  }
  if (a->type != listen_address::kind::tcp) {
    return bad("must be a TCP HOST:PORT address");
  }
  out = *a;
  return std::nullopt;
}

problem path_value(const config_value& v, bool allow_empty, fs::path& out) {
  std::string s;
  if (auto p = string_value(v, s)) {
    return p;
  }
  if (s.empty()) {
    if (!allow_empty) {
      return bad("must not be empty");
    }
    out.clear();
    return std::nullopt;
  }
  fs::path p(s);
  if (p.is_relative() && !v.base_dir.empty()) {
    p = v.base_dir / p;
  }
  out = p.lexically_normal();
  return std::nullopt;
}

template <typename E>
problem choice_value(const config_value& v,
                     std::initializer_list<std::pair<std::string_view, E>> choices, E& out) {
  std::string message = "must be ";
  std::size_t i = 0;
  for (const auto& [name, value] : choices) {
    message += (i == 0                    ? ""
                : i + 1 == choices.size() ? " or "
                                          : ", ") +
               std::string("\"") + std::string(name) + "\"";
    ++i;
  }
  if (!v.value->is_string()) {
    return bad(message);
  }
  for (const auto& [name, value] : choices) {
    if (v.value->as_string() == name) {
      out = value;
      return std::nullopt;
    }
  }
  return bad(message);
}

std::string index(std::size_t i) {
  return "[" + std::to_string(i) + "]";
}

// ---------------------------------------------------------------------------------------------
// permissions (players.md §6.4): the JSON shape becomes access rules; what the rules mean is
// checked once, by rules::access_policy::compile in build().

problem time_value(const json_value& v, const std::string& path, std::int64_t& out) {
  if (!v.is_string()) {
    return bad("must be a string", path);
  }
  auto t = core::parse_time(v.as_string(), 0);
  if (!t) {
    return bad("must be a valid Minecraft time: " + std::string(core::time_error_detail(t.error())),
               path);
  }
  out = *t;
  return std::nullopt;
}

problem cooldown_value(const json_value& v, const std::string& path,
                       sim::access_rule::cooldown_modifier& out) {
  if (!v.is_string()) {
    return bad("must be a string", path);
  }
  std::string_view text = v.as_string();
  if (!text.starts_with("x")) {
    out.is_factor = false;
    return time_value(v, path, out.ticks);
  }
  // "xK": K a decimal number (the rules check that it is finite and >= 0).
  text.remove_prefix(1);
  if (text.starts_with("+")) {
    text.remove_prefix(1);
  }
  // The grammar is from_chars' decimal form; the value comes from the one decimal reader, which
  // rounds an overflow to infinity (the rules refuse it) and an underflow to zero.
  double grammar_only = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), grammar_only);
  if (text.empty() || end != text.data() + text.size() ||
      (ec != std::errc{} && ec != std::errc::result_out_of_range) ||
      text.find_first_not_of("0123456789.eE+-") != std::string_view::npos) {
    return bad("must be a time string or xFACTOR (e.g. \"95t\", \"x0.5\")", path);
  }
  out.is_factor = true;
  out.factor = core::decimal_to_double(text);
  return std::nullopt;
}

problem idle_value(const json_value& v, const std::string& at,
                   sim::access_rule::idle_settings& idle) {
  if (!v.is_object()) {
    return bad("must be an object", at);
  }
  bool have_emote = false;
  for (const auto& m : v.as_object()) {
    if (m.key == "delay") {
      if (auto p = time_value(m.value, at + ".delay", idle.delay)) {
        return p;
      }
    } else if (m.key == "emote") {
      have_emote = true;
      if (!m.value.is_array() || m.value.as_array().empty()) {
        return bad("must be a non-empty array", at + ".emote");
      }
      const auto& list = m.value.as_array();
      const bool weighted = list.size() >= 2 && list[1].is_number();
      if (weighted && list.size() % 2 != 0) {
        return bad("must contain complete id and weight pairs", at + ".emote");
      }
      for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string sub = at + ".emote" + index(i);
        if (weighted && i % 2 == 1) {
          const double d = list[i].is_number() ? list[i].as_number() : 0.5;
          if (!std::isfinite(d) || std::floor(d) != d ||
              std::fabs(d) > std::numeric_limits<std::int32_t>::max()) {
            return bad("must be an integer between 1 and 100", sub);
          }
          idle.weights.push_back(static_cast<std::int32_t>(d));
          continue;
        }
        if (!list[i].is_string()) {
          return bad("must be a string", sub);
        }
        idle.emotes.push_back(list[i].as_string());
      }
    } else {
      return bad("unknown key", at + "." + m.key);
    }
  }
  if (!have_emote) {
    return bad("is required", at + ".emote");
  }
  return std::nullopt;
}

problem permissions_value(const config_value& cv, std::vector<sim::access_rule>& out) {
  const json_value& v = *cv.value;
  if (!v.is_array()) {
    return bad("must be an array");
  }
  std::vector<sim::access_rule> rules;
  for (std::size_t i = 0; i < v.as_array().size(); ++i) {
    const std::string at = index(i);
    const json_value& r = v.as_array()[i];
    if (!r.is_object()) {
      return bad("must be an object", at);
    }
    sim::access_rule rule;
    bool have_permission = false;
    bool have_emotes = false;
    for (const auto& m : r.as_object()) {
      const json_value& f = m.value;
      if (m.key == "permission") {
        if (!f.is_string()) {
          return bad("must be a string", at + ".permission");
        }
        rule.permission = f.as_string();
        have_permission = true;
      } else if (m.key == "emotes") {
        if (!f.is_array()) {
          return bad("must be an array of patterns", at + ".emotes");
        }
        for (std::size_t k = 0; k < f.as_array().size(); ++k) {
          if (!f.as_array()[k].is_string()) {
            return bad("must be a string", at + ".emotes" + index(k));
          }
          rule.emotes.push_back(f.as_array()[k].as_string());
        }
        have_emotes = true;
      } else if (m.key == "cooldown") {
        sim::access_rule::cooldown_modifier mod;
        if (auto p = cooldown_value(f, at + ".cooldown", mod)) {
          return p;
        }
        rule.cooldown = mod;
      } else if (m.key == "idle") {
        sim::access_rule::idle_settings idle;
        if (auto p = idle_value(f, at + ".idle", idle)) {
          return p;
        }
        rule.idle = std::move(idle);
      } else {
        return bad("unknown key", at + "." + m.key);
      }
    }
    if (!have_permission) {
      return bad("is required", at + ".permission");
    }
    if (!have_emotes) {
      return bad("is required", at + ".emotes");
    }
    rules.push_back(std::move(rule));
  }
  out = std::move(rules);
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// The table.

using apply_fn = std::optional<config_problem> (*)(const config_key&, const config_value&,
                                                   server_config&);

constexpr std::int64_t int32_max = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t int64_min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();

/// A TCP address of a gate entry (gate.md §1): a bare PORT is on 127.0.0.1, Unix paths refused.
core::result<listen_address, std::string> gate_address(std::string s) {
  if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos) {
    s = "127.0.0.1:" + s;
  }
  auto a = parse_listen_address(s);
  if (!a) {
    return core::failure{std::string(a.error())};
  }
  if (a->type != listen_address::kind::tcp) {
    return core::failure{std::string("'") + s +
                         "' must be a TCP HOST:PORT address (Minecraft speaks TCP)"};
  }
  return *a;
}

/// `gate` (gate.md §1): a list of `[NAME=]LISTEN=BACKEND`.
problem gate_value(const config_value& v, std::vector<gate_config>& out) {
  const json_value& j = *v.value;
  if (!j.is_array()) {
    return bad("must be an array of [NAME=]LISTEN=BACKEND entries");
  }
  std::vector<gate_config> gates;
  for (std::size_t i = 0; i < j.as_array().size(); ++i) {
    const json_value& e = j.as_array()[i];
    if (!e.is_string()) {
      return bad("must be a string", index(i));
    }
    const std::string& text = e.as_string();
    std::vector<std::string> parts;
    std::size_t b = 0;
    for (std::size_t k = 0; k <= text.size(); ++k) {
      if (k == text.size() || text[k] == '=') {
        parts.push_back(text.substr(b, k - b));
        b = k + 1;
      }
    }
    if (parts.size() != 2 && parts.size() != 3) {
      return bad("must be [NAME=]LISTEN=BACKEND, e.g. 0.0.0.0:25566=127.0.0.1:25565", index(i));
    }
    gate_config g;
    g.name = parts.size() == 3 ? parts[0] : "gate" + std::to_string(i + 1);
    if (g.name.empty() || g.name.size() > 64 ||
        g.name.find_first_not_of(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
            std::string::npos) {
      return bad("the name '" + g.name + "' must be 1 to 64 letters, digits, '_' or '-'", index(i));
    }
    auto listen = gate_address(parts[parts.size() - 2]);
    if (!listen) {
      return bad("listen address: " + listen.error(), index(i));
    }
    auto backend = gate_address(parts.back());
    if (!backend) {
      return bad("backend address: " + backend.error(), index(i));
    }
    g.listen = *listen;
    g.backend = *backend;
    for (const auto& other : gates) {
      if (other.name == g.name) {
        return bad("the name '" + g.name + "' is used twice", index(i));
      }
      if (other.listen == g.listen && g.listen.port != 0) { // port 0: each its own ephemeral port
        return bad("listens on " + g.listen.text() + " twice", index(i));
      }
    }
    gates.push_back(std::move(g));
  }
  out = std::move(gates);
  return std::nullopt;
}

// A row. The apply lambdas are the only place a key's field is named.
constexpr config_key row(std::string_view name, config_type type, std::int64_t min,
                         std::int64_t max, std::string_view default_json, std::string_view flag,
                         std::string_view env, std::string_view value_name, std::string_view help,
                         apply_fn apply) {
  return config_key{name, type, min, max, default_json, flag, env, value_name, help, apply};
}

const config_key table[] = {
    row("schema_version", config_type::integer, 1, 1, "1", "schema-version",
        "EMOTE_SIM_SCHEMA_VERSION", "N", "the configuration format (1)",
        [](const config_key& k, const config_value& v, server_config&) {
          std::int64_t n = 0;
          return integer_value(k, v, n);
        }),
    row("emotes", config_type::path, 0, 0, R"("emotes")", "emotes", "EMOTE_SIM_EMOTES", "DIR",
        "the emote folder to load",
        [](const config_key&, const config_value& v, server_config& c) {
          return path_value(v, false, c.emotes);
        }),
    row("listen", config_type::string_list, 0, 0, R"(["127.0.0.1:25580"])", "listen",
        "EMOTE_SIM_LISTEN", "ADDR",
        "HOST:PORT or unix:/path/to.sock; repeat for several (replaces the list)",
        [](const config_key&, const config_value& v, server_config& c) -> problem {
          const json_value& j = *v.value;
          if (!j.is_array() || j.as_array().empty()) {
            return bad("must be a non-empty array of addresses");
          }
          std::vector<listen_address> list;
          for (std::size_t i = 0; i < j.as_array().size(); ++i) {
            const json_value& e = j.as_array()[i];
            if (!e.is_string()) {
              return bad("must be a string", index(i));
            }
            auto a = parse_listen_address(e.as_string());
            if (!a) {
              return bad(a.error(), index(i));
            }
            if (std::find(list.begin(), list.end(), *a) != list.end()) {
              return bad("is listed twice", index(i));
            }
            list.push_back(*a);
          }
          c.listen = std::move(list);
          return std::nullopt;
        }),
    row("clock", config_type::string, 0, 0, R"("realtime")", "clock", "EMOTE_SIM_CLOCK", "C",
        "realtime (ticks on absolute deadlines) or manual (clock.step)",
        [](const config_key&, const config_value& v, server_config& c) {
          return choice_value(
              v, {{"realtime", clock_mode::realtime}, {"manual", clock_mode::manual}}, c.clock);
        }),
    row("tps", config_type::integer, 1, 1000, "20", "tps", "EMOTE_SIM_TPS", "N",
        "ticks per second of the realtime clock",
        [](const config_key& k, const config_value& v, server_config& c) {
          return integer_into(k, v, c.tps);
        }),
    row("seed", config_type::integer, int64_min, int64_max, "0", "seed", "EMOTE_SIM_SEED", "N",
        "the server seed",
        [](const config_key& k, const config_value& v, server_config& c) {
          return integer_into(k, v, c.engine.seed);
        }),
    row("max_active_display_entities", config_type::integer, 0, int32_max, "512",
        "max-active-display-entities", "EMOTE_SIM_MAX_ACTIVE_DISPLAY_ENTITIES", "N",
        "display entities shown at once (0: unlimited)",
        [](const config_key& k, const config_value& v, server_config& c) {
          return integer_into(k, v, c.engine.max_active_display_entities);
        }),
    row("cooldown_mode", config_type::string, 0, 0, R"("start")", "cooldown-mode",
        "EMOTE_SIM_COOLDOWN_MODE", "M", "when a cooldown starts: start or stop",
        [](const config_key&, const config_value& v, server_config& c) {
          return choice_value(
              v, {{"start", sim::cooldown_mode::start}, {"stop", sim::cooldown_mode::stop}},
              c.engine.cooldown_mode);
        }),
    row("disabled", config_type::string_list, 0, 0, "[]", "disabled", "EMOTE_SIM_DISABLED", "ID",
        "an emote id players cannot play; repeat for several (replaces the list)",
        [](const config_key&, const config_value& v, server_config& c) -> problem {
          const json_value& j = *v.value;
          if (!j.is_array()) {
            return bad("must be an array of emote ids");
          }
          std::vector<std::string> ids;
          for (std::size_t i = 0; i < j.as_array().size(); ++i) {
            if (!j.as_array()[i].is_string()) {
              return bad("must be a string", index(i));
            }
            ids.push_back(j.as_array()[i].as_string());
          }
          c.engine.disabled = std::move(ids); // trimmed and de-duplicated by the rules
          return std::nullopt;
        }),
    row("permissions", config_type::json, 0, 0,
        R"([{"permission":"emote.default","emotes":["*"],"idle":{"delay":"3600t","emote":["emote:sit"]}}])",
        "permissions", "EMOTE_SIM_PERMISSIONS", "JSON",
        "access rules, cooldown modifiers and idle settings as JSON (docs/spec/players.md §6.4)",
        [](const config_key&, const config_value& v, server_config& c) {
          return permissions_value(v, c.engine.permissions);
        }),
    row("auth.controller_token", config_type::string, 0, 0, R"("")", "auth-controller-token",
        "EMOTE_SIM_AUTH_CONTROLLER_TOKEN", "T", "the token controllers send (empty: none)",
        [](const config_key&, const config_value& v, server_config& c) {
          return string_value(v, c.auth.controller_token);
        }),
    row("auth.observer_token", config_type::string, 0, 0, R"("")", "auth-observer-token",
        "EMOTE_SIM_AUTH_OBSERVER_TOKEN", "T", "the token observers send (empty: none)",
        [](const config_key&, const config_value& v, server_config& c) {
          return string_value(v, c.auth.observer_token);
        }),
    row("limits.max_line_bytes", config_type::integer, 64, std::int64_t{1} << 30, "1048576",
        "limits-max-line-bytes", "EMOTE_SIM_LIMITS_MAX_LINE_BYTES", "N",
        "longest accepted request line",
        [](const config_key& k, const config_value& v, server_config& c) {
          return integer_into(k, v, c.limits.max_line_bytes);
        }),
    row("limits.max_inbound_messages", config_type::integer, 1, std::int64_t{1} << 30, "65536",
        "limits-max-inbound-messages", "EMOTE_SIM_LIMITS_MAX_INBOUND_MESSAGES", "N",
        "unapplied lines per connection before reading pauses",
        [](const config_key& k, const config_value& v, server_config& c) {
          return integer_into(k, v, c.limits.max_inbound_messages);
        }),
    row("limits.max_inbound_bytes", config_type::integer, 1024, std::int64_t{1} << 40, "67108864",
        "limits-max-inbound-bytes", "EMOTE_SIM_LIMITS_MAX_INBOUND_BYTES", "N",
        "unapplied bytes per connection before reading pauses",
        [](const config_key& k, const config_value& v, server_config& c) {
          return integer_into(k, v, c.limits.max_inbound_bytes);
        }),
    row("limits.max_outbound_bytes", config_type::integer, 1024, std::int64_t{1} << 40, "16777216",
        "limits-max-outbound-bytes", "EMOTE_SIM_LIMITS_MAX_OUTBOUND_BYTES", "N",
        "queued output per connection before it is dropped",
        [](const config_key& k, const config_value& v, server_config& c) {
          return integer_into(k, v, c.limits.max_outbound_bytes);
        }),
    row("limits.max_players", config_type::integer, 1, int32_max, "10000", "limits-max-players",
        "EMOTE_SIM_LIMITS_MAX_PLAYERS", "N", "players joined at once",
        [](const config_key& k, const config_value& v, server_config& c) {
          return integer_into(k, v, c.engine.max_players);
        }),
    row("limits.molang_session_tick_ops", config_type::integer, 0, std::int64_t{1} << 40, "250000",
        "limits-molang-session-tick-ops", "EMOTE_SIM_LIMITS_MOLANG_SESSION_TICK_OPS", "N",
        "Molang operations one session may run in one tick (0: unlimited)",
        [](const config_key& k, const config_value& v, server_config& c) {
          return integer_into(k, v, c.engine.molang_session_tick_ops);
        }),
    row("limits.molang_server_tick_ops", config_type::integer, 0, std::int64_t{1} << 40, "2000000",
        "limits-molang-server-tick-ops", "EMOTE_SIM_LIMITS_MOLANG_SERVER_TICK_OPS", "N",
        "Molang operations all sessions together may run in one tick (0: unlimited)",
        [](const config_key& k, const config_value& v, server_config& c) {
          return integer_into(k, v, c.engine.molang_server_tick_ops);
        }),
    row("limits.max_connections", config_type::integer, 1, 1000000, "256", "limits-max-connections",
        "EMOTE_SIM_LIMITS_MAX_CONNECTIONS", "N", "client connections at once",
        [](const config_key& k, const config_value& v, server_config& c) {
          return integer_into(k, v, c.limits.max_connections);
        }),
    row("limits.reserved_controller_connections", config_type::integer, 0, 1000000, "4",
        "limits-reserved-controller-connections",
        "EMOTE_SIM_LIMITS_RESERVED_CONTROLLER_CONNECTIONS", "N",
        "connection slots observers cannot take (kept for controllers)",
        [](const config_key& k, const config_value& v, server_config& c) {
          return integer_into(k, v, c.limits.reserved_controller_connections);
        }),
    row("limits.max_pending_connections", config_type::integer, 1, 1000000, "64",
        "limits-max-pending-connections", "EMOTE_SIM_LIMITS_MAX_PENDING_CONNECTIONS", "N",
        "connections waiting for their hello at once (at most max_connections minus the reserved)",
        [](const config_key& k, const config_value& v, server_config& c) {
          return integer_into(k, v, c.limits.max_pending_connections);
        }),
    row("limits.max_pending_per_address", config_type::integer, 1, 1000000, "8",
        "limits-max-pending-per-address", "EMOTE_SIM_LIMITS_MAX_PENDING_PER_ADDRESS", "N",
        "connections of one peer address waiting for their hello at once",
        [](const config_key& k, const config_value& v, server_config& c) {
          return integer_into(k, v, c.limits.max_pending_per_address);
        }),
    row("limits.idle_timeout_seconds", config_type::integer, 0, 86400, "120",
        "limits-idle-timeout-seconds", "EMOTE_SIM_LIMITS_IDLE_TIMEOUT_SECONDS", "SECONDS",
        "close a connection that neither subscribes nor sends for this long (0: never)",
        [](const config_key& k, const config_value& v, server_config& c) {
          return integer_into(k, v, c.limits.idle_timeout_seconds);
        }),
    row("metrics", config_type::string, 0, 0, R"("")", "metrics", "EMOTE_SIM_METRICS", "HOST:PORT",
        "serve Prometheus metrics at GET /metrics (empty: off)",
        [](const config_key&, const config_value& v, server_config& c) {
          return http_address_value(v, c.metrics);
        }),
    row("http", config_type::string, 0, 0, R"("")", "http", "EMOTE_SIM_HTTP", "HOST:PORT",
        "serve the browser viewer, its WebSocket and /metrics over HTTP (a bare PORT is on "
        "127.0.0.1; empty: off)",
        [](const config_key&, const config_value& v, server_config& c) {
          return http_address_value(v, c.http);
        }),
    row("http_origins", config_type::string_list, 0, 0, "[]", "http-origins",
        "EMOTE_SIM_HTTP_ORIGINS", "ORIGIN",
        "a web origin (https://host[:port], or *) besides the listener's own whose pages may open "
        "/ws; repeat for several (replaces the list)",
        [](const config_key&, const config_value& v, server_config& c) -> problem {
          const json_value& j = *v.value;
          if (!j.is_array()) {
            return bad("must be an array of origins");
          }
          std::vector<std::string> list;
          for (std::size_t i = 0; i < j.as_array().size(); ++i) {
            const json_value& e = j.as_array()[i];
            if (!e.is_string()) {
              return bad("must be a string", index(i));
            }
            const std::string& o = e.as_string();
            const bool scheme = o.starts_with("http://") || o.starts_with("https://");
            const auto host = std::string_view(o).substr(o.find("://") + 3);
            if (o != "*" && (!scheme || host.empty() ||
                             host.find_first_of("/?#@ ") != std::string_view::npos)) {
              return bad("must be * or an origin like https://viewer.example.com[:port] (no path)",
                         index(i));
            }
            list.push_back(o);
          }
          c.http_origins = std::move(list);
          return std::nullopt;
        }),
    // gate.md §1
    row("gate", config_type::string_list, 0, 0, "[]", "gate", "EMOTE_SIM_GATE",
        "[NAME=]LISTEN=BACKEND",
        "a Minecraft-protocol gate: accept players on LISTEN, connect each to the backend\n"
        "BACKEND, show them emotes (docs/spec/gate.md); repeat for several",
        [](const config_key&, const config_value& v, server_config& c) {
          return gate_value(v, c.gates);
        }),
    row("limits.gate_max_frame_bytes", config_type::integer, 64, 2097151, "2097151",
        "limits-gate-max-frame-bytes", "EMOTE_SIM_LIMITS_GATE_MAX_FRAME_BYTES", "N",
        "longest Minecraft frame a gate accepts from either side",
        [](const config_key& k, const config_value& v, server_config& c) {
          return integer_into(k, v, c.limits.gate_max_frame_bytes);
        }),
    row("limits.gate_max_buffered_bytes", config_type::integer, 65536, std::int64_t{1} << 30,
        "16777216", "limits-gate-max-buffered-bytes", "EMOTE_SIM_LIMITS_GATE_MAX_BUFFERED_BYTES",
        "N", "bytes a gate queues for a side that does not read before cutting the pair",
        [](const config_key& k, const config_value& v, server_config& c) {
          return integer_into(k, v, c.limits.gate_max_buffered_bytes);
        }),
    row("limits.gate_connect_timeout_ms", config_type::integer, 100, 60000, "5000",
        "limits-gate-connect-timeout-ms", "EMOTE_SIM_LIMITS_GATE_CONNECT_TIMEOUT_MS", "MS",
        "how long a gate waits for its backend to accept a connection",
        [](const config_key& k, const config_value& v, server_config& c) {
          return integer_into(k, v, c.limits.gate_connect_timeout_ms);
        }),
    row("limits.gate_max_connections", config_type::integer, 1, 1000000, "1000",
        "limits-gate-max-connections", "EMOTE_SIM_LIMITS_GATE_MAX_CONNECTIONS", "N",
        "client connections one gate holds at once (lowered to fit the descriptor limit)",
        [](const config_key& k, const config_value& v, server_config& c) {
          return integer_into(k, v, c.limits.gate_max_connections);
        }),
    // render.md §2
    row("render.entity_id_base", config_type::integer, 1, int32_max, "1000000000",
        "render-entity-id-base", "EMOTE_SIM_RENDER_ENTITY_ID_BASE", "N",
        "the entity id of display handle 0; reserve [base, base + max displays] in the plugin",
        [](const config_key& k, const config_value& v, server_config& c) {
          return integer_into(k, v, c.render.entity_id_base);
        }),
    row("render.display_range", config_type::integer, 1, 4096, "160", "render-display-range",
        "EMOTE_SIM_RENDER_DISPLAY_RANGE", "BLOCKS",
        "how far a viewer sees display entities (capped by its view distance)",
        [](const config_key& k, const config_value& v, server_config& c) {
          return integer_into(k, v, c.render.display_range);
        }),
    row("render.player_range", config_type::integer, 1, 4096, "512", "render-player-range",
        "EMOTE_SIM_RENDER_PLAYER_RANGE", "BLOCKS",
        "how far a viewer sees other players (capped by its view distance)",
        [](const config_key& k, const config_value& v, server_config& c) {
          return integer_into(k, v, c.render.player_range);
        }),
    row("render.view_distance", config_type::integer, 2, 32, "10", "render-view-distance",
        "EMOTE_SIM_RENDER_VIEW_DISTANCE", "CHUNKS",
        "the backend's server view distance (caps every viewer's)",
        [](const config_key& k, const config_value& v, server_config& c) {
          return integer_into(k, v, c.render.view_distance);
        }),
    row("render.uuid_seed", config_type::integer, int64_min, int64_max, "0", "render-uuid-seed",
        "EMOTE_SIM_RENDER_UUID_SEED", "N", "mixed into every display entity's UUID",
        [](const config_key& k, const config_value& v, server_config& c) {
          return integer_into(k, v, c.render.uuid_seed);
        }),
    row("record", config_type::path, 0, 0, R"("")", "record", "EMOTE_SIM_RECORD", "FILE",
        "record the session as NDJSON (replay with `emote-sim replay FILE`; empty: off)",
        [](const config_key&, const config_value& v, server_config& c) {
          return path_value(v, true, c.record);
        }),
    row("record_frames", config_type::boolean, 0, 0, "false", "record-frames",
        "EMOTE_SIM_RECORD_FRAMES", "", "store whole frames in the recording, not only digests",
        [](const config_key&, const config_value& v, server_config& c) -> problem {
          if (!v.value->is_bool()) {
            return bad("must be true or false");
          }
          c.record_frames = v.value->as_bool();
          return std::nullopt;
        }),
    row("record_state_every", config_type::integer, 0, int32_max, "100", "record-state-every",
        "EMOTE_SIM_RECORD_STATE_EVERY", "TICKS",
        "write a full state dump into the recording every TICKS ticks (a state digest is written "
        "every tick; 0: no dumps)",
        [](const config_key& k, const config_value& v, server_config& c) {
          return integer_into(k, v, c.record_state_every);
        }),
    // The caches (core::cache_options; docs/guide/qa.md "Checking the caches").
    row("memo.decomposition_slots", config_type::integer, 16, std::int64_t{1} << 24, "32768",
        "memo-decomposition-slots", "EMOTE_SIM_MEMO_DECOMPOSITION_SLOTS", "N",
        "slots of the matrix-decomposition memo (a power of two)",
        [](const config_key& k, const config_value& v, server_config& c) {
          return memo_slots_into(k, v, c.engine.caches.decomposition_slots);
        }),
    row("memo.transform_text_slots", config_type::integer, 16, std::int64_t{1} << 24, "32768",
        "memo-transform-text-slots", "EMOTE_SIM_MEMO_TRANSFORM_TEXT_SLOTS", "N",
        "slots of the transform-text memo of frames without matrices (a power of two)",
        [](const config_key& k, const config_value& v, server_config& c) {
          return memo_slots_into(k, v, c.engine.caches.transform_text_slots);
        }),
    row("check_caches", config_type::boolean, 0, 0, "false", "check-caches",
        "EMOTE_SIM_CHECK_CACHES", "",
        "recompute every memo hit, baked pose and kept player view and stop at the first "
        "mismatch (slow; for QA)",
        [](const config_key&, const config_value& v, server_config& c) -> problem {
          if (!v.value->is_bool()) {
            return bad("must be true or false");
          }
          c.engine.caches.mode =
              v.value->as_bool() ? core::cache_mode::check : core::cache_mode::on;
          return std::nullopt;
        }),
};

// Environment variables of the program that are not keys (EMOTE_SIM_VIEWER_DIR: where the HTTP
// listener finds the viewer's files, docs/guide/viewer.md).
constexpr std::string_view other_variables[] = {"EMOTE_SIM_CONFIG", "EMOTE_SIM_TOKEN",
                                                "EMOTE_SIM_VIEWER_DIR"};

// render.md §2: entity_id_base + M <= 2^31 - 1, M = max_active_display_entities (1,048,576
// when 0, unlimited).
problem render_id_problem(const server_config& c) {
  const std::int64_t m = c.engine.max_active_display_entities == 0
                             ? std::int64_t{1} << 20
                             : c.engine.max_active_display_entities;
  if (c.render.entity_id_base + m > int32_max) {
    return bad("render.entity_id_base (" + std::to_string(c.render.entity_id_base) +
               ") plus max_active_display_entities (" + std::to_string(m) +
               ") must not exceed 2147483647");
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Positions

std::string position_text(const std::string& source, const json_value& v) {
  return source + ":" + std::to_string(v.line) + ":" + std::to_string(v.column);
}

// The value at `path` below `root` (`[1].idle.emote[3]`), or its nearest existing ancestor (a
// path may name a missing member, such as a required key).
const json_value& locate(const json_value& root, std::string path) {
  path.insert(0, "$");
  const json_value* v = json::find_path(root, path);
  while (v == nullptr && path.size() > 1) {
    const auto cut = path.find_last_of(".[");
    path.resize(cut == std::string::npos || cut == 0 ? 1 : cut);
    v = json::find_path(root, path);
  }
  return v != nullptr ? *v : root;
}

config_error error_at(const config_key& k, const config_value& v, const config_problem& p) {
  config_error e{std::string(k.name) + p.path, v.source, p.message};
  if (v.positions) {
    e.source = position_text(v.source, locate(*v.value, p.path));
  }
  return e;
}

// Parses JSON text from the environment or a command line.
core::result<json_value, config_error> parse_text(std::string_view key, std::string_view text,
                                                  const std::string& source) {
  auto parsed = json::parse_source(text, json::source_dialect::relaxed);
  if (!parsed.ok) {
    return failure{config_error{std::string(key),
                                source + ":" + std::to_string(parsed.error.line) + ":" +
                                    std::to_string(parsed.error.column),
                                parsed.error.message}};
  }
  return std::move(parsed.root);
}

// Converts environment or command-line text to the value a file would hold for `type`. Text
// that is not of the type is kept as a string, so build() reports it with the key's message.
core::result<config_value, config_error> text_value(const config_key& k, std::string_view text,
                                                    const std::string& source) {
  config_value out;
  out.source = source;
  json_value v;
  switch (k.type) {
  case config_type::integer: {
    const auto t = core::java_trim(text);
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
    if (!t.empty() && ec == std::errc{} && end == t.data() + t.size()) {
      v.set_number(json::json_number::signed_integer(n));
    } else {
      v.set_string(std::string(text));
    }
    break;
  }
  case config_type::boolean: {
    const auto t = core::java_trim(text);
    if (t == "true" || t == "1" || t == "yes") {
      v.set_bool(true);
    } else if (t == "false" || t == "0" || t == "no" || t.empty()) {
      v.set_bool(false);
    } else {
      v.set_string(std::string(text));
    }
    break;
  }
  case config_type::string:
  case config_type::path:
    v.set_string(std::string(text));
    break;
  case config_type::string_list: {
    const auto t = core::java_trim(text);
    if (t.starts_with("[")) {
      auto parsed = parse_text(k.name, text, source);
      if (!parsed) {
        return failure{parsed.error()};
      }
      v = std::move(*parsed);
      out.positions = true;
      break;
    }
    auto& list = v.set_array();
    std::size_t start = 0;
    while (!t.empty() && start <= t.size()) {
      auto comma = t.find(',', start);
      if (comma == std::string_view::npos) {
        comma = t.size();
      }
      const auto item = core::java_trim(t.substr(start, comma - start));
      if (!item.empty()) {
        list.emplace_back().set_string(std::string(item));
      }
      start = comma + 1;
    }
    break;
  }
  case config_type::json: {
    auto parsed = parse_text(k.name, text, source);
    if (!parsed) {
      return failure{parsed.error()};
    }
    v = std::move(*parsed);
    out.positions = true;
    break;
  }
  }
  out.value = std::make_shared<const json_value>(std::move(v));
  return out;
}

} // namespace

std::span<const config_key> config_keys() {
  return table;
}

const config_key* find_config_key(std::string_view name) {
  for (const auto& k : table) {
    if (k.name == name) {
      return &k;
    }
  }
  return nullptr;
}

std::string config_error::text() const {
  if (key.empty()) {
    return "config: " + source + ": " + message;
  }
  std::string s = "config: " + key;
  if (!source.empty()) {
    s += " (from " + source + ")";
  }
  return s + ": " + message;
}

// A group of the file (`auth`, `limits`, `render`): some key of the table is `group.name`.
bool is_group(std::string_view name) {
  return std::any_of(std::begin(table), std::end(table), [&](const config_key& k) {
    return k.name.size() > name.size() && k.name.starts_with(name) && k.name[name.size()] == '.';
  });
}

struct config_loader::impl {
  std::map<std::string, config_value, std::less<>> entries;

  // One layer in the file's shape.
  std::optional<config_error> add_object(const json_value& obj, const std::string& prefix,
                                         const std::string& source, bool positions,
                                         const fs::path& base) {
    for (const auto& m : obj.as_object()) {
      const std::string key = prefix + m.key;
      const std::string where = positions ? position_text(source, m.value) : source;
      if (prefix.empty() && is_group(key)) {
        if (!m.value.is_object()) {
          return config_error{key, where, "must be an object"};
        }
        if (auto err = add_object(m.value, key + ".", source, positions, base)) {
          return err;
        }
        continue;
      }
      if (find_config_key(key) == nullptr) {
        return config_error{key, where, "unknown key"};
      }
      config_value v;
      v.value = std::make_shared<const json_value>(m.value);
      v.source = source;
      v.positions = positions;
      v.base_dir = base;
      entries[key] = std::move(v);
    }
    return std::nullopt;
  }

  std::optional<config_error> add_text(std::string_view json, const std::string& source,
                                       bool positions, const fs::path& base) {
    // Hand-written: the relaxed dialect (comments, trailing commas), every value with its line
    // and column.
    auto parsed = json::parse_source(json, json::source_dialect::relaxed);
    if (!parsed.ok) {
      return config_error{"",
                          positions ? source + ":" + std::to_string(parsed.error.line) + ":" +
                                          std::to_string(parsed.error.column)
                                    : source,
                          parsed.error.message};
    }
    if (!parsed.root.is_object()) {
      return config_error{"", positions ? position_text(source, parsed.root) : source,
                          "the configuration must be a JSON object"};
    }
    return add_object(parsed.root, "", source, positions, base);
  }
};

config_loader::config_loader() : impl_(std::make_unique<impl>()) {}
config_loader::~config_loader() = default;

std::optional<config_error> config_loader::add_file(const fs::path& file) {
  const std::string source = file.string();
  auto text = core::read_file_text(file);
  if (!text) {
    return config_error{"", source,
                        text.error().ends_with(": cannot open")
                            ? "cannot open the config file"
                            : text.error().substr(source.size() + 2)};
  }
  fs::path base = file.parent_path();
  if (base.empty()) {
    base = ".";
  }
  return impl_->add_text(*text, source, true, base);
}

std::optional<config_error> config_loader::add_json(std::string_view json,
                                                    const std::string& source,
                                                    const fs::path& base_dir) {
  return impl_->add_text(json, source, false, base_dir);
}

std::optional<config_error> config_loader::add_value(const json_value& object,
                                                     const std::string& file,
                                                     const fs::path& base_dir) {
  if (!object.is_object()) {
    return config_error{"", position_text(file, object), "the configuration must be a JSON object"};
  }
  return impl_->add_object(object, "", file, true, base_dir);
}

std::optional<config_error> config_loader::set(std::string_view key, std::string_view text,
                                               const std::string& source) {
  const config_key* k = find_config_key(key);
  if (k == nullptr) {
    return config_error{std::string(key), source, "unknown key"};
  }
  // Text becomes JSON strings: it must be UTF-8, as a file must be.
  if (std::string sanitized; core::sanitize_utf8(text, sanitized) != std::string::npos) {
    return config_error{std::string(key), source, "is not valid UTF-8"};
  }
  auto v = text_value(*k, text, source);
  if (!v) {
    return v.error();
  }
  impl_->entries[std::string(key)] = std::move(*v);
  return std::nullopt;
}

std::optional<config_error> config_loader::set_list(std::string_view key,
                                                    const std::vector<std::string>& items,
                                                    const std::string& source) {
  const config_key* k = find_config_key(key);
  if (k == nullptr || k->type != config_type::string_list) {
    return config_error{std::string(key), source, "is not a list key"};
  }
  json_value v;
  auto& list = v.set_array();
  for (const auto& item : items) {
    list.emplace_back().set_string(item);
  }
  config_value cv;
  cv.value = std::make_shared<const json_value>(std::move(v));
  cv.source = source;
  impl_->entries[std::string(key)] = std::move(cv);
  return std::nullopt;
}

std::optional<config_error> config_loader::add_environment(const env_lookup& lookup,
                                                           const env_names& names) {
  std::set<std::string, std::less<>> known(std::begin(other_variables), std::end(other_variables));
  for (const auto& k : table) {
    known.insert(std::string(k.env));
    if (auto v = lookup(std::string(k.env))) {
      if (auto err = set(k.name, *v, std::string(k.env))) {
        return err;
      }
    }
  }
  for (const auto& name : names()) {
    if (!known.contains(name)) {
      return config_error{name, "environment", "unknown EMOTE_SIM_ variable"};
    }
  }
  return std::nullopt;
}

core::result<server_config, config_error> config_loader::build() const {
  server_config cfg;
  // Every key: its default, then the value a layer set, each through the key's validator.
  for (const auto& k : table) {
    config_value defaults;
    auto parsed = json::parse_source(k.default_json, json::source_dialect::strict);
    defaults.value = std::make_shared<const json_value>(std::move(parsed.root));
    defaults.source = "defaults";
    if (auto p = k.apply(k, defaults, cfg)) {
      return failure{error_at(k, defaults, *p)};
    }
    auto it = impl_->entries.find(k.name);
    if (it == impl_->entries.end()) {
      continue;
    }
    if (auto p = k.apply(k, it->second, cfg)) {
      return failure{error_at(k, it->second, *p)};
    }
  }

  // Access rules and `disabled` mean what engine/rules says (validated there, once).
  auto policy = rules::access_policy::compile(cfg.engine.disabled, cfg.engine.permissions);
  if (!policy) {
    // `$.permissions[1].emotes[0]` -> the key `permissions` and the path below it.
    std::string_view path = policy.error().path;
    if (path.starts_with("$.")) {
      path.remove_prefix(2);
    }
    const std::string_view key_name = path.substr(0, path.find_first_of(".["));
    const config_key* k = find_config_key(key_name);
    const config_problem p{std::string(path.substr(key_name.size())), policy.error().message};
    auto it = k ? impl_->entries.find(k->name) : impl_->entries.end();
    if (k == nullptr || it == impl_->entries.end()) {
      return failure{config_error{std::string(path), "defaults", p.message}};
    }
    return failure{error_at(*k, it->second, p)};
  }
  cfg.engine.disabled = policy->disabled();
  cfg.engine.permissions = policy->rules();

  // render.md §2: every display's entity id fits in an int.
  // The error names the key a layer set (the base first), so its source is where it was set.
  if (auto p = render_id_problem(cfg)) {
    for (const std::string_view name : {"render.entity_id_base", "max_active_display_entities"}) {
      const config_key& k = *find_config_key(name);
      if (auto it = impl_->entries.find(k.name); it != impl_->entries.end()) {
        return failure{error_at(k, it->second, *p)};
      }
    }
    return failure{config_error{"render.entity_id_base", "defaults", p->message}};
  }
  cfg.engine.display_entity_ids_first = cfg.render.entity_id_base;
  cfg.engine.display_entity_ids_last =
      cfg.render.entity_id_base + (cfg.engine.max_active_display_entities == 0
                                       ? std::int64_t{1} << 20
                                       : std::int64_t{cfg.engine.max_active_display_entities});

  // The effective configuration, in the file's shape: the keys some layer set, tokens blanked,
  // paths absolute (so a recording's header names the folder wherever replay runs).
  std::string out = "{";
  json::json_out w(out);
  std::string open_group;
  for (const auto& k : table) {
    auto it = impl_->entries.find(k.name);
    if (it == impl_->entries.end()) {
      continue;
    }
    const auto dot = k.name.find('.');
    const std::string group(dot == std::string_view::npos ? std::string_view()
                                                          : k.name.substr(0, dot));
    if (group != open_group) {
      if (!open_group.empty()) {
        w.ch('}');
      }
      if (out.size() > 1) {
        w.ch(',');
      }
      if (!group.empty()) {
        w.str(group);
        w.raw(":{");
      }
      open_group = group;
    } else if (out.back() != '{') {
      w.ch(',');
    }
    w.str(dot == std::string_view::npos ? k.name : k.name.substr(dot + 1));
    w.ch(':');
    const config_value& v = it->second;
    if (k.name == "auth.controller_token" || k.name == "auth.observer_token") {
      w.str("");
    } else if (k.name == "emotes") {
      w.str(fs::absolute(cfg.emotes).lexically_normal().string());
    } else if (k.name == "record") {
      w.str(cfg.record.empty() ? std::string()
                               : fs::absolute(cfg.record).lexically_normal().string());
    } else {
      w.value(*v.value);
    }
  }
  if (!open_group.empty()) {
    w.ch('}');
  }
  w.ch('}');
  cfg.effective_json = std::move(out);
  return cfg;
}

std::optional<config_error> add_file_and_environment(config_loader& loader, const fs::path& file) {
  if (!file.empty()) {
    if (auto err = loader.add_file(file)) {
      return err;
    }
  }
  return loader.add_environment(
      [](const std::string& name) -> std::optional<std::string> {
        const char* v = std::getenv(name.c_str());
        if (v == nullptr) {
          return std::nullopt;
        }
        return std::string(v);
      },
      [] {
        std::vector<std::string> names;
        for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
          const std::string_view kv(*e);
          if (kv.starts_with("EMOTE_SIM_")) {
            names.emplace_back(kv.substr(0, kv.find('=')));
          }
        }
        return names;
      });
}

} // namespace emote::settings
