#pragma once
// Access rules (players.md §6.4): the `disabled` list, permission holding, emote patterns,
// cooldown modifiers, idle settings, and the per-source checks of §6.2 steps 2a–2c.
//
// `access_rule` is the configuration shape (the same fields as sim::access_rule, which can alias
// it); `access_policy` is its validated, compiled form with the regular expressions built once.
// `access_policy::compile` is the one validation of access rules: the configuration loader only
// reads their JSON shape and reports compile's messages.
//
// Patterns are RE2 regular expressions (linear-time matching, no backreferences or lookaround),
// at most `max_pattern_bytes` long.

#include "engine/api/types.hpp"
#include "engine/core/result.hpp"
#include "engine/rules/id_set.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace emote::rules {

/// One entry of config `permissions`.
struct access_rule {
  /// `"95t"` (ticks = 95: base − 95) or `"x0.5"` (factor 0.5: base · 0.5), already parsed.
  struct cooldown_modifier {
    bool is_factor = false;
    double factor = 1.0;    ///< when is_factor: finite, ≥ 0
    std::int64_t ticks = 0; ///< when !is_factor: ≥ 0
    friend bool operator==(const cooldown_modifier&, const cooldown_modifier&) = default;
  };
  struct idle_settings {
    std::int64_t delay = 3600;       ///< ≥ 1 tick
    std::vector<std::string> emotes; ///< ids, or patterns in the equal form
    std::vector<std::int32_t>
        weights; ///< empty: equal form; else one weight per id (1..100, Σ 100)
    friend bool operator==(const idle_settings&, const idle_settings&) = default;
  };
  std::string permission;
  std::vector<std::string> emotes; ///< patterns: `*`, an identifier, or an RE2 regex
  std::optional<cooldown_modifier> cooldown;
  std::optional<idle_settings> idle;
  friend bool operator==(const access_rule&, const access_rule&) = default;
};

/// The longest regular expression a pattern may be.
inline constexpr std::size_t max_pattern_bytes = 1024;

/// `[{"permission": "emote.default", "emotes": ["*"], "idle": {"delay": "3600t", "emote":
/// ["emote:sit"]}}]`.
std::vector<access_rule> default_access_rules();

/// A config error: the JSON path of the offending value (`$.permissions[1].emotes[0]`) and why.
struct config_error {
  std::string path;
  std::string message;
};

/// The player holds `name` iff `permissions[name]` is true when given; an absent name is held
/// only if it is `emote.default`.
bool holds(const std::map<std::string, bool>& permissions, std::string_view name);

/// A holder of `emote.bypass`, or a request marked `bypass` (protocol.md §4).
bool bypass_holder(const std::map<std::string, bool>& permissions, bool bypass_requested);

/// players.md §6.2 "checks by source": `api` plays and bypass holders skip the cooldown entirely
/// (no check, claim or record); `command` and `idle` check and record.
bool skips_cooldown(api::play_source source, bool is_bypass_holder) noexcept;

/// Half-up rounding of the modified cooldown, clamped to [0, 2^31 − 1] (see
/// docs/guide/players-implementation.md).
std::int64_t apply_modifier(std::int64_t base, const access_rule::cooldown_modifier& m) noexcept;

/// An idle candidate after resolution against the catalog. `weight` is 0 in the equal form.
struct idle_candidate {
  std::string id;
  std::int32_t weight = 0;
  friend bool operator==(const idle_candidate&, const idle_candidate&) = default;
};

/// What steps 2a–2c need to know about a request.
struct play_check {
  api::play_source source = api::play_source::command;
  bool bypass_requested = false;
  const std::map<std::string, bool>* permissions = nullptr; ///< the player's; null = none
  std::string_view emote;
  bool standalone = true; ///< Sequences always are
};

class access_policy {
public:
  /// The defaults: nothing disabled, `default_access_rules()`.
  access_policy();

  /// Validate and compile. `disabled` is trimmed (Java `String.trim`), blank entries dropped and
  /// duplicates removed; permission names are trimmed. Errors: blank or duplicate permission
  /// names, invalid or too long regular expressions, invalid modifiers or idle settings.
  static core::result<access_policy, config_error> compile(std::vector<std::string> disabled,
                                                           std::vector<access_rule> rules);

  [[nodiscard]] const std::vector<std::string>& disabled() const noexcept { return disabled_; }
  [[nodiscard]] const std::vector<access_rule>& rules() const noexcept;

  [[nodiscard]] bool is_disabled(std::string_view id) const noexcept;

  /// Whether entry `rule`'s patterns match `id`. `*` matches every id, even one not in the
  /// catalog; every other pattern matches only ids in `catalog`.
  [[nodiscard]] bool matches(std::size_t rule, std::string_view id, const id_set& catalog) const;

  /// Allowed(player, id): some entry matching `id` has a permission the player holds.
  [[nodiscard]] bool allowed(const std::map<std::string, bool>& permissions, std::string_view id,
                             const id_set& catalog) const;

  /// `eff` for a base cooldown: the modifier of the first entry (list order) that matches, is
  /// held and has `cooldown`; the base when there is none.
  [[nodiscard]] std::int64_t effective_cooldown(const std::map<std::string, bool>& permissions,
                                                std::string_view id, const id_set& catalog,
                                                std::int64_t base) const;

  /// Steps 2a (standalone), 2b (disabled), 2c (permission) as the source requires them:
  /// `command` all three, `idle` 2a and 2b, `api` and bypass holders none. The first failure.
  [[nodiscard]] std::optional<api::error> check(const play_check& c, const id_set& catalog) const;

  /// The index of the first entry that has `idle` and is held.
  [[nodiscard]] std::optional<std::size_t>
  idle_rule(const std::map<std::string, bool>& permissions) const;

  /// Entry `rule`'s idle candidates resolved against the catalog: ids in list order, keeping
  /// only loaded ones; in the equal form `*` and regular expressions expand to the matching
  /// catalog ids in ascending order. Duplicates keep their first place.
  [[nodiscard]] std::vector<idle_candidate> idle_candidates(std::size_t rule,
                                                            const id_set& catalog) const;

private:
  struct pattern {
    enum class kind : std::uint8_t { any, literal, regex } type = kind::literal;
    std::string text;
    std::shared_ptr<const re2::RE2> re; ///< shared so that policies copy cheaply
  };
  struct compiled_rule {
    access_rule rule;
    std::vector<pattern> patterns;
    std::vector<pattern> idle_patterns; ///< equal form only
  };

  struct empty_tag {};
  explicit access_policy(empty_tag) {}

  [[nodiscard]] static bool match(const pattern& p, std::string_view id, const id_set& catalog);

  std::vector<std::string> disabled_;
  std::vector<compiled_rule> rules_;
  std::vector<access_rule> plain_rules_;
};

} // namespace emote::rules
