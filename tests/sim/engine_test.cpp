// The Engine as a whole: frame order (protocol.md §6), session numbering (playback.md §3.1),
// state.get, reload, catalog replacement, unregister, shutdown, player limits, world edits,
// determinism.

#include "support.hpp"

using namespace simtest;

TEST_CASE("frame order: commands in execution order, sessions in creation order, then records") {
  harness h;
  h.join("alice", {0, 64, 0});
  h.join("bob", {5, 64, 5});
  h.play("alice", "demo:events"); // session 1: `say tick1` at its tick 1, in P3
  h.play("bob", "demo:events");   // session 2
  h.step();
  CHECK(h.events(0) == strings{"command(1,say start)", "command(2,say start)", "spawn(1,1)",
                               "spawn(2,2)", "vis(alice,true,blank)",
                               "started(1,alice,demo:events,solo)", "vis(bob,true,blank)",
                               "started(2,bob,demo:events,solo)"});
  // Tick 1: bob's stop (P1) runs its `stop` command before alice's timeline command (P3); bob
  // replaces it with a new session 3, which comes after session 1 and 2 in the display part.
  h.play("bob", "demo:allowed");
  h.step();
  CHECK(h.events(1) == strings{"command(2,say stop)", "command(1,say tick1)", "update(1)",
                               "remove(2)", "spawn(3,3)", "vis(bob,false,real)",
                               "stopped(2,bob,demo:events,REPLACED)",
                               "started(3,bob,demo:allowed,solo)"});
  CHECK(h.frame(1).tick == 1);
}

TEST_CASE("session numbers: 1, 2, … per start or offer; joins and refusals take none") {
  harness h;
  h.join("alice", {0, 64, 0}, 0);
  h.join("bob", {0, 64, 1.2}, 180);
  CHECK(session_of(h.play("alice", "demo:hs")) == 1);
  CHECK(session_of(h.play("bob", "demo:hs")) == 1); // a join
  CHECK(code(h.play("bob", "demo:internal")) == "not_standalone");
  CHECK(session_of(h.play("bob", "demo:allowed")) == 2);
  CHECK(session_of(h.play("bob", "demo:allowed")) == 3);
  // Replies carry the tick in which they were applied.
  h.run_to(7);
  CHECK(h.play("bob", "demo:allowed").tick == 7);
}

TEST_CASE("state.get: players, sessions, cooldowns") {
  harness h;
  h.join("alice", {0, 64, 0}, 0);
  h.join("bob", {0, 64, 1.2}, 180);
  h.join("carol", {9, 64, 9});
  h.play("alice", "demo:hs");
  h.play("bob", "demo:hs");
  h.play("carol", "demo:cd100");
  h.run_to(5);
  const auto st = h.eng.state(std::nullopt);
  REQUIRE(st.players.size() == 3);
  CHECK(st.players[0].player == "alice");
  CHECK(st.players[0].role == api::role::initiator);
  CHECK(st.players[0].session == 1);
  CHECK_FALSE(st.players[0].reserved);
  CHECK(st.players[1].role == api::role::partner);
  CHECK(st.players[1].reserved);
  CHECK(st.players[2].role == api::role::solo);
  CHECK(st.players[2].session == 2);
  REQUIRE(st.sessions.size() == 2);
  CHECK(st.sessions[0].state == "OFFERING");
  CHECK(st.sessions[0].tick == 4);
  CHECK(st.sessions[0].partner == std::optional<std::string>("bob"));
  CHECK(st.sessions[1].state == "SOLO");
  CHECK(st.sessions[1].emote == "demo:cd100");
  REQUIRE(st.cooldowns.size() == 1);
  CHECK(st.cooldowns[0].player == "carol");
  CHECK(st.cooldowns[0].state == "cooldown");
  CHECK(st.cooldowns[0].remaining_ticks == 95);

  const auto only = h.eng.state(std::string("carol"));
  CHECK(only.players.size() == 1);
  CHECK(only.sessions.size() == 1);
  CHECK(only.cooldowns.size() == 1);
  CHECK(h.eng.state(std::string("nobody")).players.empty());
  CHECK(h.eng.player_count() == 3);
  CHECK(h.eng.session_count() == 2);
}

