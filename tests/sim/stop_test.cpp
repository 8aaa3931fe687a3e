// Stop conditions and stop reasons through the Engine (players.md §3): polls in P2, event
// conditions in P1, the §3.6 stop order; R25–R33 and every stop reason.

#include "support.hpp"

#include <functional>

using namespace simtest;
using api::player_event_kind;

namespace {

/// A harness with `demo:sc` (200 ticks, once) using these stop conditions.
harness with_conditions(const anim_spec& base) {
  anim_spec s = base;
  s.id = "demo:sc";
  return harness({}, {animation_json(s)});
}

anim_spec conditions(double md, bool jump, bool submerge, bool ride, bool damage, bool attack,
                     bool game_mode) {
  anim_spec s;
  s.md = md;
  s.jump = jump;
  s.submerge = submerge;
  s.ride = ride;
  s.damage = damage;
  s.attack = attack;
  s.game_mode = game_mode;
  return s;
}

/// Play demo:sc at tick 0, step, then apply `act` in tick 1 and step; the records of tick 1.
template <class F>
strings after(harness& h, F act, dvec3 start = {0, 64, 0}) {
  h.join("alice", start);
  REQUIRE(code(h.play("alice", "demo:sc")) == "ok");
  h.step();
  act(h);
  h.step();
  return h.records(1);
}

} // namespace

TEST_CASE("R25 MOVED is strict, horizontal, from the baseline; md 0 follows instead") {
  const auto sc = conditions(0.1, true, true, true, true, true, true);
  for (const auto& [x, stops] :
       std::vector<std::pair<double, bool>>{{0.101, true}, {0.1, false}, {0.09, false}}) {
    CAPTURE(x);
    harness h = with_conditions(sc);
    const strings r = after(h, [&](harness& g) { g.move("alice", {x, 64, 0}); });
    CHECK(r == (stops ? strings{"stopped(1,alice,demo:sc,MOVED)"} : strings{}));
  }
  {
    harness h = with_conditions(sc);
    CHECK(after(h, [](harness& g) { g.move("alice", {0, 114, 0}); }).empty());
  }
  harness h = with_conditions(conditions(0, true, true, true, true, true, true));
  CHECK(after(h, [](harness& g) { g.move("alice", {100, 64, 0}); }).empty());
  const auto moves = all_of<api::ev_display_move>(h.frame(1));
  REQUIRE(moves.size() == 1);
  CHECK(moves[0]->position == dvec3{100, 64, 0});
}

TEST_CASE("R26 (0.4 − 0.3)² > 0.1·0.1 in binary64") {
  harness h = with_conditions(conditions(0.1, true, true, true, true, true, true));
  CHECK(after(h,
              [](harness& g) {
                g.move("alice", {0.4, 64, 0});
              },
              {0.3, 64, 0}) == strings{"stopped(1,alice,demo:sc,MOVED)"});
}

TEST_CASE("R27 event conditions take effect at once, only when enabled") {
  const auto sc = conditions(0.1, true, false, true, false, true, false);
  struct row {
    const char* name;
    std::function<void(harness&)> act;
    const char* reason;
  };
  const std::vector<row> rows{
      {"jump", [](harness& g) { g.event("alice", player_event_kind::jump); }, "JUMPED"},
      {"mount", [](harness& g) { g.event("alice", player_event_kind::mount); }, "MOUNTED"},
      {"attack", [](harness& g) { g.event("alice", player_event_kind::attack); }, "ATTACKED"},
      {"damage", [](harness& g) { g.event("alice", player_event_kind::damage, 3); }, nullptr},
      {"game mode",
       [](harness& g) {
         api::player_fields f;
         f.game_mode = api::game_mode::creative;
         g.update("alice", f);
       },
       nullptr},
      {"eye in water",
       [](harness& g) {
         api::player_fields f;
         f.eye_in_water = true;
         g.update("alice", f);
       },
       nullptr},
  };
  for (const auto& r : rows) {
    CAPTURE(r.name);
    harness h = with_conditions(sc);
    h.join("alice", {0, 64, 0});
    h.play("alice", "demo:sc");
    h.step();
    r.act(h);
    // At once: the session is gone before the rest of the tick runs.
    CHECK(h.eng.session_count() == (r.reason != nullptr ? 0u : 1u));
    h.step();
    CHECK(h.records(1) == (r.reason != nullptr
                               ? strings{std::string("stopped(1,alice,demo:sc,") + r.reason + ")"}
                               : strings{}));
  }
}

TEST_CASE("R28 damage 0 does nothing; lethal damage is no DAMAGED but PLAYER_UNAVAILABLE in P2") {
  const auto sc = conditions(0.1, true, true, true, true, true, true);
  harness a = with_conditions(sc);
  CHECK(after(a, [](harness& g) { g.event("alice", player_event_kind::damage, 0); }).empty());
  harness b = with_conditions(sc);
  CHECK(after(b, [](harness& g) {
          g.event("alice", player_event_kind::damage, 5, true);
          CHECK(g.eng.session_count() == 1); // not at once
        }) == strings{"stopped(1,alice,demo:sc,PLAYER_UNAVAILABLE)"});
  harness c = with_conditions(sc);
  CHECK(after(c, [](harness& g) { g.event("alice", player_event_kind::damage, 2.5); }) ==
        strings{"stopped(1,alice,demo:sc,DAMAGED)"});
}

