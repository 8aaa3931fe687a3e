#include "protocol/config.hpp"

#include "engine/core/identifier.hpp"
#include "engine/core/time_string.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

extern char** environ; // NOLINT: POSIX, used to list EMOTE_SIM_* names

namespace emote::protocol {
namespace {

namespace fs = std::filesystem;
using core::failure;

enum class key_type : std::uint8_t { integer, string, path, boolean, string_list, json };

struct key_info {
  std::string_view key;
  key_type type;
};

// The keys of protocol.md §10, in file order, plus `limits.max_inbound_bytes` and
// `record_frames` (extensions; a server may add fields).
constexpr key_info key_table[] = {
    {"schema_version", key_type::integer},
    {"emotes", key_type::path},
    {"listen", key_type::string_list},
    {"clock", key_type::string},
    {"tps", key_type::integer},
    {"seed", key_type::integer},
    {"max_active_display_entities", key_type::integer},
    {"cooldown_mode", key_type::string},
    {"disabled", key_type::string_list},
    {"permissions", key_type::json},
    {"auth.controller_token", key_type::string},
    {"auth.observer_token", key_type::string},
    {"limits.max_line_bytes", key_type::integer},
    {"limits.max_inbound_messages", key_type::integer},
    {"limits.max_inbound_bytes", key_type::integer},
    {"limits.max_outbound_bytes", key_type::integer},
    {"limits.max_players", key_type::integer},
    {"limits.max_connections", key_type::integer},
    {"metrics", key_type::string},
    {"record", key_type::path},
    {"record_frames", key_type::boolean},
};

const key_info* find_key(std::string_view key) {
  for (const auto& k : key_table) {
    if (k.key == key) {
      return &k;
    }
  }
  return nullptr;
}

std::string env_name_of(std::string_view key) {
  std::string s = "EMOTE_SIM_";
  for (const char c : key) {
    s += c == '.' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return s;
}

// 1-based line and column of a byte offset, for JSON syntax errors in a config file.
std::string line_column(std::string_view text, std::size_t offset) {
  std::size_t line = 1;
  std::size_t col = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

// Java's String.trim(): strips code units <= U+0020 at both ends.
std::string_view java_trim(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= 0x20) {
    s.remove_prefix(1);
  }
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= 0x20) {
    s.remove_suffix(1);
  }
  return s;
}

bool is_identifier(std::string_view s) {
  return core::check_identifier(s) == core::identifier_error::none;
}

// formats.md §2.3 through engine/core; the error is the detail after "must be a valid Minecraft
// time: ".
core::result<std::int64_t, std::string> parse_time_string(std::string_view s,
                                                          std::int32_t minimum) {
  auto t = core::parse_time(s, minimum);
  if (!t) {
    return failure{std::string(core::time_error_detail(t.error()))};
  }
  return static_cast<std::int64_t>(*t);
}

std::optional<std::string> check_pattern(const std::string& p) {
  if (p == "*" || is_identifier(p)) {
    return std::nullopt;
  }
  // std::regex compiles recursively: bound what it is given so a config cannot exhaust the stack.
  int depth = 0;
  int max_depth = 0;
  for (const char c : p) {
    depth += c == '(' || c == '[' ? 1 : (c == ')' || c == ']') && depth > 0 ? -1 : 0;
    max_depth = std::max(max_depth, depth);
  }
  if (p.size() > 1024 || max_depth > 32) {
    return std::string("regular expression is too long or nests too deeply");
  }
  // libstdc++ reads repetition counts and back-reference numbers into a long without a bound.
  std::size_t run = 0;
  for (const char c : p) {
    run = c >= '0' && c <= '9' ? run + 1 : 0;
    if (run > 6) {
      return std::string("regular expression has a number over 6 digits");
    }
  }
  // Bounded repetitions ({n}, {n,m}) are expanded into copies when compiled: keep the product
  // of all their counts small (counting siblings as if nested errs on the safe side).
  double copies = 1;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] != '{' || (i > 0 && p[i - 1] == '\\')) {
      continue;
    }
    double largest = 0;
    double n = 0;
    bool digits = false;
    for (std::size_t k = i + 1; k < p.size() && p[k] != '}'; ++k) {
      if (p[k] >= '0' && p[k] <= '9') {
        n = std::min(n * 10 + (p[k] - '0'), 1e9);
        digits = true;
      } else {
        largest = std::max(largest, n);
        n = 0;
      }
    }
    largest = std::max(largest, n);
    if (digits) {
      copies *= std::max(largest, 1.0);
    }
  }
  if (copies > 10000) {
    return std::string(
        "regular expression repeats too much (bounded repetitions over 10000 copies)");
  }
  try {
    std::regex re(p, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return std::string("is neither *, an identifier nor a valid regular expression: ") + e.what();
  }
  return std::nullopt;
}

