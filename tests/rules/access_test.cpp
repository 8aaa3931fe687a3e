#include "engine/rules/access.hpp"

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

using namespace emote;
using namespace emote::rules;

namespace {

using perms_t = std::map<std::string, bool>;

access_rule rule(std::string permission, std::vector<std::string> emotes) {
  access_rule r;
  r.permission = std::move(permission);
  r.emotes = std::move(emotes);
  return r;
}

access_policy compiled(std::vector<std::string> disabled, std::vector<access_rule> rules) {
  auto p = access_policy::compile(std::move(disabled), std::move(rules));
  REQUIRE(p.ok());
  return std::move(*p);
}

std::optional<api::error_code> code_of(const std::optional<api::error>& e) {
  return e ? std::optional<api::error_code>(e->code) : std::nullopt;
}

} // namespace

TEST_CASE("holding: given values count, absent names only for emote.default") {
  const perms_t none;
  CHECK(holds(none, "emote.default"));
  CHECK_FALSE(holds(none, "emote.bypass"));
  CHECK_FALSE(holds(none, "emote.vip"));
  const perms_t p{{"emote.default", false}, {"emote.vip", true}, {"emote.bypass", false}};
  CHECK_FALSE(holds(p, "emote.default"));
  CHECK(holds(p, "emote.vip"));
  CHECK_FALSE(bypass_holder(p, false));
  CHECK(bypass_holder(p, true));
  CHECK(bypass_holder(perms_t{{"emote.bypass", true}}, false));
}

TEST_CASE("the default rules allow everything to emote.default holders with idle emote:sit") {
  const access_policy policy;
  REQUIRE(policy.rules().size() == 1);
  CHECK(policy.rules()[0].permission == "emote.default");
  const id_set catalog({"emote:sit"});
  CHECK(policy.allowed({}, "emote:sit", catalog));
  CHECK_FALSE(policy.allowed(perms_t{{"emote.default", false}}, "emote:sit", catalog));
  REQUIRE(policy.idle_rule({}));
  CHECK(policy.rules()[*policy.idle_rule({})].idle->delay == 3600);
  CHECK(policy.idle_candidates(0, catalog) == std::vector<idle_candidate>{{"emote:sit", 0}});
}

TEST_CASE("R8: steps 2a-2c for a command") {
  const access_policy policy = compiled({"demo:disabled", "demo:both"}, default_access_rules());
  const id_set catalog({"demo:allowed", "demo:disabled", "demo:internal", "demo:both"});
  auto check = [&](const char* id, bool standalone) {
    play_check c;
    c.emote = id;
    c.standalone = standalone;
    return code_of(policy.check(c, catalog));
  };
  CHECK_FALSE(check("demo:allowed", true));
  CHECK(check("demo:disabled", true) == api::error_code::disabled);
  CHECK(check("demo:internal", false) == api::error_code::not_standalone);
  CHECK(check("demo:both", false) == api::error_code::not_standalone); // 2a before 2b
  play_check c;
  c.emote = "demo:disabled";
  CHECK(policy.check(c, catalog)->message == "This emote is currently unavailable.");
  c.emote = "demo:internal";
  c.standalone = false;
  CHECK(policy.check(c, catalog)->message ==
        "This emote can only be played as part of a sequence.");
}

TEST_CASE("R9: idle checks standalone and disabled, never the permission, and the cooldown") {
  const access_policy policy = compiled({"demo:disabled"}, default_access_rules());
  const id_set catalog({"demo:allowed", "demo:disabled", "demo:internal"});
  const perms_t no_default{{"emote.default", false}};
  play_check c;
  c.source = api::play_source::idle;
  c.permissions = &no_default;
  c.emote = "demo:allowed";
  CHECK_FALSE(policy.check(c, catalog));
  c.source = api::play_source::command;
  CHECK(code_of(policy.check(c, catalog)) == api::error_code::no_permission);
  CHECK(policy.check(c, catalog)->message == "You do not have permission to use this emote.");
  c.source = api::play_source::idle;
  c.emote = "demo:disabled";
  CHECK(code_of(policy.check(c, catalog)) == api::error_code::disabled);
  c.emote = "demo:internal";
  c.standalone = false;
  CHECK(code_of(policy.check(c, catalog)) == api::error_code::not_standalone);
  CHECK_FALSE(skips_cooldown(api::play_source::idle, false));
  CHECK_FALSE(skips_cooldown(api::play_source::command, false));
}

