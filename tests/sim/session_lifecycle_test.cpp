// The session lifecycle alone (engine/sim/session_lifecycle.hpp): a stop's steps and records in
// order (players.md §3.6), at most once; the release of a reservation (§7.5); stop_all in
// creation order; the budgets and view a playback's context carries; the tick's open().

#include "parts.hpp"

using namespace simtest;
using api::stop_reason;

TEST_CASE("lifecycle: a stop leaves the registry, restores a hidden player, once") {
  parts t;
  t.join("alice", {0, 64, 0});
  const auto r = t.play("alice", "demo:hidden");
  REQUIRE(code(r) == "ok");
  CHECK(t.take_records() == strings{"vis(alice,true,blank)", "started(1,alice,demo:hidden,solo)"});
  sim::session& s = t.session(1);
  const std::int64_t displays = t.registry.displays();
  CHECK(displays == s.displays);

  t.lifecycle.stop(s, stop_reason::manual);
  CHECK(s.stopped);
  CHECK(t.registry.size() == 0);
  CHECK(t.registry.participating("alice") == nullptr);
  CHECK(t.registry.displays() == 0);
  CHECK(t.take_records() ==
        strings{"vis(alice,false,real)", "stopped(1,alice,demo:hidden,MANUAL)"});
  // A second stop of the same session does nothing.
  t.lifecycle.stop(s, stop_reason::finished);
  CHECK(t.take_records().empty());
}

TEST_CASE("lifecycle: stop mode's claim turns into a cooldown at the stop") {
  sim::engine_config c;
  c.cooldown_mode = rules::cooldown_mode::stop;
  parts t(c);
  t.join("alice", {0, 64, 0});
  REQUIRE(code(t.play("alice", "demo:wave")) == "ok"); // cooldown 20t
  CHECK(t.cooldowns.status("alice", "demo:wave", t.tick.now).state ==
        rules::cooldown_state::in_use);
  t.lifecycle.stop(t.session(1), stop_reason::manual);
  const auto st = t.cooldowns.status("alice", "demo:wave", t.tick.now);
  CHECK(st.state == rules::cooldown_state::cooling_down);
  CHECK(st.remaining == 20);
}

TEST_CASE("lifecycle: a stopped offer releases its reservation first; release is silent twice") {
  sim::engine_config c;
  c.cooldown_mode = rules::cooldown_mode::stop;
  parts t(c);
  t.join("alice", {0, 64, 0}, 0);
  t.join("bob", {0, 64, 1.2}, 180);
  REQUIRE(role_of(t.play("alice", "demo:hs_cd")) == "initiator");
  REQUIRE(role_of(t.play("bob", "demo:hs_cd")) == "partner");
  CHECK(t.registry.reserving("bob") == &t.session(1));
  CHECK(t.cooldowns.status("bob", "demo:hs_cd", t.tick.now).state == rules::cooldown_state::in_use);
  t.take_records();

  sim::session& s = t.session(1);
  t.lifecycle.stop(s, stop_reason::manual);
  CHECK(t.take_records() == strings{"released(1,alice,bob,session_ended)", "vis(alice,false,real)",
                                    "stopped(1,alice,demo:hs_cd,MANUAL)"});
  CHECK(t.registry.reserving("bob") == nullptr);
  CHECK_FALSE(s.reserved);
  // The reserved partner's claim went back to AVAILABLE: no cooldown for bob.
  CHECK(t.cooldowns.status("bob", "demo:hs_cd", t.tick.now).state ==
        rules::cooldown_state::available);
  t.lifecycle.release(s, api::release_why::stopped);
  CHECK(t.take_records().empty());
}

TEST_CASE("lifecycle: stop_all stops every registered session in creation order") {
  parts t;
  t.join("alice", {0, 64, 0});
  t.join("bob", {10, 64, 0});
  t.join("carol", {20, 64, 0});
  REQUIRE(code(t.play("carol", "demo:wave")) == "ok");
  REQUIRE(code(t.play("alice", "demo:wave")) == "ok");
  REQUIRE(code(t.play("bob", "demo:wave")) == "ok");
  t.lifecycle.stop(t.session(2), stop_reason::manual);
  t.take_records();
  CHECK(t.lifecycle.stop_all(stop_reason::reload) == 2);
  CHECK(t.take_records() ==
        strings{"stopped(1,carol,demo:wave,RELOAD)", "stopped(3,bob,demo:wave,RELOAD)"});
  CHECK(t.registry.size() == 0);
  CHECK(t.lifecycle.stop_all(stop_reason::reload) == 0);
}

TEST_CASE("lifecycle: a context carries the tick, the initiator's view and the budgets") {
  sim::engine_config c;
  c.molang_session_tick_ops = 0;
  c.molang_server_tick_ops = 77;
  parts t(c);
  t.join("alice", {0, 64, 0});
  REQUIRE(code(t.play("alice", "demo:wave")) == "ok");
  const auto ctx = t.lifecycle.context_for(t.session(1));
  CHECK(ctx.tick == t.tick.now);
  REQUIRE(ctx.player != nullptr);
  CHECK(ctx.player->position.x == 0);
  CHECK(ctx.commands == &t.tick.out.events);
  CHECK(ctx.session_tick_ops == molang::unlimited_ops);
  CHECK(ctx.server_ops_left == &t.tick.server_ops_left);

  sim::engine_config d;
  d.molang_session_tick_ops = 5;
  d.molang_server_tick_ops = 0;
  parts u(d);
  u.join("alice", {0, 64, 0});
  REQUIRE(code(u.play("alice", "demo:wave")) == "ok");
  const auto ctx2 = u.lifecycle.context_for(u.session(1));
  CHECK(ctx2.session_tick_ops == 5);
  CHECK(ctx2.server_ops_left == nullptr);
}

TEST_CASE("lifecycle: a tick opens once, clearing the last frame and refilling the budget") {
  sim::tick_state t;
  t.now = 7;
  t.out.events.emplace_back(api::ev_partner_timeout{1, "a"});
  t.records.emplace_back(api::ev_partner_timeout{1, "a"});
  t.open(100);
  CHECK(t.opened);
  CHECK(t.out.tick == 7);
  CHECK(t.out.events.empty());
  CHECK(t.records.empty());
  CHECK(t.server_ops_left == 100);
  t.server_ops_left = 3;
  t.records.emplace_back(api::ev_partner_timeout{1, "a"});
  t.open(100); // already open: nothing changes
  CHECK(t.server_ops_left == 3);
  CHECK(t.records.size() == 1);
}
