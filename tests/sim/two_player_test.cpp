// Two-player sessions through the Engine (players.md §7): R50–R67 and the partner cases of the
// issue: match during the offer, join while waiting, timeout, re-check failure, facing away,
// line of sight, distance and height limits, nearest and tied offers, either participant's
// stop, cooldowns for both.
//
// demo:hs: offer demo:hs_offer (D 40), timeout 10s (200), matched [demo:hs_shake] (D 20),
// timeout [demo:hs_close] (D 10), hidden, movement_distance 0.1, every event condition on.
// alice offers at s = 100 from (0,64,0) yaw 0; bob stands at (0,64,1.2) yaw 180.

#include "support.hpp"

using namespace simtest;
using api::player_event_kind;

namespace {

constexpr api::tick_number s = 100;

struct pair_fixture {
  explicit pair_fixture(sim::engine_config c = {}) : h(c) {
    h.join("alice", {0, 64, 0}, 0);
    h.join("bob", {0, 64, 1.2}, 180);
    h.run_to(s);
  }
  harness h;
};

} // namespace

TEST_CASE("R50 nobody joins: WAITING at s+D, TIMEOUT at s+D+T_o, FINISHED at its end") {
  pair_fixture f;
  harness& h = f.h;
  const auto r = h.play("alice", "demo:hs");
  CHECK(role_of(r) == "initiator");
  h.step();
  CHECK(h.records(s) == strings{"vis(alice,true,blank)", "started(1,alice,demo:hs,initiator)"});
  h.run_to(s + 40);
  CHECK(h.phase(1) == "OFFERING");
  h.step();
  CHECK(h.phase(1) == "WAITING");
  h.run_to(s + 240);
  CHECK(h.phase(1) == "WAITING");
  h.step(); // s + 240 = 340
  CHECK(h.phase(1) == "TIMEOUT");
  CHECK(h.records(340) == strings{"timeout(1,alice)"});
  const auto segs = all_of<api::ev_segment_started>(h.frame(340));
  REQUIRE(segs.size() == 1);
  CHECK(segs[0]->branch == api::branch::timeout);
  CHECK(segs[0]->animation == "demo:hs_close");
  const auto ticks_at_340 = h.session(1)->tick;
  h.step(); // 341: the branch advances
  CHECK(h.session(1)->tick == ticks_at_340 + 1);
  h.run_to(351);
  CHECK(h.find("stopped") == strings{"350:stopped(1,alice,demo:hs,FINISHED)"});
  CHECK(h.records(350) == strings{"vis(alice,false,real)", "stopped(1,alice,demo:hs,FINISHED)"});
  // The offer advanced D ticks, WAITING did not advance, the branch 10.
  CHECK(h.all_records().size() == 5);
}

TEST_CASE("R51 T_o = 2: not expired at s+D+1, TIMEOUT at s+D+2, then no partner") {
  pair_fixture f;
  harness& h = f.h;
  h.play("alice", "demo:hs_short");
  h.run_to(s + 41);
  CHECK(h.phase(1) == "WAITING");
  h.step();
  CHECK(h.phase(1) == "WAITING");
  h.step();
  CHECK(h.phase(1) == "TIMEOUT");
  CHECK(h.records(142) == strings{"timeout(1,alice)"});
  const auto r = h.play("bob", "demo:hs_short");
  CHECK(role_of(r) == "initiator");
  CHECK(session_of(r) == 2);
}

TEST_CASE("R52 a join during the offer is matched when the offer ends") {
  pair_fixture f;
  harness& h = f.h;
  h.play("alice", "demo:hs_cd"); // cooldown 100
  h.run_to(120);
  const auto j = h.play("bob", "demo:hs_cd");
  CHECK(code(j) == "ok");
  CHECK(role_of(j) == "partner");
  CHECK(session_of(j) == 1);
  CHECK(h.cooldown("bob", "demo:hs_cd")->remaining_ticks == 100); // from 120
  h.step();
  CHECK(h.records(120) == strings{"reserved(1,alice,bob)"});
  const auto st = h.eng.state(std::string("bob")).players;
  REQUIRE(st.size() == 1);
  CHECK(st[0].reserved);
  CHECK(st[0].role == api::role::partner);
  h.run_to(140);
  h.step();
  CHECK(h.phase(1) == "MATCHED");
  CHECK(h.records(140) == strings{"matched(1,alice,bob)", "vis(bob,true,blank)",
                                  "started(1,bob,demo:hs_cd,partner)"});
  const auto segs = all_of<api::ev_segment_started>(h.frame(140));
  REQUIRE(segs.size() == 1);
  CHECK(segs[0]->branch == api::branch::matched);
  const auto at_match = h.session(1)->tick;
  h.step();
  CHECK(h.session(1)->tick == at_match + 1); // advancing from 141
  h.run_to(161);
  CHECK(h.records(160) == strings{"vis(alice,false,real)", "stopped(1,alice,demo:hs_cd,FINISHED)",
                                  "vis(bob,false,real)", "stopped(1,bob,demo:hs_cd,FINISHED)"});
}