TEST_CASE("R10 and bypass: api plays and bypass holders skip every check") {
  const access_policy policy = compiled({"demo:internal"}, {rule("emote.other", {"*"})});
  const id_set catalog({"demo:internal"});
  play_check c;
  c.source = api::play_source::api;
  c.emote = "demo:internal";
  c.standalone = false;
  CHECK_FALSE(policy.check(c, catalog));
  CHECK(skips_cooldown(api::play_source::api, false));

  c.source = api::play_source::command;
  CHECK(policy.check(c, catalog));
  c.bypass_requested = true;
  CHECK_FALSE(policy.check(c, catalog));
  c.bypass_requested = false;
  const perms_t bypass{{"emote.bypass", true}};
  c.permissions = &bypass;
  CHECK_FALSE(policy.check(c, catalog));
  c.source = api::play_source::idle;
  CHECK_FALSE(policy.check(c, catalog));
  CHECK(skips_cooldown(api::play_source::idle, true));
}

TEST_CASE("R12: the modifier comes from the first matching, held entry with a cooldown") {
  std::vector<access_rule> rules;
  rules.push_back(rule("emote.unavailable", {"*"}));
  rules.back().cooldown = access_rule::cooldown_modifier{false, 1.0, 95};
  rules.push_back(rule("emote.unmodified", {"demo:wave"}));
  rules.push_back(rule("emote.vip", {"demo:.*"}));
  rules.back().cooldown = access_rule::cooldown_modifier{true, 0.5, 0};
  rules.push_back(rule("emote.default", {"*"}));
  rules.back().cooldown = access_rule::cooldown_modifier{true, 2.0, 0};
  const access_policy policy = compiled({}, rules);
  const id_set catalog({"demo:wave", "other:thing"});
  const perms_t perms{{"emote.unmodified", true}, {"emote.vip", true}};
  CHECK(policy.effective_cooldown(perms, "demo:wave", catalog, 101) == 51);
  // Without vip the default's x2 applies; with emote.unavailable held its 95t wins.
  CHECK(policy.effective_cooldown({}, "demo:wave", catalog, 101) == 202);
  CHECK(policy.effective_cooldown(perms_t{{"emote.unavailable", true}}, "demo:wave", catalog,
                                  101) == 6);
  // Not matching demo:.* (another namespace): the default's x2.
  CHECK(policy.effective_cooldown(perms, "other:thing", catalog, 101) == 202);
  // No entry at all: the base.
  CHECK(policy.effective_cooldown(perms_t{{"emote.default", false}}, "other:thing", catalog, 101) ==
        101);
}

TEST_CASE("R13: modifier arithmetic, rounded half up and clamped at 0") {
  CHECK(apply_modifier(100, {true, 2.0, 0}) == 200);
  CHECK(apply_modifier(80, {false, 1.0, 100}) == 0);
  CHECK(apply_modifier(101, {true, 0.5, 0}) == 51);
  CHECK(apply_modifier(3, {true, 0.5, 0}) == 2);  // 1.5 → 2
  CHECK(apply_modifier(1, {true, 0.49, 0}) == 0); // 0.49 → 0
  CHECK(apply_modifier(100, {true, 0.0, 0}) == 0);
  CHECK(apply_modifier(100, {false, 1.0, 40}) == 60);
  CHECK(apply_modifier(2000000000, {true, 1e300, 0}) == 2147483647);
}

TEST_CASE("R14: a regular expression must match the whole id") {
  const access_policy policy = compiled({}, {rule("emote.default", {"demo:(wave|dance_[0-9]+)"})});
  const id_set catalog({"demo:wave", "demo:dance_12", "demo:wave_fast", "demo:dance_fast"});
  CHECK(policy.allowed({}, "demo:wave", catalog));
  CHECK(policy.allowed({}, "demo:dance_12", catalog));
  CHECK_FALSE(policy.allowed({}, "demo:wave_fast", catalog));
  CHECK_FALSE(policy.allowed({}, "demo:dance_fast", catalog));
}

TEST_CASE("R15: a valid identifier is literal") {
  const access_policy policy = compiled({}, {rule("emote.default", {"demo:sample.1"})});
  const id_set catalog({"demo:sample.1", "demo:samplex1"});
  CHECK(policy.allowed({}, "demo:sample.1", catalog));
  CHECK_FALSE(policy.allowed({}, "demo:samplex1", catalog));
}

TEST_CASE("R16: * matches ids outside the catalog") {
  const access_policy policy = compiled({}, {rule("emote.default", {"*"})});
  const id_set catalog({"demo:wave"});
  CHECK(policy.allowed({}, "api:late", catalog));
}

