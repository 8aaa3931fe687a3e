// The play pipeline alone (engine/sim/play_pipeline.hpp, players.md §6): refusals stamped with
// the tick that change nothing, a start's registration, claim and records, the replacement chain
// of players.md §4, the display limit returning the claim, joining an offer and the unmatched
// offer a new initiator is told about (§7.3), the shutdown refusal and the idle pass's host.

#include "parts.hpp"

using namespace simtest;

TEST_CASE("pipeline: refusals carry the tick and leave no session, record or claim") {
  parts t;
  t.tick.now = 12;
  t.join("alice", {0, 64, 0});
  const auto offline = t.play("carol", "demo:wave");
  CHECK(code(offline) == "unknown_player");
  CHECK(offline.tick == 12);
  const auto unknown = t.play("alice", "demo:nope");
  CHECK(code(unknown) == "unknown_emote");
  CHECK(unknown.tick == 12);
  CHECK(code(t.play("alice", "demo:internal")) == "not_standalone");
  CHECK(t.registry.size() == 0);
  CHECK(t.registry.next_id() == 1);
  CHECK(t.tick.records.empty());
  CHECK(t.cooldowns.size() == 0);
}

TEST_CASE("pipeline: a start registers the session, records it and starts its cooldown") {
  parts t;
  t.tick.now = 3;
  t.join("alice", {0, 64, 0});
  const auto r = t.play("alice", "demo:wave");
  CHECK(code(r) == "ok");
  CHECK(r.tick == 3);
  CHECK(session_of(r) == 1);
  CHECK(role_of(r) == "solo");
  sim::session& s = t.session(1);
  CHECK(t.registry.participating("alice") == &s);
  CHECK(s.start_tick == 3);
  CHECK(s.initiator.tracked);
  CHECK(t.registry.displays() == s.displays);
  CHECK(t.take_records() == strings{"started(1,alice,demo:wave,solo)"});
  const auto cd = t.cooldowns.status("alice", "demo:wave", 3);
  CHECK(cd.state == rules::cooldown_state::cooldown);
  CHECK(cd.remaining == 20);
  // The same emote again is refused by its cooldown, before anything is replaced.
  CHECK(code(t.play("alice", "demo:wave")) == "cooldown");
  CHECK(t.registry.participating("alice") == &s);
}

TEST_CASE("pipeline: a replacement passes the hidden player's stored flag on") {
  parts t;
  t.join("alice", {0, 64, 0});
  REQUIRE(code(t.play("alice", "demo:hidden")) == "ok");
  CHECK_FALSE(t.session(1).initiator.was_invisible);
  // The player's own flag now reads invisible (a proxy reporting the hidden player).
  api::player_fields inv;
  inv.invisible = true;
  REQUIRE(t.players.update("alice", inv, t.tick.now));
  t.take_records();
  REQUIRE(code(t.play("alice", "demo:hidden_b")) == "ok");
  CHECK(t.take_records() ==
        strings{"vis(alice,false,real)", "stopped(1,alice,demo:hidden,REPLACED)",
                "vis(alice,true,blank)", "started(2,alice,demo:hidden_b,solo)"});
  // From the chain, not from the flag read now.
  CHECK_FALSE(t.session(2).initiator.was_invisible);
  CHECK(t.registry.size() == 1);
}

TEST_CASE("pipeline: the display limit refuses and returns the claim") {
  parts probe;
  probe.join("alice", {0, 64, 0});
  REQUIRE(code(probe.play("alice", "demo:wave")) == "ok");
  sim::engine_config c;
  c.max_active_display_entities = static_cast<std::int32_t>(probe.registry.displays());
  c.cooldown_mode = rules::cooldown_mode::stop;
  parts t(c);
  t.join("alice", {0, 64, 0});
  t.join("bob", {10, 64, 0});
  REQUIRE(code(t.play("alice", "demo:wave")) == "ok");
  CHECK(code(t.play("bob", "demo:cd100")) == "display_limit");
  // bob's stop-mode claim went back: no IN_USE entry is left behind.
  CHECK(t.cooldowns.status("bob", "demo:cd100", t.tick.now).state ==
        rules::cooldown_state::available);
  // Replacing one's own playback frees its displays first (players.md §8.1).
  CHECK(code(t.play("alice", "demo:cd100")) == "ok");
}

TEST_CASE("pipeline: a two-player play joins an offer, or names the one it could not join") {
  parts t;
  t.join("alice", {0, 64, 0}, 0);
  t.join("bob", {0, 64, 1.2}, 180);
  t.join("carol", {0, 64, -1.2}, 0);
  REQUIRE(role_of(t.play("alice", "demo:hs")) == "initiator");
  CHECK_FALSE(t.pipeline.last_unmatched());
  const auto c = t.play("carol", "demo:hs");
  CHECK(role_of(c) == "initiator");
  CHECK(session_of(c) == 2);
  REQUIRE(t.pipeline.last_unmatched());
  CHECK(t.pipeline.last_unmatched()->session == 1);
  CHECK(t.pipeline.last_unmatched()->reason == api::match_failure::initiator_facing);
  t.pipeline.forget_unmatched();
  CHECK_FALSE(t.pipeline.last_unmatched());
  t.take_records();
  const auto b = t.play("bob", "demo:hs");
  CHECK(role_of(b) == "partner");
  CHECK(session_of(b) == 1);
  CHECK(t.take_records() == strings{"reserved(1,alice,bob)"});
  CHECK_FALSE(t.pipeline.last_unmatched()); // a partner is not told about offers
  CHECK(t.registry.size() == 2);
  // The idle pass skips participants and reserved players alike.
  CHECK(t.pipeline.busy(*t.players.find("alice")));
  CHECK(t.pipeline.busy(*t.players.find("bob")));
  t.join("dave", {30, 64, 0});
  CHECK_FALSE(t.pipeline.busy(*t.players.find("dave")));
}

TEST_CASE("pipeline: after shut_down a request is refused but still counts as the player's") {
  parts t;
  t.join("alice", {0, 64, 0});
  t.pipeline.shut_down();
  CHECK(t.pipeline.shutting_down());
  t.tick.now = 5;
  const auto r = t.play("alice", "demo:wave");
  CHECK(code(r) == "shutting_down");
  CHECK(message(r) == "The server is shutting down.");
  CHECK(t.players.find("alice")->last_action_tick == 5);
  // The idle pass's plays are refused too, and are not the player's.
  t.tick.now = 9;
  CHECK_FALSE(t.pipeline.play(*t.players.find("alice"), "demo:wave"));
  CHECK(t.players.find("alice")->last_action_tick == 5);
  CHECK(t.registry.size() == 0);
}