TEST_CASE("R53 a failed re-check at the offer end releases silently; the offer waits") {
  pair_fixture f;
  harness& h = f.h;
  h.play("alice", "demo:hs_cd");
  h.run_to(120);
  h.play("bob", "demo:hs_cd");
  h.run_to(130);
  h.move("bob", {0, 64, 2.5}); // a reserved partner is not polled
  h.run_to(141);
  CHECK(h.records(140) == strings{"released(1,alice,bob,recheck_failed)"});
  CHECK(h.phase(1) == "WAITING");
  CHECK(h.cooldown("bob", "demo:hs_cd")->remaining_ticks == 79); // kept: 220 − 141
  h.run_to(341);
  CHECK(h.records(340) == strings{"timeout(1,alice)"});
}

TEST_CASE("R53/R56 after a release the offer accepts a partner again") {
  pair_fixture f;
  harness& h = f.h;
  h.join("carol", {0, 64, 1.5}, 180);
  h.play("alice", "demo:hs");
  h.run_to(120);
  CHECK(role_of(h.play("bob", "demo:hs")) == "partner");
  h.move("bob", {0, 64, 2.5});
  h.run_to(141);
  CHECK(h.phase(1) == "WAITING");
  h.run_to(200);
  const auto j = h.play("carol", "demo:hs");
  CHECK(role_of(j) == "partner");
  h.step();
  CHECK(h.records(200) == strings{"reserved(1,alice,carol)", "matched(1,alice,carol)",
                                  "vis(carol,true,blank)", "started(1,carol,demo:hs,partner)"});
}

TEST_CASE("R54 a join while WAITING matches in P1; the branch advances from the next tick") {
  pair_fixture f;
  harness& h = f.h;
  h.move("bob", {0, 64, 5});
  h.play("alice", "demo:hs");
  h.run_to(200);
  CHECK(h.phase(1) == "WAITING");
  h.move("bob", {0, 64, 1.2});
  CHECK(role_of(h.play("bob", "demo:hs")) == "partner");
  CHECK(h.phase(1) == "MATCHED"); // already in P1
  h.step();
  CHECK(h.records(200) == strings{"reserved(1,alice,bob)", "matched(1,alice,bob)",
                                  "vis(bob,true,blank)", "started(1,bob,demo:hs,partner)"});
  const auto segs = all_of<api::ev_segment_started>(h.frame(200));
  REQUIRE(segs.size() == 1);
  CHECK(segs[0]->branch == api::branch::matched);
  const auto t = h.session(1)->tick;
  h.step();
  CHECK(h.session(1)->tick == t + 1);
  h.run_to(221);
  CHECK(h.find("FINISHED").size() == 2);
  CHECK(h.find("FINISHED").front().rfind("220:", 0) == 0);
}

TEST_CASE("a WAITING offer without sight of the requester is no candidate") {
  pair_fixture f;
  harness& h = f.h;
  h.play("alice", "demo:hs");
  h.run_to(200);
  h.blocks(0, 65, 0, api::block_kind::solid); // above alice's feet: her eye is inside it
  // The candidate search already sees no line of sight: bob offers on his own, and the reply
  // says why (players.md §7.3).
  const auto r = h.play("bob", "demo:hs");
  CHECK(role_of(r) == "initiator");
  CHECK(unmatched_of(h.eng) == "1,alice,line_of_sight");
  h.step();
  CHECK(h.records(200) == strings{"vis(bob,true,blank)", "started(2,bob,demo:hs,initiator)"});
}

