// Hidden players (players.md §4) through the Engine: R23, the replacement chain, the partner's
// reservation-time flag, and the Molang view of emote hiding (molang.md §5.2 `is_invisible`).

#include "support.hpp"

#include <cmath>

using namespace simtest;

namespace {

api::player_fields invisible(bool v) {
  api::player_fields f;
  f.invisible = v;
  return f;
}

} // namespace

TEST_CASE("R23 hide before started, restore before stopped; replacement restores first") {
  for (const bool own : {false, true}) {
    CAPTURE(own);
    const std::string was = own ? "true" : "false";
    harness h;
    h.join("alice", {0, 64, 0}, 0, invisible(own));
    h.play("alice", "demo:hidden");
    h.run_to(5);
    h.play("alice", "demo:hidden_b");
    h.run_to(10);
    h.stop("alice");
    h.step();
    CHECK(h.records(0) == strings{"vis(alice,true,blank)", "started(1,alice,demo:hidden,solo)"});
    CHECK(h.records(5) == strings{"vis(alice," + was + ",real)",
                                  "stopped(1,alice,demo:hidden,REPLACED)", "vis(alice,true,blank)",
                                  "started(2,alice,demo:hidden_b,solo)"});
    CHECK(h.records(10) ==
          strings{"vis(alice," + was + ",real)", "stopped(2,alice,demo:hidden_b,MANUAL)"});
  }
}

TEST_CASE("the replacement chain keeps the first stored flag; reported changes are only stored") {
  SUBCASE("hidden → hidden → hidden") {
    harness h;
    h.join("alice", {0, 64, 0});
    h.play("alice", "demo:hidden");
    h.run_to(3);
    h.update("alice", invisible(true)); // a potion while hidden: stored, no record
    h.step();
    CHECK(h.records(3).empty());
    h.play("alice", "demo:hidden_b");
    h.run_to(6);
    h.play("alice", "demo:hidden");
    h.run_to(9);
    h.stop("alice");
    h.step();
    CHECK(h.find("real") ==
          strings{"4:vis(alice,false,real)", "6:vis(alice,false,real)", "9:vis(alice,false,real)"});
  }
  SUBCASE("a session that did not hide the player breaks the chain") {
    harness h;
    h.join("alice", {0, 64, 0});
    h.play("alice", "demo:hidden");
    h.run_to(3);
    h.update("alice", invisible(true));
    h.play("alice", "demo:allowed"); // not hidden: restores false, hides nothing
    h.run_to(6);
    h.play("alice", "demo:hidden"); // captures the player's own flag now: true
    h.run_to(9);
    h.stop("alice");
    h.step();
    CHECK(h.all_records() == strings{
                                 "0:vis(alice,true,blank)",
                                 "0:started(1,alice,demo:hidden,solo)",
                                 "3:vis(alice,false,real)",
                                 "3:stopped(1,alice,demo:hidden,REPLACED)",
                                 "3:started(2,alice,demo:allowed,solo)",
                                 "6:stopped(2,alice,demo:allowed,REPLACED)",
                                 "6:vis(alice,true,blank)",
                                 "6:started(3,alice,demo:hidden,solo)",
                                 "9:vis(alice,true,real)",
                                 "9:stopped(3,alice,demo:hidden,MANUAL)",
                             });
  }
  SUBCASE("hidden = false emits no visibility records") {
    harness h;
    h.join("alice", {0, 64, 0});
    h.play("alice", "demo:allowed");
    h.stop("alice");
    h.step();
    CHECK(h.records(0) ==
          strings{"started(1,alice,demo:allowed,solo)", "stopped(1,alice,demo:allowed,MANUAL)"});
  }
}

TEST_CASE("a partner's flag is captured at reservation") {
  harness h;
  h.join("alice", {0, 64, 0}, 0);
  h.join("bob", {0, 64, 1.2}, 180);
  h.play("alice", "demo:hs");
  h.play("bob", "demo:hs");
  h.run_to(20);
  h.update("bob", invisible(true)); // after the reservation
  h.run_to(50);
  h.stop("bob");
  h.step();
  CHECK(h.records(50) == strings{"vis(alice,false,real)", "stopped(1,alice,demo:hs,MANUAL)",
                                 "vis(bob,false,real)", "stopped(1,bob,demo:hs,MANUAL)"});
}

TEST_CASE("Molang is_invisible sees emote hiding from the frame after the start frame") {
  // x = q.is_invisible: 0 in the start frame, 1 from the next one.
  anim_spec a;
  a.id = "demo:seen";
  a.hidden = true;
  a.tracks = R"({"d0": {"position": [{"time": "0t", "value": ["q.is_invisible", 0, 0]}]}})";
  harness h({}, {animation_json(a)});
  h.join("alice", {0, 64, 0}, 180); // root yaw 180: the display matrix is the world matrix
  h.play("alice", "demo:seen");
  const api::frame& f0 = h.step();
  const auto spawn = all_of<api::ev_display_spawn>(f0);
  REQUIRE(spawn.size() == 1);
  CHECK(spawn[0]->transform.translation[0] == 0.0f);
  const api::frame& f1 = h.step();
  const auto up = all_of<api::ev_display_update>(f1);
  REQUIRE(up.size() == 1);
  REQUIRE(up[0]->transform.has_value());
  CHECK(up[0]->transform->translation[0] == 1.0f);

  // Not hidden: the player's own flag only.
  anim_spec b = a;
  b.id = "demo:unseen";
  b.hidden = false;
  harness g({}, {animation_json(b)});
  g.join("alice", {0, 64, 0}, 180, invisible(true));
  g.play("alice", "demo:unseen");
  const api::frame& g0 = g.step();
  CHECK(all_of<api::ev_display_spawn>(g0)[0]->transform.translation[0] == 1.0f);
}