std::string json_type_name(const rapidjson::Value& v) {
  switch (v.GetType()) {
  case rapidjson::kNullType:
    return "null";
  case rapidjson::kFalseType:
  case rapidjson::kTrueType:
    return "a boolean";
  case rapidjson::kObjectType:
    return "an object";
  case rapidjson::kArrayType:
    return "an array";
  case rapidjson::kStringType:
    return "a string";
  case rapidjson::kNumberType:
    return "a number";
  }
  return "?";
}

struct entry {
  std::shared_ptr<rapidjson::Document> value;
  std::string source;
  fs::path base_dir; ///< for relative paths; empty = working directory
};

// Validation context: names the key and the layer in every error.
struct checker {
  const std::map<std::string, entry, std::less<>>& entries;

  const entry* get(std::string_view key) const {
    auto it = entries.find(key);
    return it == entries.end() ? nullptr : &it->second;
  }
  config_error error(std::string_view key, std::string_view source_key, std::string message) const {
    const entry* e = get(source_key);
    return config_error{std::string(key), e ? e->source : std::string("defaults"),
                        std::move(message)};
  }
};

std::optional<config_error> int_key(const checker& c, std::string_view key, std::int64_t lo,
                                    std::int64_t hi, std::int64_t& out) {
  const entry* e = c.get(key);
  if (e == nullptr) {
    return std::nullopt;
  }
  const auto& v = *e->value;
  const std::string range =
      "must be an integer between " + std::to_string(lo) + " and " + std::to_string(hi);
  if (!v.IsNumber()) {
    return c.error(key, key, range + ", not " + json_type_name(v));
  }
  std::int64_t n = 0;
  if (v.IsInt64()) {
    n = v.GetInt64();
  } else if (v.IsDouble() && std::isfinite(v.GetDouble()) &&
             std::floor(v.GetDouble()) == v.GetDouble() && std::fabs(v.GetDouble()) < 9.0e15) {
    n = static_cast<std::int64_t>(v.GetDouble());
  } else {
    return c.error(key, key, range);
  }
  if (n < lo || n > hi) {
    return c.error(key, key, range + " (got " + std::to_string(n) + ")");
  }
  out = n;
  return std::nullopt;
}

std::optional<config_error> string_key(const checker& c, std::string_view key, std::string& out) {
  const entry* e = c.get(key);
  if (e == nullptr) {
    return std::nullopt;
  }
  if (!e->value->IsString()) {
    return c.error(key, key, "must be a string, not " + json_type_name(*e->value));
  }
  out.assign(e->value->GetString(), e->value->GetStringLength());
  return std::nullopt;
}