TEST_CASE("R55 a dead requester is no candidate: its own offer, then PLAYER_UNAVAILABLE") {
  pair_fixture f;
  harness& h = f.h;
  h.play("alice", "demo:hs");
  h.run_to(200);
  api::player_fields dead;
  dead.alive = false;
  h.update("bob", dead);
  const auto r = h.play("bob", "demo:hs");
  CHECK(code(r) == "ok");
  CHECK(role_of(r) == "initiator");
  CHECK(unmatched_of(h.eng) == "1,alice,partner_dead");
  h.step();
  CHECK(h.records(200) == strings{"vis(bob,true,blank)", "started(2,bob,demo:hs,initiator)",
                                  "vis(bob,false,real)",
                                  "stopped(2,bob,demo:hs,PLAYER_UNAVAILABLE)"});
  CHECK(h.phase(1) == "WAITING");
  CHECK_FALSE(h.session(1)->partner.has_value());
  h.run_to(341);
  CHECK(h.records(340) == strings{"timeout(1,alice)"});
}

TEST_CASE("R57 the nearest initiator wins; exact ties go to the earliest offer") {
  {
    harness h;
    h.join("p", {0, 64, 0}, 0);
    h.join("a", {0, 64, 1.0}, 180);
    h.join("b", {0, 64, 0.9}, 180);
    CHECK(role_of(h.play("a", "demo:hs")) == "initiator");
    const auto b = h.play("b", "demo:hs");
    CHECK(role_of(b) == "initiator"); // a and b do not face each other
    CHECK(unmatched_of(h.eng) == "1,a,partner_facing");
    const auto j = h.play("p", "demo:hs");
    CHECK(role_of(j) == "partner");
    CHECK(session_of(j) == 2); // b at h² 0.81
  }
  {
    harness h;
    h.join("p", {0, 64, 0}, 0);
    h.join("a", {0.6, 64, 0.8}, 143);
    h.join("b", {-0.6, 64, 0.8}, -143);
    CHECK(role_of(h.play("b", "demo:hs")) == "initiator"); // session 1
    CHECK(role_of(h.play("a", "demo:hs")) == "initiator"); // session 2
    const auto j = h.play("p", "demo:hs");
    CHECK(role_of(j) == "partner");
    CHECK(session_of(j) == 1); // equal h²: the earlier-created
  }
}

TEST_CASE("R58 a player already playing never joins; it becomes a new initiator") {
  SUBCASE("its own offer") {
    harness h;
    h.join("alice", {0, 64, 0}, 0);
    h.join("bob", {0, 64, 1.2}, 180);
    h.join("carol", {0, 64, 2.4}, 0);
    h.play("carol", "demo:hs"); // session 1: carol faces +Z, away from bob
    h.play("bob", "demo:hs");   // session 2
    h.play("alice", "demo:hs"); // joins bob's offer
    CHECK(h.phase(2) == "OFFERING");
    const auto again = h.play("bob", "demo:hs");
    CHECK(role_of(again) == "initiator");
    // carol's open offer is the nearest bob could not join: he is a participant (players.md §7.3).
    CHECK(unmatched_of(h.eng) == "1,carol,participant");
    h.step();
    CHECK(h.records(0) == strings{
                              "vis(carol,true,blank)",
                              "started(1,carol,demo:hs,initiator)",
                              "vis(bob,true,blank)",
                              "started(2,bob,demo:hs,initiator)",
                              "reserved(2,bob,alice)",
                              "released(2,bob,alice,session_ended)",
                              "vis(bob,false,real)",
                              "stopped(2,bob,demo:hs,REPLACED)",
                              "vis(bob,true,blank)",
                              "started(3,bob,demo:hs,initiator)",
                          });
  }
  SUBCASE("as an activated partner: the shared session is replaced for both") {
    harness h;
    h.join("alice", {0, 64, 0}, 0);
    h.join("bob", {0, 64, 1.2}, 180);
    h.play("alice", "demo:hs");
    h.play("bob", "demo:hs");
    h.run_to(41);
    CHECK(h.phase(1) == "MATCHED");
    const auto r = h.play("bob", "demo:hs");
    CHECK(role_of(r) == "initiator");
    h.step();
    CHECK(h.records(41) == strings{
                               "vis(alice,false,real)",
                               "stopped(1,alice,demo:hs,REPLACED)",
                               "vis(bob,false,real)",
                               "stopped(1,bob,demo:hs,REPLACED)",
                               "vis(bob,true,blank)",
                               "started(2,bob,demo:hs,initiator)",
                           });
  }
  SUBCASE("no compatible offer: another id") {
    harness h;
    h.join("alice", {0, 64, 0}, 0);
    h.join("bob", {0, 64, 1.2}, 180);
    h.play("alice", "demo:hs");
    const auto r = h.play("bob", "demo:hs_other");
    CHECK(role_of(r) == "initiator");
    CHECK(unmatched_of(h.eng).empty()); // no offer of demo:hs_other was open
  }
}