TEST_CASE("R29 a state held at the start is no event; switching vehicles and modes is") {
  const auto sc = conditions(0.1, true, true, true, true, true, true);
  api::player_fields riding;
  riding.vehicle = std::optional<std::string>("boat");
  harness h = with_conditions(sc);
  h.join("alice", {0, 64, 0}, 0, riding);
  h.play("alice", "demo:sc");
  h.step();
  h.update("alice", riding); // stays on
  h.step();
  CHECK(h.records(1).empty());
  api::player_fields other;
  other.vehicle = std::optional<std::string>("horse");
  h.update("alice", other);
  h.step();
  CHECK(h.records(2) == strings{"stopped(1,alice,demo:sc,MOUNTED)"});

  harness g = with_conditions(sc);
  g.join("alice", {0, 64, 0});
  g.play("alice", "demo:sc");
  api::player_fields same;
  same.game_mode = api::game_mode::survival;
  g.update("alice", same);
  CHECK(g.eng.session_count() == 1);
  api::player_fields creative;
  creative.game_mode = api::game_mode::creative;
  g.update("alice", creative);
  g.step();
  CHECK(g.records(0) ==
        strings{"started(1,alice,demo:sc,solo)", "stopped(1,alice,demo:sc,GAME_MODE_CHANGED)"});
}

TEST_CASE("R30 derived jumps: leaving the ground upwards, not riding") {
  const auto sc = conditions(0, true, true, false, true, true, true);
  struct row {
    double dy;
    bool riding;
    bool jumps;
  };
  for (const row r : {row{0.42, false, true}, row{0, false, false}, row{-0.5, false, false},
                      row{0.42, true, false}}) {
    CAPTURE(r.dy);
    CAPTURE(r.riding);
    api::player_fields start;
    if (r.riding) {
      start.vehicle = std::optional<std::string>("boat");
    }
    harness h = with_conditions(sc);
    h.join("alice", {0, 64, 0}, 0, start);
    h.play("alice", "demo:sc");
    h.step();
    api::player_fields f;
    f.on_ground = false;
    f.position = dvec3{0, 64 + r.dy, 0};
    h.update("alice", f);
    h.step();
    CHECK(h.records(1) == (r.jumps ? strings{"stopped(1,alice,demo:sc,JUMPED)"} : strings{}));
  }
}

TEST_CASE("R31 the start tick: polled in P2 with the tick's last positions, never advanced") {
  const auto sc = conditions(0.1, true, true, true, true, true, true);
  harness h = with_conditions(sc);
  h.join("alice", {0, 64, 0});
  h.play("alice", "demo:sc");
  h.move("alice", {1, 64, 0});
  const api::frame& f = h.step();
  CHECK(h.records(0) == strings{"started(1,alice,demo:sc,solo)", "stopped(1,alice,demo:sc,MOVED)"});
  CHECK(all_of<api::ev_display_update>(f).empty());
  CHECK(all_of<api::ev_display_spawn>(f).size() == 1);
  CHECK(all_of<api::ev_display_remove>(f).size() == 1);

  harness j = with_conditions(sc);
  j.join("alice", {0, 64, 0});
  j.play("alice", "demo:sc");
  j.event("alice", player_event_kind::jump);
  CHECK(j.eng.session_count() == 0);

  harness d = with_conditions(sc);
  api::player_fields dead;
  dead.alive = false;
  d.join("alice", {0, 64, 0}, 0, dead);
  const auto r = d.play("alice", "demo:sc");
  CHECK(code(r) == "ok");
  d.step();
  CHECK(d.records(0) ==
        strings{"started(1,alice,demo:sc,solo)", "stopped(1,alice,demo:sc,PLAYER_UNAVAILABLE)"});
}

TEST_CASE("R32 a dimension change stops at the next poll; a leave at once") {
  const auto sc = conditions(0.1, true, true, true, true, true, true);
  harness h = with_conditions(sc);
  CHECK(after(h, [](harness& g) {
          api::player_fields f;
          f.dimension = std::string("minecraft:the_nether");
          g.update("alice", f);
          CHECK(g.eng.session_count() == 1);
        }) == strings{"stopped(1,alice,demo:sc,PLAYER_UNAVAILABLE)"});
  harness l = with_conditions(sc);
  CHECK(after(l, [](harness& g) {
          g.leave("alice");
          CHECK(g.eng.session_count() == 0);
        }) == strings{"stopped(1,alice,demo:sc,DISCONNECTED)"});
  // A respawn starts a new incarnation: PLAYER_UNAVAILABLE at the next poll.
  harness r = with_conditions(sc);
  CHECK(after(r, [](harness& g) { g.event("alice", player_event_kind::respawn); }) ==
        strings{"stopped(1,alice,demo:sc,PLAYER_UNAVAILABLE)"});
}

