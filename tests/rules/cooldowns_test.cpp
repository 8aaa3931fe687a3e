#include "engine/rules/cooldowns.hpp"

#include "engine/rules/access.hpp"

#include <doctest/doctest.h>

#include <optional>
#include <string>

using namespace emote;
using namespace emote::rules;

namespace {

/// One play attempt through the cooldown steps of the pipeline (2d, 3, 8) with a start that
/// always succeeds. Returns the refusal message, or "" for OK.
std::string play(cooldown_table& t, const char* player, const char* emote, tick_number now,
                 std::int64_t eff) {
  if (auto refusal = t.check(player, emote, now)) {
    return refusal->message;
  }
  t.claim(player, emote, eff);
  t.started(player, emote, now, eff);
  return "";
}

} // namespace

TEST_CASE("cooldown seconds round up") {
  CHECK(cooldown_seconds(1) == 1);
  CHECK(cooldown_seconds(19) == 1);
  CHECK(cooldown_seconds(20) == 1);
  CHECK(cooldown_seconds(21) == 2);
  CHECK(cooldown_seconds(99) == 5);
  CHECK(cooldown_seconds(100) == 5);
}

TEST_CASE("R1: start mode, cooldown 100, counted from the start") {
  cooldown_table t(cooldown_mode::start);
  CHECK(play(t, "alice", "demo:wave", 0, 100).empty());
  CHECK(play(t, "alice", "demo:wave", 1, 100) == "Emote cooldown: 5s remaining.");
  CHECK(play(t, "alice", "demo:wave", 81, 100) == "Emote cooldown: 1s remaining.");
  CHECK(play(t, "alice", "demo:wave", 99, 100) == "Emote cooldown: 1s remaining.");
  CHECK(play(t, "alice", "demo:wave", 100, 100).empty());
  // The refusal carries the code and the remaining ticks.
  auto r = t.check("alice", "demo:wave", 150);
  REQUIRE(r);
  CHECK(r->code == api::error_code::cooldown);
  CHECK(r->remaining_ticks == std::optional<std::int64_t>(50));
}

TEST_CASE("R2: stop mode states and messages") {
  cooldown_table t(cooldown_mode::stop);
  CHECK(t.status("alice", "demo:wave", 0).state == cooldown_state::available);
  CHECK(play(t, "alice", "demo:wave", 0, 20).empty());
  CHECK(t.status("alice", "demo:wave", 0).state == cooldown_state::in_use);
  CHECK(t.status("alice", "demo:wave", 0).eff == 20);
  auto refusal = t.check("alice", "demo:wave", 5);
  REQUIRE(refusal);
  CHECK(refusal->code == api::error_code::already_playing);
  CHECK(refusal->message == "This emote is already playing.");
  t.stopped("alice", "demo:wave", 10);
  CHECK(t.status("alice", "demo:wave", 10).state == cooldown_state::cooling_down);
  CHECK(t.status("alice", "demo:wave", 10).remaining == 20);
  refusal = t.check("alice", "demo:wave", 10);
  REQUIRE(refusal);
  CHECK(refusal->code == api::error_code::cooldown);
  CHECK(refusal->message == "You can use this emote again in 1 second.");
  CHECK(refusal->remaining_ticks == std::optional<std::int64_t>(20));
  CHECK(t.status("alice", "demo:wave", 29).remaining == 1);
  CHECK(t.check("alice", "demo:wave", 29)->message == "You can use this emote again in 1 second.");
  CHECK(t.status("alice", "demo:wave", 30).state == cooldown_state::available);
  CHECK_FALSE(t.check("alice", "demo:wave", 30));
  CHECK(t.size() == 0); // the expired entry was deleted by the check
}

TEST_CASE("R3: stop mode, 100, stop@10, check@10") {
  cooldown_table t(cooldown_mode::stop);
  CHECK(play(t, "alice", "demo:wave", 0, 100).empty());
  t.stopped("alice", "demo:wave", 10);
  CHECK(t.check("alice", "demo:wave", 10)->message == "You can use this emote again in 5 seconds.");
}

TEST_CASE("R4: stop mode claims released by a failed start or a released reservation") {
  cooldown_table t(cooldown_mode::stop);
  REQUIRE_FALSE(t.check("alice", "demo:wave", 0));
  t.claim("alice", "demo:wave", 40);
  t.release("alice", "demo:wave"); // DISPLAY_LIMIT
  CHECK(t.status("alice", "demo:wave", 0).state == cooldown_state::available);

  t.claim("bob", "demo:hug", 40); // reservation
  t.release("bob", "demo:hug");   // released for any cause
  CHECK(t.status("bob", "demo:hug", 0).state == cooldown_state::available);

  // A release never undoes a cooling-down entry.
  t.claim("carol", "demo:wave", 40);
  t.stopped("carol", "demo:wave", 5);
  t.release("carol", "demo:wave");
  CHECK(t.status("carol", "demo:wave", 5).state == cooldown_state::cooling_down);
}

TEST_CASE("R5: stop mode, two emotes, one stops, then cooldowns.clear") {
  cooldown_table t(cooldown_mode::stop);
  CHECK(play(t, "alice", "demo:wave", 0, 20).empty());
  CHECK(play(t, "alice", "demo:dance", 0, 40).empty());
  t.stopped("alice", "demo:wave", 3);
  CHECK(t.status("alice", "demo:wave", 3).state == cooldown_state::cooling_down);
  CHECK(t.status("alice", "demo:dance", 3).state == cooldown_state::in_use);
  CHECK(t.clear() == 2);
  CHECK(t.status("alice", "demo:wave", 3).state == cooldown_state::available);
  CHECK(t.status("alice", "demo:dance", 3).state == cooldown_state::available);
  // The cleared dance stopping later records nothing.
  t.stopped("alice", "demo:dance", 9);
  CHECK(t.status("alice", "demo:dance", 9).state == cooldown_state::available);
}