TEST_CASE("R59 a second joiner cannot take a reserved session") {
  harness h;
  h.join("alice", {0, 64, 0}, 0);
  h.join("bob", {0, 64, 1.2}, 180);
  h.join("carol", {0, 64, 1.5}, 180);
  h.play("alice", "demo:hs");
  CHECK(role_of(h.play("bob", "demo:hs")) == "partner");
  const auto c = h.play("carol", "demo:hs");
  CHECK(role_of(c) == "initiator");
  CHECK(session_of(c) == 2);
}

TEST_CASE("R60 either participant's event stops the shared session: initiator records first") {
  harness h;
  h.join("alice", {0, 64, 0}, 0);
  h.join("bob", {0, 64, 1.2}, 180);
  h.play("alice", "demo:hs");
  h.play("bob", "demo:hs");
  h.run_to(45);
  h.event("bob", player_event_kind::jump);
  h.step();
  CHECK(h.records(45) == strings{"vis(alice,false,real)", "stopped(1,alice,demo:hs,JUMPED)",
                                 "vis(bob,false,real)", "stopped(1,bob,demo:hs,JUMPED)"});
}

TEST_CASE("either participant's stop request, leave or poll ends both") {
  for (const std::string who : {"alice", "bob"}) {
    CAPTURE(who);
    {
      harness h;
      h.join("alice", {0, 64, 0}, 0);
      h.join("bob", {0, 64, 1.2}, 180);
      h.play("alice", "demo:hs");
      h.play("bob", "demo:hs");
      h.run_to(45);
      CHECK(std::get<api::stop_ok>(h.stop(who).payload).session == 1);
      h.step();
      CHECK(h.records(45) == strings{"vis(alice,false,real)", "stopped(1,alice,demo:hs,MANUAL)",
                                     "vis(bob,false,real)", "stopped(1,bob,demo:hs,MANUAL)"});
    }
    {
      harness h;
      h.join("alice", {0, 64, 0}, 0);
      h.join("bob", {0, 64, 1.2}, 180);
      h.play("alice", "demo:hs");
      h.play("bob", "demo:hs");
      h.run_to(45);
      h.leave(who);
      h.step();
      CHECK(h.records(45) == strings{"vis(alice,false,real)",
                                     "stopped(1,alice,demo:hs,DISCONNECTED)", "vis(bob,false,real)",
                                     "stopped(1,bob,demo:hs,DISCONNECTED)"});
    }
    {
      harness h;
      h.join("alice", {0, 64, 0}, 0);
      h.join("bob", {0, 64, 1.2}, 180);
      h.play("alice", "demo:hs");
      h.play("bob", "demo:hs");
      h.run_to(45);
      api::player_fields f;
      f.dimension = std::string("minecraft:the_end");
      h.update(who, f);
      h.step();
      CHECK(h.records(45) ==
            strings{"vis(alice,false,real)", "stopped(1,alice,demo:hs,PLAYER_UNAVAILABLE)",
                    "vis(bob,false,real)", "stopped(1,bob,demo:hs,PLAYER_UNAVAILABLE)"});
    }
  }
}

TEST_CASE("R61 a reserved partner: events do nothing, a stop or leave releases silently") {
  harness h;
  h.join("alice", {0, 64, 0}, 0);
  h.join("bob", {0, 64, 1.2}, 180);
  h.play("alice", "demo:hs");
  h.play("bob", "demo:hs");
  h.step();
  h.event("bob", player_event_kind::jump);
  h.event("bob", player_event_kind::damage, 3);
  h.step();
  CHECK(h.records(1).empty());
  CHECK(code(h.stop("bob")) == "ok");
  h.step();
  CHECK(h.records(2) == strings{"released(1,alice,bob,stopped)"});
  CHECK(role_of(h.play("bob", "demo:hs")) == "partner");
  h.leave("bob");
  h.step();
  CHECK(h.records(3) == strings{"reserved(1,alice,bob)", "released(1,alice,bob,disconnected)"});
  CHECK(h.phase(1) == "OFFERING");
}