TEST_CASE("R17: other patterns match only ids in the catalog") {
  const access_policy policy = compiled({}, {rule("emote.default", {"api:.*"})});
  CHECK_FALSE(policy.allowed({}, "api:wave", id_set({"demo:x"})));
  CHECK(policy.allowed({}, "api:wave", id_set({"demo:x", "api:wave"})));
  CHECK_FALSE(policy.allowed({}, "api:wave", id_set({"demo:x"})));
  // Literal identifiers too.
  const access_policy literal = compiled({}, {rule("emote.default", {"api:wave"})});
  CHECK_FALSE(literal.allowed({}, "api:wave", id_set({"demo:x"})));
  CHECK(literal.allowed({}, "api:wave", id_set({"api:wave"})));
}

TEST_CASE("R18: idle settings come from the first held entry that has them") {
  std::vector<access_rule> rules;
  rules.push_back(rule("emote.none", {"*"})); // held, no idle
  rules.push_back(rule("emote.vip", {"*"}));
  rules.back().idle = access_rule::idle_settings{200, {"demo:a"}, {}};
  rules.push_back(rule("emote.default", {"*"}));
  rules.back().idle = access_rule::idle_settings{400, {"demo:b"}, {}};
  const access_policy policy = compiled({}, rules);
  const perms_t both{{"emote.none", true}, {"emote.vip", true}};
  REQUIRE(policy.idle_rule(both));
  CHECK(policy.rules()[*policy.idle_rule(both)].idle->delay == 200);
  REQUIRE(policy.idle_rule({}));
  CHECK(policy.rules()[*policy.idle_rule({})].idle->delay == 400);
  CHECK_FALSE(policy.idle_rule(perms_t{{"emote.default", false}}));
}

TEST_CASE("allowed needs a matching entry whose permission is held") {
  const access_policy policy =
      compiled({}, {rule("emote.vip", {"demo:vip_.*"}), rule("emote.default", {"demo:wave"})});
  const id_set catalog({"demo:wave", "demo:vip_dance"});
  CHECK(policy.allowed({}, "demo:wave", catalog));
  CHECK_FALSE(policy.allowed({}, "demo:vip_dance", catalog));
  CHECK(policy.allowed(perms_t{{"emote.vip", true}}, "demo:vip_dance", catalog));
  CHECK_FALSE(policy.allowed(perms_t{{"emote.vip", false}}, "demo:vip_dance", catalog));
}

TEST_CASE("disabled is trimmed, non-blank and de-duplicated") {
  const access_policy policy =
      compiled({" demo:a ", "", "  ", "demo:a", "\tdemo:b\n"}, default_access_rules());
  CHECK(policy.disabled() == std::vector<std::string>{"demo:a", "demo:b"});
  CHECK(policy.is_disabled("demo:a"));
  CHECK(policy.is_disabled("demo:b"));
  CHECK_FALSE(policy.is_disabled(" demo:a "));
}

TEST_CASE("config errors name the offending value") {
  auto dup = access_policy::compile({}, {rule("emote.x", {"*"}), rule("emote.x", {"*"})});
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().path == "$.permissions[1].permission");

  auto bad_re = access_policy::compile({}, {rule("emote.x", {"demo:(wave"})});
  REQUIRE_FALSE(bad_re.ok());
  CHECK(bad_re.error().path == "$.permissions[0].emotes[0]");
  CHECK(bad_re.error().message.starts_with(
      "is neither *, an identifier nor a valid regular expression: missing )"));

  access_rule r = rule("emote.x", {"*"});
  r.cooldown = access_rule::cooldown_modifier{true, -1.0, 0};
  auto bad_factor = access_policy::compile({}, {r});
  REQUIRE_FALSE(bad_factor.ok());
  CHECK(bad_factor.error().path == "$.permissions[0].cooldown");

  r.cooldown.reset();
  r.idle = access_rule::idle_settings{0, {"demo:a"}, {}};
  auto bad_delay = access_policy::compile({}, {r});
  REQUIRE_FALSE(bad_delay.ok());
  CHECK(bad_delay.error().path == "$.permissions[0].idle.delay");
  CHECK(bad_delay.error().message == "must be a valid Minecraft time: tick count too low");

  r.idle = access_rule::idle_settings{10, {"demo:a", "demo:b"}, {50, 40}};
  auto bad_total = access_policy::compile({}, {r});
  REQUIRE_FALSE(bad_total.ok());
  CHECK(bad_total.error().path == "$.permissions[0].idle.emote");
  CHECK(bad_total.error().message == "weights must total 100 (got 90)");

  r.idle = access_rule::idle_settings{10, {"demo:a", "demo:.*"}, {50, 50}};
  auto regex_weighted = access_policy::compile({}, {r});
  REQUIRE_FALSE(regex_weighted.ok());
  CHECK(regex_weighted.error().path == "$.permissions[0].idle.emote[2]");

  r.idle = access_rule::idle_settings{10, {"demo:a", "demo:a"}, {}};
  auto repeated = access_policy::compile({}, {r});
  REQUIRE_FALSE(repeated.ok());
  CHECK(repeated.error().path == "$.permissions[0].idle.emote[1]");

  r.idle = access_rule::idle_settings{10, {"demo:a", "demo:b"}, {0, 100}};
  auto zero_weight = access_policy::compile({}, {r});
  REQUIRE_FALSE(zero_weight.ok());
  CHECK(zero_weight.error().path == "$.permissions[0].idle.emote[1]");
}