std::optional<config_error> path_key(const checker& c, std::string_view key, bool allow_empty,
                                     fs::path& out) {
  std::string s;
  if (auto err = string_key(c, key, s)) {
    return err;
  }
  const entry* e = c.get(key);
  if (e == nullptr) {
    return std::nullopt;
  }
  if (s.empty()) {
    if (!allow_empty) {
      return c.error(key, key, "must not be empty");
    }
    out.clear();
    return std::nullopt;
  }
  fs::path p(s);
  if (p.is_relative() && !e->base_dir.empty()) {
    p = e->base_dir / p;
  }
  out = p.lexically_normal();
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// permissions (players.md §6.4)

std::optional<std::string> parse_factor(std::string_view text, double& out) {
  // "xK", K finite and >= 0, written as a plain decimal number.
  const std::string_view k = text.substr(1);
  if (k.empty() || k.find_first_not_of("0123456789.eE+-") != std::string_view::npos) {
    return std::string("must be a time string or xFACTOR (e.g. \"95t\", \"x0.5\")");
  }
  const std::string copy(k);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !std::isfinite(v) || v < 0) {
    return std::string("factor must be a finite number >= 0");
  }
  out = v;
  return std::nullopt;
}

std::optional<config_error> parse_idle(const checker& c, const std::string& at,
                                       const rapidjson::Value& v,
                                       sim::access_rule::idle_settings& idle) {
  auto err = [&](const std::string& sub, std::string msg) {
    return c.error(at + sub, "permissions", std::move(msg));
  };
  if (!v.IsObject()) {
    return err("", "must be an object");
  }
  bool have_emote = false;
  for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
    const std::string name(m->name.GetString(), m->name.GetStringLength());
    if (name == "delay") {
      if (!m->value.IsString()) {
        return err(".delay", "must be a string");
      }
      auto t = parse_time_string({m->value.GetString(), m->value.GetStringLength()}, 1);
      if (!t) {
        return err(".delay", "must be a valid Minecraft time: " + t.error());
      }
      idle.delay = *t;
    } else if (name == "emote") {
      have_emote = true;
      const auto& list = m->value;
      if (!list.IsArray() || list.Empty()) {
        return err(".emote", "must be a non-empty array");
      }
      const bool weighted = list.Size() >= 2 && list[1].IsNumber();
      if (weighted && list.Size() % 2 != 0) {
        return err(".emote", "must contain complete id and weight pairs");
      }
      std::set<std::string> seen;
      std::int64_t total = 0;
      for (rapidjson::SizeType i = 0; i < list.Size(); ++i) {
        const std::string sub = ".emote[" + std::to_string(i) + "]";
        if (weighted && i % 2 == 1) {
          const auto& w = list[i];
          if (!w.IsNumber()) {
            return err(sub, "must be a number");
          }
          const double d = w.GetDouble();
          if (!std::isfinite(d) || std::floor(d) != d || d < 1 || d > 100) {
            return err(sub, "must be an integer between 1 and 100");
          }
          idle.weights.push_back(static_cast<std::int32_t>(d));
          total += static_cast<std::int64_t>(d);
          continue;
        }
        if (!list[i].IsString()) {
          return err(sub, "must be a string");
        }
        std::string id(list[i].GetString(), list[i].GetStringLength());
        if (weighted) {
          if (!is_identifier(id)) {
            return err(sub, "must be a valid lowercase Minecraft identifier (patterns are only "
                            "allowed in the equal-weight form)");
          }
        } else if (auto bad = check_pattern(id)) {
          return err(sub, *bad);
        }
        if (!seen.insert(id).second) {
          return err(sub, "repeats '" + id + "'");
        }
        idle.emotes.push_back(std::move(id));
      }
      if (weighted && total != 100) {
        return err(".emote", "weights must total 100 (got " + std::to_string(total) + ")");
      }
    } else {
      return err("." + name, "unknown key");
    }
  }
  if (!have_emote) {
    return err(".emote", "is required");
  }
  return std::nullopt;
}