TEST_CASE("R11: cooldown 20 in both modes") {
  cooldown_table s(cooldown_mode::start);
  CHECK(play(s, "alice", "demo:wave", 0, 20).empty());
  CHECK(play(s, "alice", "demo:wave", 0, 20) == "Emote cooldown: 1s remaining.");
  CHECK(play(s, "alice", "demo:wave", 19, 20) == "Emote cooldown: 1s remaining.");
  CHECK(play(s, "alice", "demo:wave", 20, 20).empty());

  cooldown_table t(cooldown_mode::stop);
  CHECK(play(t, "alice", "demo:wave", 0, 20).empty());
  CHECK(t.check("alice", "demo:wave", 5)->code == api::error_code::already_playing);
  t.stopped("alice", "demo:wave", 10);
  CHECK(t.check("alice", "demo:wave", 10)->code == api::error_code::cooldown);
  CHECK(t.check("alice", "demo:wave", 29)->code == api::error_code::cooldown);
  CHECK(play(t, "alice", "demo:wave", 30, 20).empty());
}

TEST_CASE("R12: a modified cooldown of 51 in both modes") {
  std::vector<access_rule> rules(4);
  rules[0].permission = "emote.unavailable";
  rules[0].emotes = {"*"};
  rules[0].cooldown = access_rule::cooldown_modifier{false, 1.0, 95};
  rules[1].permission = "emote.unmodified";
  rules[1].emotes = {"demo:wave"};
  rules[2].permission = "emote.vip";
  rules[2].emotes = {"demo:.*"};
  rules[2].cooldown = access_rule::cooldown_modifier{true, 0.5, 0};
  rules[3].permission = "emote.default";
  rules[3].emotes = {"*"};
  rules[3].cooldown = access_rule::cooldown_modifier{true, 2.0, 0};
  auto policy = access_policy::compile({}, rules);
  REQUIRE(policy.ok());
  const std::map<std::string, bool> perms{
      {"emote.unmodified", true}, {"emote.vip", true}, {"emote.default", true}};
  const id_set catalog({"demo:wave"});
  const std::int64_t eff = policy->effective_cooldown(perms, "demo:wave", catalog, 101);
  CHECK(eff == 51); // 50.5 rounds up

  cooldown_table s(cooldown_mode::start);
  CHECK(play(s, "alice", "demo:wave", 0, eff).empty());
  CHECK_FALSE(play(s, "alice", "demo:wave", 50, eff).empty());
  CHECK(play(s, "alice", "demo:wave", 51, eff).empty());

  cooldown_table t(cooldown_mode::stop);
  CHECK(play(t, "alice", "demo:wave", 0, eff).empty());
  t.stopped("alice", "demo:wave", 0);
  CHECK(t.check("alice", "demo:wave", 50));
  CHECK(play(t, "alice", "demo:wave", 51, eff).empty());
}

TEST_CASE("R13: eff ≤ 0 records nothing, so an immediate replay is allowed") {
  const std::int64_t eff = apply_modifier(80, access_rule::cooldown_modifier{false, 1.0, 100});
  CHECK(eff == 0);
  for (auto mode : {cooldown_mode::start, cooldown_mode::stop}) {
    cooldown_table t(mode);
    CHECK(play(t, "alice", "demo:wave", 0, eff).empty());
    CHECK(play(t, "alice", "demo:wave", 0, eff).empty());
    CHECK(t.size() == 0);
  }
}

TEST_CASE("keys are (player, emote); a clear can target one player") {
  cooldown_table t(cooldown_mode::start);
  CHECK(play(t, "alice", "demo:wave", 0, 100).empty());
  CHECK(play(t, "alice", "demo:seq", 0, 100).empty()); // a Sequence id is its own key
  CHECK(play(t, "bob", "demo:wave", 0, 100).empty());  // no global cooldown
  const auto listed = t.entries(10);
  REQUIRE(listed.size() == 3);
  CHECK(listed[0].player == "alice");
  CHECK(listed[0].emote == "demo:seq");
  CHECK(listed[0].status.state == cooldown_state::cooldown);
  CHECK(listed[0].status.remaining == 90);
  CHECK(listed[2].player == "bob");
  CHECK(t.clear(std::string("alice")) == 2);
  CHECK(t.size() == 1);
  CHECK(t.entries(100).empty()); // expired entries are not listed
}

TEST_CASE("start mode: a newer start replaces the entry; the stop hooks do nothing") {
  cooldown_table t(cooldown_mode::start);
  t.started("alice", "demo:wave", 0, 100);
  t.started("alice", "demo:wave", 50, 20);
  CHECK(t.status("alice", "demo:wave", 60).remaining == 10);
  t.claim("alice", "demo:other", 100);
  t.stopped("alice", "demo:wave", 60);
  t.release("alice", "demo:wave");
  CHECK(t.status("alice", "demo:other", 60).state == cooldown_state::available);
  CHECK(t.status("alice", "demo:wave", 60).remaining == 10);
}

TEST_CASE("stop mode: the start hook records nothing") {
  cooldown_table t(cooldown_mode::stop);
  t.started("alice", "demo:wave", 0, 100);
  CHECK(t.size() == 0);
}