TEST_CASE("R62 the initiator's stop drops the reservation first; the partner gets no stop") {
  harness h;
  h.join("alice", {0, 64, 0}, 0);
  h.join("bob", {0, 64, 1.2}, 180);
  h.play("alice", "demo:hs");
  h.play("bob", "demo:hs");
  h.step();
  h.move("alice", {0.5, 64, 0});
  h.step();
  CHECK(h.records(1) == strings{"released(1,alice,bob,session_ended)", "vis(alice,false,real)",
                                "stopped(1,alice,demo:hs,MOVED)"});
  CHECK(h.eng.state(std::string("bob")).players.front().session == std::nullopt);
}

TEST_CASE("R63 following by state, and partner-space visibility") {
  // demo:hs_md0: movement_distance 0 (the scene follows), not hidden.
  SUBCASE("matched") {
    harness h;
    h.join("alice", {0, 64, 0}, 0);
    h.join("bob", {0, 64, 1.2}, 180);
    h.play("alice", "demo:hs_md0");
    const api::frame& f0 = h.step();
    const auto spawns = all_of<api::ev_display_spawn>(f0);
    REQUIRE(spawns.size() == 2);
    CHECK(spawns[1]->node == "__partner__box");
    CHECK(spawns[1]->space == api::space::partner);
    CHECK_FALSE(spawns[1]->visible);
    const api::handle_id copy = spawns[1]->handle;
    const api::handle_id box = spawns[0]->handle;
    // OFFERING follows.
    h.move("alice", {0.5, 64, 0});
    const api::frame& f1 = h.step();
    CHECK(all_of<api::ev_display_move>(f1).size() == 2); // initiator and partner spaces
    for (const auto* u : all_of<api::ev_display_update>(f1)) {
      if (u->handle == copy) {
        CHECK_FALSE(u->visible.has_value()); // stays hidden while offering
      }
      if (u->handle == box) {
        CHECK(u->visible == std::optional<bool>(true)); // the deferred visibility
      }
    }
    h.move("alice", {0, 64, 0});
    h.move("bob", {0, 64, 1.2});
    h.play("bob", "demo:hs_md0");
    h.run_to(40);
    const api::frame& f40 = h.step();
    CHECK(h.phase(1) == "MATCHED");
    bool shown = false;
    for (const auto* u : all_of<api::ev_display_update>(f40)) {
      if (u->handle == copy && u->visible == std::optional<bool>(true)) {
        shown = true;
      }
    }
    CHECK(shown);
    // MATCHED does not follow.
    h.move("alice", {0.7, 64, 0});
    const api::frame& f41 = h.step();
    CHECK(all_of<api::ev_display_move>(f41).empty());
  }
  SUBCASE("waiting follows, timeout does not, the partner copy never shows") {
    sim::engine_config c;
    harness h(c);
    h.join("alice", {0, 64, 0}, 0);
    h.play("alice", "demo:hs_md0");
    h.run_to(45);
    CHECK(h.phase(1) == "WAITING");
    h.move("alice", {0.5, 64, 0});
    const api::frame& f = h.step();
    CHECK(all_of<api::ev_display_move>(f).size() == 2);
    h.run_to(241);
    CHECK(h.phase(1) == "TIMEOUT");
    h.move("alice", {1.0, 64, 0});
    CHECK(all_of<api::ev_display_move>(h.step()).empty());
    for (const auto& [t, fr] : h.frames) {
      for (const auto* u : all_of<api::ev_display_update>(fr)) {
        if (u->handle == 2) {
          CHECK(u->visible != std::optional<bool>(true));
        }
      }
    }
  }
}

TEST_CASE("R64 a partner is polled against its reservation-time baseline") {
  harness h;
  h.join("alice", {0, 64, 0}, 0);
  h.join("bob", {0, 64, 1.2}, 180);
  h.run_to(100);
  h.play("alice", "demo:hs");
  h.run_to(110);
  h.play("bob", "demo:hs");
  h.run_to(130);
  h.move("bob", {0, 64, 1.35});
  h.run_to(141);
  CHECK(h.records(140) ==
        strings{"matched(1,alice,bob)", "vis(bob,true,blank)", "started(1,bob,demo:hs,partner)"});
  h.step();
  CHECK(h.records(141) == strings{"vis(alice,false,real)", "stopped(1,alice,demo:hs,MOVED)",
                                  "vis(bob,false,real)", "stopped(1,bob,demo:hs,MOVED)"});
}