TEST_CASE("R33 poll order: SUBMERGED before MOVED; a manual stop always stops") {
  harness h = with_conditions(conditions(0.1, true, true, true, true, true, true));
  CHECK(after(h, [](harness& g) {
          api::player_fields f;
          f.eye_in_water = true;
          f.position = dvec3{1, 64, 0};
          g.update("alice", f);
        }) == strings{"stopped(1,alice,demo:sc,SUBMERGED)"});
  harness m = with_conditions(conditions(0, false, false, false, false, false, false));
  CHECK(after(m, [](harness& g) {
          const auto r = g.stop("alice");
          CHECK(std::get<api::stop_ok>(r.payload).session == 1);
        }) == strings{"stopped(1,alice,demo:sc,MANUAL)"});
}

TEST_CASE("SUBMERGED from the world's water while the client never sent eye_in_water") {
  harness h = with_conditions(conditions(0.1, true, true, true, true, true, true));
  h.join("alice", {0.5, 64, 0.5});
  h.play("alice", "demo:sc");
  h.step();
  h.blocks(0, 65, 0, api::block_kind::water); // the eye is at y 65.62
  h.step();
  CHECK(h.records(1) == strings{"stopped(1,alice,demo:sc,SUBMERGED)"});
}

TEST_CASE("every stop reason reaches playback.stopped") {
  const auto sc = conditions(0.1, true, true, true, true, true, true);
  std::map<std::string, std::function<void(harness&)>> acts{
      {"MANUAL", [](harness& g) { g.stop("alice"); }},
      {"REPLACED", [](harness& g) { g.play("alice", "demo:allowed"); }},
      {"MOVED",
       [](harness& g) {
         g.move("alice", {1, 64, 0});
       }},
      {"SUBMERGED",
       [](harness& g) {
         api::player_fields f;
         f.eye_in_water = true;
         g.update("alice", f);
       }},
      {"PLAYER_UNAVAILABLE", [](harness& g) { g.event("alice", player_event_kind::death); }},
      {"JUMPED", [](harness& g) { g.event("alice", player_event_kind::jump); }},
      {"MOUNTED", [](harness& g) { g.event("alice", player_event_kind::mount); }},
      {"DAMAGED", [](harness& g) { g.event("alice", player_event_kind::damage, 1); }},
      {"ATTACKED", [](harness& g) { g.event("alice", player_event_kind::attack); }},
      {"GAME_MODE_CHANGED",
       [](harness& g) {
         api::player_event e;
         e.player = "alice";
         e.kind = player_event_kind::game_mode;
         e.mode = api::game_mode::adventure;
         g.eng.apply(e);
       }},
      {"DISCONNECTED", [](harness& g) { g.leave("alice"); }},
      {"EMOTE_REMOVED", [](harness& g) { g.eng.apply(api::emote_unregister{"demo:sc"}); }},
      {"RELOAD", [](harness& g) { g.eng.reload(g.eng.catalog_ptr()); }},
      {"SERVER_STOPPING", [](harness& g) { g.eng.shutdown(); }},
  };
  for (const auto& [reason, act] : acts) {
    CAPTURE(reason);
    harness h = with_conditions(sc);
    CHECK(after(h, act).front() == "stopped(1,alice,demo:sc," + reason + ")");
  }
  // FINISHED and ERROR come from the playback itself.
  harness f;
  f.join("alice", {0, 64, 0});
  f.play("alice", "demo:short");
  f.run_to(6);
  CHECK(f.find("stopped") == strings{"5:stopped(1,alice,demo:short,FINISHED)"});
  harness e;
  e.join("alice", {0, 64, 0});
  e.play("alice", "demo:fail_tick");
  e.run_to(3);
  CHECK(e.find("stopped") == strings{"2:stopped(1,alice,demo:fail_tick,ERROR)"});
}

TEST_CASE("players.md §3.6 order: stop events, restore, stopped; the displays are free at once") {
  harness h;
  h.join("alice", {0, 64, 0});
  h.play("alice", "demo:events"); // hidden, start/stop commands
  CHECK(h.eng.active_displays() == 1);
  h.step();
  CHECK(h.events(0) == strings{"command(1,say start)", "spawn(1,1)", "vis(alice,true,blank)",
                               "started(1,alice,demo:events,solo)"});
  h.stop("alice");
  CHECK(h.eng.active_displays() == 0);
  CHECK(code(h.stop("alice")) == "not_playing"); // a repeated stop is a no-op
  h.step();
  CHECK(h.events(1) == strings{"command(1,say stop)", "remove(1)", "vis(alice,false,real)",
                               "stopped(1,alice,demo:events,MANUAL)"});
  // The handle returns to the pool after that frame.
  h.play("alice", "demo:events");
  h.step();
  CHECK(all_of<api::ev_display_spawn>(h.frame(2)).front()->handle == 1);
}