TEST_CASE("state.get pages: key order, each page's sessions and cooldowns, next (protocol.md §4)") {
  harness h;
  // Joined out of key order: a page is in key order, whatever the join order.
  h.join("carol", {9, 64, 9});
  h.join("alice", {0, 64, 0}, 0);
  h.join("dave", {20, 64, 20});
  h.join("bob", {0, 64, 1.2}, 180);
  h.play("alice", "demo:hs"); // offers to bob (reserved)
  h.play("carol", "demo:cd100");
  h.run_to(5);
  sim::state_query q;
  q.limit = 2;
  const auto p1 = h.eng.state(q);
  REQUIRE(p1.players.size() == 2);
  CHECK(p1.players[0].player == "alice");
  CHECK(p1.players[1].player == "bob");
  CHECK(p1.next == std::optional<std::string>("bob"));
  REQUIRE(p1.sessions.size() == 1); // alice's offer, bob reserved by it
  CHECK(p1.sessions[0].initiator == "alice");
  CHECK(p1.cooldowns.empty());

  q.after = p1.next;
  const auto p2 = h.eng.state(q);
  REQUIRE(p2.players.size() == 2);
  CHECK(p2.players[0].player == "carol");
  CHECK(p2.players[1].player == "dave");
  CHECK_FALSE(p2.next); // nothing after dave
  REQUIRE(p2.sessions.size() == 1);
  CHECK(p2.sessions[0].emote == "demo:cd100");
  REQUIRE(p2.cooldowns.size() == 1);
  CHECK(p2.cooldowns[0].player == "carol");

  // A key that is no longer online still places the page; past the last key: empty.
  q.after = "b";
  CHECK(h.eng.state(q).players.front().player == "bob");
  q.after = "zz";
  const auto past = h.eng.state(q);
  CHECK(past.players.empty());
  CHECK(past.sessions.empty());
  CHECK_FALSE(past.next);
  // Unpaged: everyone in join order, no next.
  const auto all = h.eng.state(std::nullopt);
  REQUIRE(all.players.size() == 4);
  CHECK(all.players[0].player == "carol");
  CHECK_FALSE(all.next);
}

TEST_CASE("reload stops everything in creation order and swaps the content") {
  harness h;
  h.join("alice", {0, 64, 0});
  h.join("bob", {5, 64, 5});
  h.play("bob", "demo:allowed");
  h.play("alice", "demo:hidden");
  h.step();
  anim_spec fresh;
  fresh.id = "demo:fresh";
  h.eng.reload(load({animation_json(fresh)}, {}, false));
  CHECK(h.eng.session_count() == 0);
  CHECK(h.eng.active_displays() == 0);
  CHECK(code(h.play("alice", "demo:allowed")) == "unknown_emote");
  CHECK(session_of(h.play("alice", "demo:fresh")) == 3);
  h.step();
  CHECK(h.records(1) == strings{"stopped(1,bob,demo:allowed,RELOAD)", "vis(alice,false,real)",
                                "stopped(2,alice,demo:hidden,RELOAD)",
                                "started(3,alice,demo:fresh,solo)"});
}

TEST_CASE("replace_catalog keeps running playbacks") {
  harness h;
  h.join("alice", {0, 64, 0});
  h.play("alice", "demo:short");
  h.step();
  anim_spec extra;
  extra.id = "demo:registered";
  h.eng.replace_catalog(load({animation_json(extra)}));
  CHECK(h.eng.session_count() == 1);
  h.join("bob", {5, 64, 5});
  CHECK(code(h.play("bob", "demo:registered")) == "ok");
  h.run_to(6);
  CHECK(h.find("FINISHED") == strings{"5:stopped(1,alice,demo:short,FINISHED)"});
}

