#include "engine/rules/access.hpp"

#include "engine/core/identifier.hpp"
#include "engine/core/time_string.hpp"
#include "engine/rules/play_errors.hpp"

#include <re2/re2.h>

#include <cmath>
#include <set>

namespace emote::rules {
namespace {

std::string rule_path(std::size_t i) {
  return "$.permissions[" + std::to_string(i) + "]";
}

} // namespace

std::vector<access_rule> default_access_rules() {
  access_rule rule;
  rule.permission = "emote.default";
  rule.emotes = {"*"};
  rule.idle = access_rule::idle_settings{3600, {"emote:sit"}, {}};
  return {rule};
}

bool holds(const std::map<std::string, bool>& permissions, std::string_view name) {
  // The map has no transparent comparator; a walk avoids building a key string on every check
  // (play requests and the idle pass must not allocate in steady state). Maps are small.
  for (const auto& [k, v] : permissions) {
    if (k == name) {
      return v;
    }
  }
  return name == "emote.default";
}

bool bypass_holder(const std::map<std::string, bool>& permissions, bool bypass_requested) {
  return bypass_requested || holds(permissions, "emote.bypass");
}

bool skips_cooldown(api::play_source source, bool is_bypass_holder) noexcept {
  return source == api::play_source::api || is_bypass_holder;
}

std::int64_t apply_modifier(std::int64_t base, const access_rule::cooldown_modifier& m) noexcept {
  constexpr double cap = 2147483647.0;
  double r = 0;
  if (m.is_factor) {
    r = static_cast<double>(base) * m.factor;
  } else {
    r = static_cast<double>(base - m.ticks);
  }
  const double rounded = std::floor(r + 0.5);
  if (!(rounded > 0)) {
    return 0; // also NaN
  }
  return rounded >= cap ? static_cast<std::int64_t>(cap) : static_cast<std::int64_t>(rounded);
}

access_policy::access_policy() {
  auto compiled = compile({}, default_access_rules());
  *this = std::move(*compiled);
}

core::result<access_policy, config_error> access_policy::compile(std::vector<std::string> disabled,
                                                                 std::vector<access_rule> rules) {
  access_policy out{empty_tag{}};
  std::set<std::string, std::less<>> seen_disabled;
  for (const auto& d : disabled) {
    const std::string_view t = core::java_trim(d);
    if (!t.empty() && seen_disabled.emplace(t).second) {
      out.disabled_.emplace_back(t);
    }
  }

  // `*`, an identifier, or a regular expression matched against the whole id.
  auto make_pattern = [](const std::string& text) -> core::result<pattern, std::string> {
    pattern p;
    p.text = text;
    if (text == "*") {
      p.type = pattern::kind::any;
      return p;
    }
    if (core::is_identifier(text)) {
      p.type = pattern::kind::literal;
      return p;
    }
    if (text.size() > max_pattern_bytes) {
      return core::failure{"regular expression is longer than " +
                           std::to_string(max_pattern_bytes) + " bytes"};
    }
    re2::RE2::Options options;
    options.set_log_errors(false);
    auto re = std::make_shared<const re2::RE2>(text, options);
    if (!re->ok()) {
      return core::failure{"is neither *, an identifier nor a valid regular expression: " +
                           re->error()};
    }
    p.type = pattern::kind::regex;
    p.re = std::move(re);
    return p;
  };

  std::set<std::string, std::less<>> names;
  for (std::size_t i = 0; i < rules.size(); ++i) {
    access_rule& r = rules[i];
    const std::string base = rule_path(i);
    r.permission = std::string(core::java_trim(r.permission));
    if (r.permission.empty()) {
      return core::failure{config_error{base + ".permission", "must not be blank"}};
    }
    if (!names.emplace(r.permission).second) {
      return core::failure{
          config_error{base + ".permission", "duplicate permission '" + r.permission + "'"}};
    }
    compiled_rule cr;
    cr.rule = r;
    for (std::size_t j = 0; j < r.emotes.size(); ++j) {
      auto p = make_pattern(r.emotes[j]);
      if (!p) {
        return core::failure{
            config_error{base + ".emotes[" + std::to_string(j) + "]", std::move(p.error())}};
      }
      cr.patterns.push_back(std::move(*p));
    }
    if (r.cooldown) {
      const auto& m = *r.cooldown;
      if (m.is_factor && !(std::isfinite(m.factor) && m.factor >= 0)) {
        return core::failure{
            config_error{base + ".cooldown", "factor must be a finite number >= 0"}};
      }
      if (!m.is_factor && m.ticks < 0) {
        return core::failure{config_error{base + ".cooldown", "must not be negative"}};
      }
    }
    if (r.idle) {
      const auto& idle = *r.idle;
      const std::string ip = base + ".idle";
      if (idle.delay < 1) {
        return core::failure{config_error{
            ip + ".delay", "must be a valid Minecraft time: " +
                               std::string(core::time_error_detail(core::time_error::too_low))}};
      }
      if (idle.emotes.empty()) {
        return core::failure{config_error{ip + ".emote", "must not be empty"}};
      }
      std::set<std::string, std::less<>> ids;
      const bool weighted = !idle.weights.empty();
      if (weighted && idle.weights.size() != idle.emotes.size()) {
        return core::failure{config_error{ip + ".emote", "every id needs a weight"}};
      }
      std::int64_t total = 0;
      for (std::size_t j = 0; j < idle.emotes.size(); ++j) {
        const std::string& id = idle.emotes[j];
        const std::string jp = ip + ".emote[" + std::to_string(weighted ? 2 * j : j) + "]";
        if (weighted) {
          if (!core::is_identifier(id)) {
            return core::failure{
                config_error{jp, "must be a valid lowercase Minecraft identifier (patterns are "
                                 "only allowed in the equal-weight form)"}};
          }
          const std::int32_t w = idle.weights[j];
          if (w < 1 || w > 100) {
            return core::failure{config_error{ip + ".emote[" + std::to_string(2 * j + 1) + "]",
                                              "must be an integer between 1 and 100"}};
          }
          total += w;
        } else {
          auto p = make_pattern(id);
          if (!p) {
            return core::failure{config_error{jp, std::move(p.error())}};
          }
          cr.idle_patterns.push_back(std::move(*p));
        }
        if (!ids.emplace(id).second) {
          return core::failure{config_error{jp, "repeats '" + id + "'"}};
        }
      }
      if (weighted && total != 100) {
        return core::failure{config_error{ip + ".emote", "weights must total 100 (got " +
                                                             std::to_string(total) + ")"}};
      }
    }
    out.rules_.push_back(std::move(cr));
  }
  out.plain_rules_ = std::move(rules);
  return out;
}

const std::vector<access_rule>& access_policy::rules() const noexcept {
  return plain_rules_;
}

bool access_policy::is_disabled(std::string_view id) const noexcept {
  for (const auto& d : disabled_) {
    if (d == id) {
      return true;
    }
  }
  return false;
}

bool access_policy::match(const pattern& p, std::string_view id, const id_set& catalog) {
  switch (p.type) {
  case pattern::kind::any:
    return true;
  case pattern::kind::literal:
    return p.text == id && catalog.contains(id);
  case pattern::kind::regex:
    return catalog.contains(id) &&
           re2::RE2::FullMatch(re2::StringPiece(id.data(), id.size()), *p.re);
  }
  return false;
}

bool access_policy::matches(std::size_t rule, std::string_view id, const id_set& catalog) const {
  for (const auto& p : rules_.at(rule).patterns) {
    if (match(p, id, catalog)) {
      return true;
    }
  }
  return false;
}

bool access_policy::allowed(const std::map<std::string, bool>& permissions, std::string_view id,
                            const id_set& catalog) const {
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    if (holds(permissions, rules_[i].rule.permission) && matches(i, id, catalog)) {
      return true;
    }
  }
  return false;
}