std::optional<config_error> parse_permissions(const checker& c,
                                              std::vector<sim::access_rule>& out) {
  const entry* e = c.get("permissions");
  if (e == nullptr) {
    return std::nullopt;
  }
  const auto& v = *e->value;
  if (!v.IsArray()) {
    return c.error("permissions", "permissions", "must be an array");
  }
  std::vector<sim::access_rule> rules;
  std::set<std::string> names;
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    const std::string at = "permissions[" + std::to_string(i) + "]";
    auto err = [&](const std::string& sub, std::string msg) {
      return c.error(at + sub, "permissions", std::move(msg));
    };
    const auto& r = v[i];
    if (!r.IsObject()) {
      return err("", "must be an object");
    }
    sim::access_rule rule;
    bool have_permission = false;
    bool have_emotes = false;
    for (auto m = r.MemberBegin(); m != r.MemberEnd(); ++m) {
      const std::string name(m->name.GetString(), m->name.GetStringLength());
      const auto& f = m->value;
      if (name == "permission") {
        if (!f.IsString()) {
          return err(".permission", "must be a string");
        }
        rule.permission = std::string(java_trim({f.GetString(), f.GetStringLength()}));
        if (rule.permission.empty()) {
          return err(".permission", "must not be blank");
        }
        if (!names.insert(rule.permission).second) {
          return err(".permission", "duplicate permission '" + rule.permission + "'");
        }
        have_permission = true;
      } else if (name == "emotes") {
        if (!f.IsArray()) {
          return err(".emotes", "must be an array of patterns");
        }
        for (rapidjson::SizeType k = 0; k < f.Size(); ++k) {
          const std::string sub = ".emotes[" + std::to_string(k) + "]";
          if (!f[k].IsString()) {
            return err(sub, "must be a string");
          }
          std::string p(f[k].GetString(), f[k].GetStringLength());
          if (auto bad = check_pattern(p)) {
            return err(sub, *bad);
          }
          rule.emotes.push_back(std::move(p));
        }
        have_emotes = true;
      } else if (name == "cooldown") {
        if (!f.IsString()) {
          return err(".cooldown", "must be a string");
        }
        const std::string_view text(f.GetString(), f.GetStringLength());
        sim::access_rule::cooldown_modifier mod;
        if (text.starts_with("x")) {
          mod.is_factor = true;
          if (auto bad = parse_factor(text, mod.factor)) {
            return err(".cooldown", *bad);
          }
        } else {
          auto t = parse_time_string(text, 0);
          if (!t) {
            return err(".cooldown", "must be a valid Minecraft time: " + t.error());
          }
          mod.ticks = *t;
        }
        rule.cooldown = mod;
      } else if (name == "idle") {
        sim::access_rule::idle_settings idle;
        if (auto bad = parse_idle(c, at + ".idle", f, idle)) {
          return bad;
        }
        rule.idle = std::move(idle);
      } else {
        return err("." + name, "unknown key");
      }
    }
    if (!have_permission) {
      return err(".permission", "is required");
    }
    if (!have_emotes) {
      return err(".emotes", "is required");
    }
    rules.push_back(std::move(rule));
  }
  out = std::move(rules);
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------

// Converts command-line / environment text to the JSON value a file would hold for `type`.
std::optional<std::string> text_to_json(key_type type, std::string_view text,
                                        rapidjson::Document& out) {
  switch (type) {
  case key_type::integer: {
    std::int64_t n = 0;
    const auto t = java_trim(text);
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
    if (t.empty() || ec != std::errc{} || ptr != t.data() + t.size()) {
      return std::string("must be an integer");
    }
    out.SetInt64(n);
    return std::nullopt;
  }
  case key_type::boolean: {
    const auto t = java_trim(text);
    if (t == "true" || t == "1" || t == "yes") {
      out.SetBool(true);
    } else if (t == "false" || t == "0" || t == "no" || t.empty()) {
      out.SetBool(false);
    } else {
      return std::string("must be true or false");
    }
    return std::nullopt;
  }
  case key_type::string:
  case key_type::path:
    out.SetString(text.data(), static_cast<rapidjson::SizeType>(text.size()), out.GetAllocator());
    return std::nullopt;
  case key_type::string_list: {
    const auto t = java_trim(text);
    if (t.starts_with("[")) {
      out.Parse(t.data(), t.size());
      if (out.HasParseError()) {
        return std::string("is not valid JSON: ") +
               rapidjson::GetParseError_En(out.GetParseError());
      }
      return std::nullopt;
    }
    out.SetArray();
    std::size_t start = 0;
    while (!t.empty() && start <= t.size()) {
      auto comma = t.find(',', start);
      if (comma == std::string_view::npos) {
        comma = t.size();
      }
      const auto item = java_trim(t.substr(start, comma - start));
      if (!item.empty()) {
        out.PushBack(rapidjson::Value(item.data(), static_cast<rapidjson::SizeType>(item.size()),
                                      out.GetAllocator()),
                     out.GetAllocator());
      }
      start = comma + 1;
    }
    return std::nullopt;
  }
  case key_type::json:
    out.Parse(text.data(), text.size());
    if (out.HasParseError()) {
      return std::string("is not valid JSON: ") + rapidjson::GetParseError_En(out.GetParseError()) +
             " at offset " + std::to_string(out.GetErrorOffset());
    }
    return std::nullopt;
  }
  return std::string("unsupported");
}

} // namespace

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