TEST_CASE("R65 a partner on cooldown neither joins nor offers; a bypass holder records nothing") {
  harness h;
  h.join("alice", {0, 64, 0}, 0);
  h.join("bob", {0, 64, 1.2}, 180);
  h.join("carol", {0, 64, 5}, 0);
  h.play("bob", "demo:hs_cd");
  h.stop("bob");
  h.play("alice", "demo:hs_cd");
  const auto r = h.play("bob", "demo:hs_cd");
  CHECK(code(r) == "cooldown");
  CHECK(h.phase(1) == "gone");
  CHECK_FALSE(h.session(2)->partner.has_value());

  harness b;
  api::player_fields f;
  f.permissions = std::map<std::string, bool>{{"emote.bypass", true}};
  b.join("alice", {0, 64, 0}, 0);
  b.join("bob", {0, 64, 1.2}, 180, f);
  b.play("alice", "demo:hs_cd");
  CHECK(role_of(b.play("bob", "demo:hs_cd")) == "partner");
  CHECK_FALSE(b.cooldown("bob", "demo:hs_cd").has_value());
  CHECK(b.cooldown("alice", "demo:hs_cd")->remaining_ticks == 100);
}

TEST_CASE("players.md §7.11 cooldowns for both in stop mode") {
  sim::engine_config c;
  c.cooldown_mode = sim::cooldown_mode::stop;
  harness h(c);
  h.join("alice", {0, 64, 0}, 0);
  h.join("bob", {0, 64, 1.2}, 180);
  h.play("alice", "demo:hs_cd");
  CHECK(h.cooldown("alice", "demo:hs_cd")->state == "in_use");
  h.play("bob", "demo:hs_cd");
  CHECK(h.cooldown("bob", "demo:hs_cd")->state == "in_use");
  h.run_to(50);
  CHECK(h.phase(1) == "MATCHED");
  h.stop("alice");
  CHECK(h.cooldown("alice", "demo:hs_cd")->state == "cooling_down");
  CHECK(h.cooldown("bob", "demo:hs_cd")->state == "cooling_down");
  CHECK(h.cooldown("bob", "demo:hs_cd")->remaining_ticks == 100);
}

TEST_CASE("partner geometry and sight through the engine") {
  struct row {
    const char* name;
    dvec3 partner;
    float partner_yaw;
    float initiator_yaw;
    std::optional<std::array<std::int32_t, 3>> block;
    api::block_kind kind;
    bool joins;
    const char* why; ///< the reply's unmatched reason when it does not join
  };
  const std::vector<row> rows{
      {"2.0 blocks", {0, 64, 2.0}, 180, 0, std::nullopt, api::block_kind::solid, true, ""},
      {"2.01 blocks", {0, 64, 2.01}, 180, 0, std::nullopt, api::block_kind::solid, false, "too_far"},
      {"height 1.0", {0, 65.0, 1.2}, 180, 0, std::nullopt, api::block_kind::solid, true, ""},
      {"height 1.01", {0, 65.01, 1.2}, 180, 0, std::nullopt, api::block_kind::solid, false, "height"},
      {"partner faces away", {0, 64, 1.2}, 90, 0, std::nullopt, api::block_kind::solid, false, "partner_facing"},
      {"initiator faces away", {0, 64, 1.2}, 180, 90, std::nullopt, api::block_kind::solid, false, "initiator_facing"},
      {"head-on at 45°", {-1, 64, 1}, -135, 45, std::nullopt, api::block_kind::solid, true, ""},
      {"solid between",
       {0.5, 64, 2.0},
       180,
       0,
       std::array<std::int32_t, 3>{0, 65, 1},
       api::block_kind::solid,
       false,
       "line_of_sight"},
      {"water between",
       {0.5, 64, 2.0},
       180,
       0,
       std::array<std::int32_t, 3>{0, 65, 1},
       api::block_kind::water,
       true,
       ""},
      {"passable between",
       {0.5, 64, 2.0},
       180,
       0,
       std::array<std::int32_t, 3>{0, 65, 1},
       api::block_kind::passable,
       true,
       ""},
      {"same spot", {0, 64, 0}, 180, 0, std::nullopt, api::block_kind::solid, false, "same_spot"},
  };
  for (const row& r : rows) {
    CAPTURE(r.name);
    harness h;
    const bool los_row = r.block.has_value();
    h.join("alice", {los_row ? 0.5 : 0.0, 64, los_row ? 0.5 : 0.0}, r.initiator_yaw);
    h.join("bob", r.partner, r.partner_yaw);
    if (r.block) {
      h.blocks((*r.block)[0], (*r.block)[1], (*r.block)[2], r.kind);
    }
    h.play("alice", "demo:hs");
    const auto reply = h.play("bob", "demo:hs");
    CHECK(role_of(reply) == (r.joins ? "partner" : "initiator"));
    // players.md §7.3: a new initiator's reply names the offer it did not join and why.
    CHECK(unmatched_of(h.eng) == (r.joins ? std::string() : std::string("1,alice,") + r.why));
  }
}