std::int64_t access_policy::effective_cooldown(const std::map<std::string, bool>& permissions,
                                               std::string_view id, const id_set& catalog,
                                               std::int64_t base) const {
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    const access_rule& r = rules_[i].rule;
    if (r.cooldown && holds(permissions, r.permission) && matches(i, id, catalog)) {
      return apply_modifier(base, *r.cooldown);
    }
  }
  return base;
}

std::optional<api::error> access_policy::check(const play_check& c, const id_set& catalog) const {
  static const std::map<std::string, bool> no_permissions;
  const auto& perms = c.permissions ? *c.permissions : no_permissions;
  if (c.source == api::play_source::api || bypass_holder(perms, c.bypass_requested)) {
    return std::nullopt;
  }
  if (!c.standalone) {
    return play_error(api::error_code::not_standalone);
  }
  if (is_disabled(c.emote)) {
    return play_error(api::error_code::disabled);
  }
  if (c.source == api::play_source::command && !allowed(perms, c.emote, catalog)) {
    return play_error(api::error_code::no_permission);
  }
  return std::nullopt;
}

std::optional<std::size_t>
access_policy::idle_rule(const std::map<std::string, bool>& permissions) const {
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    if (rules_[i].rule.idle && holds(permissions, rules_[i].rule.permission)) {
      return i;
    }
  }
  return std::nullopt;
}

std::vector<idle_candidate> access_policy::idle_candidates(std::size_t rule,
                                                           const id_set& catalog) const {
  const compiled_rule& cr = rules_.at(rule);
  std::vector<idle_candidate> out;
  if (!cr.rule.idle) {
    return out;
  }
  const auto& idle = *cr.rule.idle;
  std::set<std::string, std::less<>> taken;
  auto add = [&](const std::string& id, std::int32_t weight) {
    if (taken.emplace(id).second) {
      out.push_back({id, weight});
    }
  };
  if (!idle.weights.empty()) {
    for (std::size_t j = 0; j < idle.emotes.size(); ++j) {
      if (catalog.contains(idle.emotes[j])) {
        add(idle.emotes[j], idle.weights[j]);
      }
    }
    return out;
  }
  for (const auto& p : cr.idle_patterns) {
    if (p.type == pattern::kind::literal) {
      if (catalog.contains(p.text)) {
        add(p.text, 0);
      }
      continue;
    }
    for (const auto& id : catalog.ids()) {
      if (match(p, id, catalog)) {
        add(id, 0);
      }
    }
  }
  return out;
}

} // namespace emote::rules