TEST_CASE("unregister stops that emote's playbacks with EMOTE_REMOVED and forgets the id") {
  sim::engine_config c;
  sim::access_rule r;
  r.permission = "emote.default";
  r.emotes = {"demo:.*"};
  c.permissions = {r};
  harness h(c);
  h.join("alice", {0, 64, 0});
  h.join("bob", {5, 64, 5});
  h.join("carol", {9, 64, 9});
  h.play("alice", "demo:allowed");
  h.play("bob", "demo:cd20");
  h.play("carol", "demo:allowed");
  const auto r1 = h.eng.apply(api::emote_unregister{"demo:allowed"});
  CHECK(code(r1) == "ok");
  CHECK(code(h.eng.apply(api::emote_unregister{"demo:allowed"})) == "unknown_emote");
  CHECK(code(h.play("alice", "demo:allowed")) == "unknown_emote");
  h.step();
  CHECK(h.records(0) ==
        strings{"started(1,alice,demo:allowed,solo)", "started(2,bob,demo:cd20,solo)",
                "started(3,carol,demo:allowed,solo)", "stopped(1,alice,demo:allowed,EMOTE_REMOVED)",
                "stopped(3,carol,demo:allowed,EMOTE_REMOVED)"});
  CHECK(h.eng.session_count() == 1);
  CHECK(h.eng.catalog().find("demo:allowed") == nullptr);
}

TEST_CASE("shutdown stops everything with SERVER_STOPPING; later plays are refused") {
  harness h;
  h.join("alice", {0, 64, 0}, 0);
  h.join("bob", {0, 64, 1.2}, 180);
  h.join("carol", {9, 64, 9});
  h.play("alice", "demo:hs");
  h.play("bob", "demo:hs");
  h.play("carol", "demo:allowed");
  h.run_to(50);
  h.eng.shutdown();
  h.step();
  CHECK(h.records(50) == strings{"vis(alice,false,real)",
                                 "stopped(1,alice,demo:hs,SERVER_STOPPING)", "vis(bob,false,real)",
                                 "stopped(1,bob,demo:hs,SERVER_STOPPING)",
                                 "stopped(2,carol,demo:allowed,SERVER_STOPPING)"});
  const auto r = h.play("carol", "demo:allowed");
  CHECK(code(r) == "shutting_down");
}

TEST_CASE("stop_all stops every session with MANUAL and counts them") {
  harness h;
  h.join("alice", {0, 64, 0});
  h.join("bob", {5, 64, 5});
  h.play("alice", "demo:allowed");
  h.play("bob", "demo:allowed");
  const auto r = h.eng.apply(api::emote_stop_all{});
  CHECK(std::get<api::count_ok>(r.payload).key == "stopped");
  CHECK(std::get<api::count_ok>(r.payload).n == 2);
  h.step();
  CHECK(h.find("MANUAL").size() == 2);
}

TEST_CASE("players: duplicates, the player limit, unknown players") {
  sim::engine_config c;
  c.max_players = 2;
  harness h(c);
  CHECK(code(h.join("alice", {0, 64, 0})) == "ok");
  const auto dup = h.join("alice", {0, 64, 0});
  CHECK(code(dup) == "player_exists");
  CHECK(message(dup) == "Player is already online.");
  CHECK(code(h.join("bob", {0, 64, 0})) == "ok");
  CHECK(code(h.join("carol", {0, 64, 0})) == "bad_request");
  CHECK(code(h.move("dave", {0, 64, 0})) == "unknown_player");
  CHECK(code(h.event("dave", api::player_event_kind::jump)) == "unknown_player");
  CHECK(code(h.leave("dave")) == "unknown_player");
  CHECK(code(h.stop("dave")) == "unknown_player");
  CHECK(code(h.leave("bob")) == "ok");
  CHECK(code(h.join("carol", {0, 64, 0})) == "ok");
}

TEST_CASE("world edits and clears report their counts") {
  harness h;
  api::world_blocks wb;
  api::block_edit e;
  e.from[0] = 0;
  e.from[1] = 64;
  e.from[2] = 0;
  e.to[0] = 1;
  e.to[1] = 65;
  e.to[2] = 1;
  e.kind = api::block_kind::solid;
  wb.edits.push_back(e);
  const auto r = h.eng.apply(wb);
  CHECK(std::get<api::count_ok>(r.payload).key == "changed");
  CHECK(std::get<api::count_ok>(r.payload).n == 8);
  CHECK(std::get<api::count_ok>(h.blocks(0, 64, 0, api::block_kind::solid).payload).n == 0);
  const auto cleared = h.eng.apply(api::world_clear{});
  CHECK(std::get<api::count_ok>(cleared.payload).n == 8);
  api::world_blocks huge;
  api::block_edit big;
  big.to[0] = 10000;
  big.to[1] = 10000;
  big.to[2] = 10000;
  big.kind = api::block_kind::solid;
  huge.edits.push_back(big);
  CHECK(code(h.eng.apply(huge)) == "bad_request");
}