struct config_loader::impl {
  std::map<std::string, entry, std::less<>> entries;

  std::optional<config_error> add_object(const rapidjson::Value& obj, const std::string& prefix,
                                         const std::string& source, const fs::path& base) {
    for (auto m = obj.MemberBegin(); m != obj.MemberEnd(); ++m) {
      const std::string key = prefix + std::string(m->name.GetString(), m->name.GetStringLength());
      if (prefix.empty() && (key == "auth" || key == "limits")) {
        if (!m->value.IsObject()) {
          return config_error{key, source, "must be an object"};
        }
        if (auto err = add_object(m->value, key + ".", source, base)) {
          return err;
        }
        continue;
      }
      if (find_key(key) == nullptr) {
        return config_error{key, source, "unknown key"};
      }
      auto doc = std::make_shared<rapidjson::Document>();
      doc->CopyFrom(m->value, doc->GetAllocator());
      entries[key] = entry{std::move(doc), source, base};
    }
    return std::nullopt;
  }
};

config_loader::config_loader() : impl_(std::make_unique<impl>()) {}
config_loader::~config_loader() = default;

std::vector<std::string_view> config_loader::keys() {
  std::vector<std::string_view> out;
  for (const auto& k : key_table) {
    out.push_back(k.key);
  }
  return out;
}

std::optional<config_error> config_loader::add_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  const std::string source = file.string();
  if (!in) {
    return config_error{"", source, "cannot open the config file"};
  }
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  fs::path base = file.parent_path();
  if (base.empty()) {
    base = ".";
  }
  return add_json(text, source, base);
}

std::optional<config_error> config_loader::add_json(std::string_view json,
                                                    const std::string& source,
                                                    const fs::path& base_dir) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseCommentsFlag | rapidjson::kParseTrailingCommasFlag>(json.data(),
                                                                                 json.size());
  if (doc.HasParseError()) {
    return config_error{"", source,
                        std::string("invalid JSON at ") + line_column(json, doc.GetErrorOffset()) +
                            ": " + rapidjson::GetParseError_En(doc.GetParseError())};
  }
  if (!doc.IsObject()) {
    return config_error{"", source, "the configuration must be a JSON object"};
  }
  return impl_->add_object(doc, "", source, base_dir);
}

std::optional<config_error> config_loader::set(std::string_view key, std::string_view text,
                                               const std::string& source) {
  const key_info* k = find_key(key);
  if (k == nullptr) {
    return config_error{std::string(key), source, "unknown key"};
  }
  auto doc = std::make_shared<rapidjson::Document>();
  if (auto bad = text_to_json(k->type, text, *doc)) {
    return config_error{std::string(key), source, *bad};
  }
  impl_->entries[std::string(key)] = entry{std::move(doc), source, fs::path()};
  return std::nullopt;
}