TEST_CASE("the re-check sees a block placed during the offer; a dimension change fails it") {
  {
    harness h;
    h.join("alice", {0.5, 64, 0.5}, 0);
    h.join("bob", {0.5, 64, 2.0}, 180);
    h.play("alice", "demo:hs");
    CHECK(role_of(h.play("bob", "demo:hs")) == "partner");
    h.blocks(0, 65, 1, api::block_kind::solid);
    h.run_to(41);
    CHECK(h.records(40) == strings{"released(1,alice,bob,recheck_failed)"});
    CHECK(h.phase(1) == "WAITING");
  }
  {
    harness h;
    h.join("alice", {0, 64, 0}, 0);
    h.join("bob", {0, 64, 1.2}, 180);
    h.play("alice", "demo:hs");
    h.play("bob", "demo:hs");
    api::player_fields f;
    f.dimension = std::string("minecraft:the_nether");
    h.update("bob", f);
    h.run_to(41);
    CHECK(h.records(40) == strings{"released(1,alice,bob,recheck_failed)"});
  }
}

TEST_CASE("R66/R67 registry: a reservation is no participation; a repeated stop is a no-op") {
  harness h;
  h.join("alice", {0, 64, 0}, 0);
  h.join("bob", {0, 64, 1.2}, 180);
  h.play("alice", "demo:hs");
  CHECK(h.eng.active_displays() == 2); // box and its partner copy
  h.play("bob", "demo:hs");
  CHECK(h.eng.active_displays() == 2); // a join creates no displays
  auto bob = h.eng.state(std::string("bob")).players.front();
  CHECK(bob.reserved);
  CHECK(bob.session == 1);
  h.run_to(41);
  bob = h.eng.state(std::string("bob")).players.front();
  CHECK_FALSE(bob.reserved);
  CHECK(bob.role == api::role::partner);
  CHECK(h.session(1)->partner == std::optional<std::string>("bob"));

  harness r;
  r.join("alice", {0, 64, 0}, 0);
  r.join("bob", {0, 64, 1.2}, 180);
  r.play("alice", "demo:hs");
  r.play("bob", "demo:hs");
  CHECK(code(r.stop("alice")) == "ok");
  CHECK(code(r.stop("alice")) == "not_playing");
  CHECK(code(r.stop("bob")) == "not_playing");
  CHECK(r.eng.session_count() == 0);
  CHECK(r.eng.active_displays() == 0);
  r.step();
  CHECK(r.records(0) == strings{"vis(alice,true,blank)", "started(1,alice,demo:hs,initiator)",
                                "reserved(1,alice,bob)", "released(1,alice,bob,session_ended)",
                                "vis(alice,false,real)", "stopped(1,alice,demo:hs,MANUAL)"});
}

TEST_CASE("an initiator's own request for a different emote releases nothing it does not hold") {
  // Step 4: a reserved player's new request releases its reservation (`restarted`) first.
  harness h;
  h.join("alice", {0, 64, 0}, 0);
  h.join("bob", {0, 64, 1.2}, 180);
  h.play("alice", "demo:hs");
  h.play("bob", "demo:hs");
  CHECK(role_of(h.play("bob", "demo:allowed")) == "solo");
  h.step();
  CHECK(h.records(0) == strings{"vis(alice,true,blank)", "started(1,alice,demo:hs,initiator)",
                                "reserved(1,alice,bob)", "released(1,alice,bob,restarted)",
                                "started(2,bob,demo:allowed,solo)"});
}