TEST_CASE("the idle pass never replaces and skips busy players") {
  sim::engine_config c;
  sim::access_rule r;
  r.permission = "emote.default";
  r.emotes = {"*"};
  r.idle = sim::access_rule::idle_settings{10, {"demo:short"}, {}};
  c.permissions = {r};
  harness h(c);
  h.join("alice", {0, 64, 0}, 0);
  h.join("bob", {0, 64, 1.2}, 180);
  h.play("alice", "demo:hs"); // alice participates, bob reserves: both busy
  h.play("bob", "demo:hs");
  h.run_to(39);
  CHECK(h.find("demo:short").empty());
  h.stop("alice"); // bob's reservation goes with it; alice's last action is now 39
  h.run_to(41);
  // bob's last action was tick 0: due since 10, played at the first pass he is free (40).
  CHECK(h.find("demo:short") == strings{"40:started(2,bob,demo:short,solo)"});
  h.run_to(51);
  CHECK(h.find("started(3,alice,demo:short") == strings{"50:started(3,alice,demo:short,solo)"});
}

TEST_CASE("the same inputs give the same frames") {
  const auto run = [] {
    sim::engine_config c;
    c.seed = 42;
    harness h(c);
    h.join("alice", {0, 64, 0}, 0);
    h.join("bob", {0, 64, 1.2}, 180);
    h.play("alice", "demo:hs");
    h.run_to(20);
    h.play("bob", "demo:hs");
    h.run_to(80);
    strings all;
    for (const auto& [t, f] : h.frames) {
      for (const auto& e : f.events) {
        all.push_back(std::to_string(t) + describe(e));
      }
    }
    return all;
  };
  const auto a = run();
  CHECK(a.size() > 10);
  CHECK(a == run());
}

TEST_CASE("R16/R17 patterns other than * match only ids in the current catalog") {
  sim::engine_config c;
  sim::access_rule any;
  any.permission = "emote.any";
  any.emotes = {"*"};
  sim::access_rule api_rule;
  api_rule.permission = "emote.api";
  api_rule.emotes = {"api:.*"};
  c.permissions = {any, api_rule};
  harness h(c);
  api::player_fields f;
  f.permissions = std::map<std::string, bool>{{"emote.any", false}, {"emote.api", true}};
  h.join("alice", {0, 64, 0}, 0, f);
  api::player_fields g;
  g.permissions = std::map<std::string, bool>{{"emote.any", true}};
  h.join("bob", {5, 64, 5}, 0, g);
  CHECK(code(h.play("bob", "api:late")) == "unknown_emote"); // R16: allowed, yet unknown
  CHECK(code(h.play("alice", "demo:allowed")) == "no_permission");
  anim_spec wave;
  wave.id = "api:wave";
  h.eng.replace_catalog(load({animation_json(wave)}));
  CHECK(code(h.play("alice", "api:wave")) == "ok"); // R17: allowed after registering
  h.stop("alice");
  CHECK(code(h.eng.apply(api::emote_unregister{"api:wave"})) == "ok");
  h.eng.replace_catalog(load({animation_json(wave)}));
  CHECK(code(h.play("alice", "api:wave")) == "ok");
  h.eng.replace_catalog(load());
  CHECK(code(h.play("alice", "api:wave")) == "unknown_emote");
}

TEST_CASE("R18 idle settings come from the first held entry that has them") {
  sim::engine_config c;
  sim::access_rule vip;
  vip.permission = "emote.vip";
  vip.emotes = {"*"};
  vip.idle = sim::access_rule::idle_settings{200, {"demo:short"}, {}};
  sim::access_rule def;
  def.permission = "emote.default";
  def.emotes = {"*"};
  def.idle = sim::access_rule::idle_settings{400, {"demo:allowed"}, {}};
  c.permissions = {vip, def};
  harness h(c);
  api::player_fields f;
  f.permissions = std::map<std::string, bool>{{"emote.vip", true}};
  h.join("alice", {0, 64, 0}, 0, f);
  h.join("bob", {5, 64, 5});
  h.run_to(401);
  CHECK(h.find("started") == strings{"200:started(1,alice,demo:short,solo)",
                                     "400:started(2,alice,demo:short,solo)",
                                     "400:started(3,bob,demo:allowed,solo)"});
}