std::optional<config_error> config_loader::add_environment(const env_lookup& lookup,
                                                           const env_names& names) {
  std::set<std::string> known = {"EMOTE_SIM_CONFIG"};
  for (const auto& k : key_table) {
    const std::string name = env_name_of(k.key);
    known.insert(name);
    if (auto v = lookup(name)) {
      if (auto err = set(k.key, *v, name)) {
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
  const checker c{impl_->entries};
  server_config cfg;
  cfg.emotes = "emotes";
  cfg.listen = {listen_address{listen_address::kind::tcp, "127.0.0.1", 25580, ""}};

  std::int64_t n = 0;
  if (c.get("schema_version")) {
    if (auto err = int_key(c, "schema_version", 1, 1, n)) {
      err->message = "must be 1";
      return failure{*err};
    }
  }
  if (auto err = path_key(c, "emotes", false, cfg.emotes)) {
    return failure{*err};
  }
  if (const entry* e = c.get("listen")) {
    const auto& v = *e->value;
    if (!v.IsArray() || v.Empty()) {
      return failure{c.error("listen", "listen", "must be a non-empty array of addresses")};
    }
    cfg.listen.clear();
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
      const std::string at = "listen[" + std::to_string(i) + "]";
      if (!v[i].IsString()) {
        return failure{c.error(at, "listen", "must be a string")};
      }
      auto a = parse_listen_address({v[i].GetString(), v[i].GetStringLength()});
      if (!a) {
        return failure{c.error(at, "listen", a.error())};
      }
      if (std::find(cfg.listen.begin(), cfg.listen.end(), *a) != cfg.listen.end()) {
        return failure{c.error(at, "listen", "is listed twice")};
      }
      cfg.listen.push_back(*a);
    }
  }
  std::string s;
  if (c.get("clock")) {
    if (auto err = string_key(c, "clock", s)) {
      return failure{*err};
    }
    if (s == "realtime") {
      cfg.clock = clock_mode::realtime;
    } else if (s == "manual") {
      cfg.clock = clock_mode::manual;
    } else {
      return failure{c.error("clock", "clock", "must be \"realtime\" or \"manual\"")};
    }
  }
  n = cfg.tps;
  if (auto err = int_key(c, "tps", 1, 1000, n)) {
    return failure{*err};
  }
  cfg.tps = static_cast<std::int32_t>(n);
  n = cfg.engine.seed;
  if (auto err = int_key(c, "seed", INT64_MIN, INT64_MAX, n)) {
    return failure{*err};
  }
  cfg.engine.seed = n;
  n = cfg.engine.max_active_display_entities;
  if (auto err = int_key(c, "max_active_display_entities", 0, INT32_MAX, n)) {
    return failure{*err};
  }
  cfg.engine.max_active_display_entities = static_cast<std::int32_t>(n);
  if (c.get("cooldown_mode")) {
    if (auto err = string_key(c, "cooldown_mode", s)) {
      return failure{*err};
    }
    if (s == "start") {
      cfg.engine.cooldown_mode = sim::cooldown_mode::start;
    } else if (s == "stop") {
      cfg.engine.cooldown_mode = sim::cooldown_mode::stop;
    } else {
      return failure{c.error("cooldown_mode", "cooldown_mode", "must be \"start\" or \"stop\"")};
    }
  }
  if (const entry* e = c.get("disabled")) {
    const auto& v = *e->value;
    if (!v.IsArray()) {
      return failure{c.error("disabled", "disabled", "must be an array of emote ids")};
    }
    // players.md §6.4: trimmed, non-blank, de-duplicated (first occurrence kept).
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
      if (!v[i].IsString()) {
        return failure{
            c.error("disabled[" + std::to_string(i) + "]", "disabled", "must be a string")};
      }
      const std::string id(java_trim({v[i].GetString(), v[i].GetStringLength()}));
      if (!id.empty() && std::find(cfg.engine.disabled.begin(), cfg.engine.disabled.end(), id) ==
                             cfg.engine.disabled.end()) {
        cfg.engine.disabled.push_back(id);
      }
    }
  }
  if (auto err = parse_permissions(c, cfg.engine.permissions)) {
    return failure{*err};
  }
  if (auto err = string_key(c, "auth.controller_token", cfg.auth.controller_token)) {
    return failure{*err};
  }
  if (auto err = string_key(c, "auth.observer_token", cfg.auth.observer_token)) {
    return failure{*err};
  }
  struct limit_key {
    std::string_view key;
    std::int64_t lo;
    std::int64_t hi;
    std::int64_t* out;
  };
  std::int64_t max_players = cfg.engine.max_players;
  const limit_key limits[] = {
      {"limits.max_line_bytes", 64, std::int64_t{1} << 30, &cfg.limits.max_line_bytes},
      {"limits.max_inbound_messages", 1, std::int64_t{1} << 30, &cfg.limits.max_inbound_messages},
      {"limits.max_inbound_bytes", 1024, std::int64_t{1} << 40, &cfg.limits.max_inbound_bytes},
      {"limits.max_outbound_bytes", 1024, std::int64_t{1} << 40, &cfg.limits.max_outbound_bytes},
      {"limits.max_players", 1, INT32_MAX, &max_players},
      {"limits.max_connections", 1, 1000000, &cfg.limits.max_connections},
  };
  for (const auto& l : limits) {
    if (auto err = int_key(c, l.key, l.lo, l.hi, *l.out)) {
      return failure{*err};
    }
  }
  cfg.engine.max_players = static_cast<std::int32_t>(max_players);
  if (c.get("metrics")) {
    if (auto err = string_key(c, "metrics", s)) {
      return failure{*err};
    }
    if (!s.empty()) {
      auto a = parse_listen_address(s);
      if (!a) {
        return failure{c.error("metrics", "metrics", a.error())};
      }
      if (a->type != listen_address::kind::tcp) {
        return failure{c.error("metrics", "metrics", "must be a TCP HOST:PORT address")};
      }
      cfg.metrics = *a;
    }
  }
  if (auto err = path_key(c, "record", true, cfg.record)) {
    return failure{*err};
  }
  if (const entry* e = c.get("record_frames")) {
    if (!e->value->IsBool()) {
      return failure{c.error("record_frames", "record_frames", "must be true or false")};
    }
    cfg.record_frames = e->value->GetBool();
  }

  // The effective configuration, in the file's shape: explicit keys only, tokens blanked, paths
  // resolved (so a recording's header says which folder was loaded).
  rapidjson::Document out;
  out.SetObject();
  auto& alloc = out.GetAllocator();
  for (const auto& k : key_table) {
    const entry* e = c.get(k.key);
    if (e == nullptr) {
      continue;
    }
    rapidjson::Value v;
    if (k.key == "auth.controller_token" || k.key == "auth.observer_token") {
      v.SetString("", alloc);
    } else if (k.key == "emotes") {
      // Absolute, so that a recording's header names the folder wherever replay runs.
      v.SetString(fs::absolute(cfg.emotes).lexically_normal().string().c_str(), alloc);
    } else if (k.key == "record") {
      v.SetString(cfg.record.empty() ? ""
                                     : fs::absolute(cfg.record).lexically_normal().string().c_str(),
                  alloc);
    } else {
      v.CopyFrom(*e->value, alloc);
    }
    const auto dot = k.key.find('.');
    if (dot == std::string_view::npos) {
      out.AddMember(
          rapidjson::Value(k.key.data(), static_cast<rapidjson::SizeType>(k.key.size()), alloc), v,
          alloc);
      continue;
    }
    const std::string group(k.key.substr(0, dot));
    const std::string leaf(k.key.substr(dot + 1));
    auto it = out.FindMember(group.c_str());
    if (it == out.MemberEnd()) {
      out.AddMember(rapidjson::Value(group.c_str(), alloc),
                    rapidjson::Value(rapidjson::kObjectType), alloc);
      it = out.FindMember(group.c_str());
    }
    it->value.AddMember(rapidjson::Value(leaf.c_str(), alloc), v, alloc);
  }
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  out.Accept(w);
  cfg.effective_json.assign(sb.GetString(), sb.GetSize());
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

} // namespace emote::protocol
