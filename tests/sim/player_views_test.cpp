// The players' Molang views alone (engine/sim/player_view.hpp player_views, molang.md §5.2): a
// view is rebuilt only after its player joined or changed, a kept view is compared with a fresh
// one under `check` caches, and the per-use fields (yaw_prev, eye_in_water, hidden_by_emote) are
// fresh on every use.

#include "engine/sim/player_view.hpp"
#include "engine/sim/session_registry.hpp"
#include "engine/world/player_registry.hpp"
#include "engine/world/voxel_world.hpp"

#include <doctest/doctest.h>

#include <memory>
#include <string>

using namespace emote;

namespace {

struct views_fixture {
  explicit views_fixture(core::cache_mode mode = core::cache_mode::on)
      : views(players, world, sessions, mode) {
    api::player_join j;
    j.player = "alice";
    j.fields.position = core::dvec3{0, 64, 0};
    j.fields.health = 20.0F;
    REQUIRE(players.join(j, 0));
    views.joined("alice");
  }
  /// Change alice's health the way an update does, without telling the views.
  void set_health(float h) {
    api::player_fields f;
    f.health = h;
    REQUIRE(players.update("alice", f, 0));
  }

  world::player_registry players;
  world::voxel_world world;
  sim::session_registry sessions;
  sim::player_views views;
};

} // namespace

TEST_CASE("player views: an offline player has none") {
  views_fixture f;
  CHECK(f.views.view("bob", 1, 0) == nullptr);
  CHECK(f.views.view("alice", 1, 0) != nullptr);
}

TEST_CASE("player views: a kept view is rebuilt only after the player changed") {
  views_fixture f;
  const molang::player_view* v = f.views.view("alice", 1, 0);
  REQUIRE(v != nullptr);
  CHECK(v->health == 20.0F);
  f.set_health(7.0F);
  // Not told: the kept view is used as it is.
  CHECK(f.views.view("alice", 1, 0)->health == 20.0F);
  f.views.changed("alice");
  CHECK(f.views.view("alice", 1, 0)->health == 7.0F);
  // A rejoin after a leave starts from a fresh view.
  f.views.left("alice");
  REQUIRE(f.players.leave("alice"));
  api::player_join j;
  j.player = "alice";
  j.fields.health = 3.0F;
  REQUIRE(f.players.join(j, 1));
  f.views.joined("alice");
  CHECK(f.views.view("alice", 1, 1)->health == 3.0F);
}

TEST_CASE("player views: check caches throw on a stale view, naming the session and player") {
  views_fixture f(core::cache_mode::check);
  REQUIRE(f.views.view("alice", 4, 0) != nullptr);
  CHECK_NOTHROW(f.views.view("alice", 4, 0)); // kept and still equal
  f.set_health(7.0F);
  try {
    f.views.view("alice", 4, 0);
    FAIL("a stale view passed the check");
  } catch (const core::cache_mismatch& e) {
    CHECK(e.cache == "player view");
    CHECK(e.session == 4);
    CHECK(e.detail == "player alice");
  }
  f.views.changed("alice");
  CHECK(f.views.view("alice", 4, 0)->health == 7.0F);
}

TEST_CASE("player views: yaw_prev and hidden_by_emote are fresh on every use") {
  views_fixture f;
  CHECK(f.views.view("alice", 1, 0)->yaw_prev == 0.0F);
  api::player_fields turn;
  turn.yaw = 90.0F;
  REQUIRE(f.players.update("alice", turn, 0));
  f.players.begin_tick(); // yaw_prev := 90, not reported as a change
  CHECK(f.views.view("alice", 1, 1)->yaw_prev == 90.0F);

  auto s = std::make_unique<sim::session>();
  s->id = f.sessions.next_id();
  s->settings.hidden = true;
  s->initiator.player = "alice";
  s->initiator.since = 1;
  f.sessions.add(std::move(s));
  CHECK_FALSE(f.views.view("alice", 1, 1)->hidden_by_emote);
  CHECK(f.views.view("alice", 1, 2)->hidden_by_emote);
}