TEST_CASE("patterns are RE2 expressions matched against the whole id, bounded in length") {
  const id_set catalog({"demo:wave", "demo:wave_2", "demo:dance"});
  const access_policy p = compiled({}, {rule("emote.default", {"demo:wave(_[0-9])?", "demo:d"})});
  CHECK(p.matches(0, "demo:wave", catalog));
  CHECK(p.matches(0, "demo:wave_2", catalog));
  CHECK_FALSE(p.matches(0, "demo:dance", catalog)); // `demo:d` is a literal id
  CHECK_FALSE(p.matches(0, "demo:wave_x", catalog));
  const access_policy classes = compiled({}, {rule("emote.default", {"demo:\\w+_\\d"})});
  CHECK(classes.matches(0, "demo:wave_2", catalog));
  CHECK_FALSE(classes.matches(0, "demo:wave", catalog));

  const std::string longest = "demo:" + std::string(max_pattern_bytes - 7, 'a') + ".*";
  REQUIRE(longest.size() == max_pattern_bytes);
  CHECK(access_policy::compile({}, {rule("emote.x", {longest})}).ok());
  auto too_long = access_policy::compile({}, {rule("emote.x", {longest + "b"})});
  REQUIRE_FALSE(too_long.ok());
  CHECK(too_long.error().message == "regular expression is longer than 1024 bytes");
  // Nesting and repetition do not recurse or expand unboundedly: RE2 refuses what is too big.
  CHECK_FALSE(access_policy::compile({}, {rule("emote.x", {"x{1000}{1000}"})}).ok());
  CHECK(access_policy::compile(
            {}, {rule("emote.x", {std::string(500, '(') + "a" + std::string(500, ')')})})
            .ok());
  // Backreferences and lookahead are not RE2 syntax.
  CHECK_FALSE(access_policy::compile({}, {rule("emote.x", {"(a)\\1"})}).ok());
  CHECK_FALSE(access_policy::compile({}, {rule("emote.x", {"a(?=b)"})}).ok());
}

TEST_CASE("permission names are trimmed; blank and duplicate names are refused") {
  const access_policy p = compiled({}, {rule(" emote.vip\t", {"*"})});
  CHECK(p.rules()[0].permission == "emote.vip");
  auto dup = access_policy::compile({}, {rule("emote.x", {"*"}), rule(" emote.x ", {"*"})});
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().message == "duplicate permission 'emote.x'");
  auto blank = access_policy::compile({}, {rule(" ", {"*"})});
  REQUIRE_FALSE(blank.ok());
  CHECK(blank.error().message == "must not be blank");
}

TEST_CASE("idle candidates resolve against the catalog") {
  access_rule equal = rule("emote.default", {"*"});
  equal.idle =
      access_rule::idle_settings{100, {"demo:z", "demo:idle_.*", "demo:gone", "demo:idle_b"}, {}};
  const access_policy policy = compiled({}, {equal});
  const id_set catalog({"demo:idle_b", "demo:idle_a", "demo:z", "other:idle_c"});
  CHECK(policy.idle_candidates(0, catalog) ==
        std::vector<idle_candidate>{{"demo:z", 0}, {"demo:idle_a", 0}, {"demo:idle_b", 0}});

  access_rule weighted = rule("emote.default", {"*"});
  weighted.idle = access_rule::idle_settings{100, {"demo:a", "demo:gone", "demo:b"}, {30, 40, 30}};
  const access_policy wp = compiled({}, {weighted});
  CHECK(wp.idle_candidates(0, id_set({"demo:a", "demo:b"})) ==
        std::vector<idle_candidate>{{"demo:a", 30}, {"demo:b", 30}});
}
