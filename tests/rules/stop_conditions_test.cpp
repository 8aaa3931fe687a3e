#include "engine/rules/stop_conditions.hpp"

#include "engine/world/player_registry.hpp"

#include <doctest/doctest.h>

#include <vector>

using namespace emote;
using namespace emote::rules;
using api::stop_reason;

namespace {

constexpr const char* ow = "minecraft:overworld";

stop_conditions all_on(double md = 0.1) {
  return {md, true, true, true, true, true, true};
}

/// A registry with alice at (x, 64, z), and her poll subject at that baseline.
struct fixture {
  world::player_registry players;
  world::voxel_world blocks;
  poll_subject subject;

  explicit fixture(double x = 0, double z = 0) {
    api::player_join j;
    j.player = "alice";
    j.fields.position = core::dvec3{x, 64, z};
    REQUIRE(players.join(j, 0).ok());
    subject = {players.find("alice"), 1, {x, 64, z}};
  }
  world::change update(const api::player_fields& f) { return *players.update("alice", f, 1); }
  world::change event(const api::player_event& e) { return *players.event("alice", e, 1); }
  std::optional<stop_reason> poll_now(const stop_conditions& sc) {
    subject.player = players.find("alice");
    return poll(subject, sc, ow, blocks);
  }
  void move_to(double x, double y, double z) {
    api::player_fields f;
    f.position = core::dvec3{x, y, z};
    update(f);
  }
};

api::player_event ev(api::player_event_kind k) {
  api::player_event e;
  e.player = "alice";
  e.kind = k;
  return e;
}

} // namespace

TEST_CASE("R25: MOVED is strict, horizontal, and off at movement_distance 0") {
  for (auto [x, expect] :
       std::vector<std::pair<double, bool>>{{0.101, true}, {0.1, false}, {0.09, false}}) {
    fixture f;
    f.move_to(x, 64, 0);
    CHECK(f.poll_now(all_on(0.1)) == (expect ? std::optional(stop_reason::moved) : std::nullopt));
  }
  fixture up;
  up.move_to(0, 114, 0);
  CHECK_FALSE(up.poll_now(all_on(0.1)));
  fixture far;
  far.move_to(100, 64, 0);
  CHECK_FALSE(far.poll_now(all_on(0.0)));
  // A straight line from the baseline, not a path: back home is not moved.
  fixture back;
  back.move_to(5, 64, 0);
  back.move_to(0, 64, 0.05);
  CHECK_FALSE(back.poll_now(all_on(0.1)));
}

TEST_CASE("R26: (0.4 - 0.3)^2 = 0.010000000000000007 > 0.1·0.1") {
  CHECK((0.4 - 0.3) * (0.4 - 0.3) == 0.010000000000000007);
  CHECK(moved_beyond({0.4, 64, 0}, {0.3, 64, 0}, 0.1));
  fixture f(0.3, 0);
  f.move_to(0.4, 64, 0);
  CHECK(f.poll_now(all_on(0.1)) == stop_reason::moved);
}

TEST_CASE("R27: only the enabled event conditions stop") {
  const stop_conditions sc{0.1, true, false, true, false, true, false};
  fixture f;
  CHECK(first_event_stop(f.event(ev(api::player_event_kind::jump)).events, sc) ==
        stop_reason::jumped);
  api::player_event mount = ev(api::player_event_kind::mount);
  mount.vehicle = "boat";
  CHECK(first_event_stop(f.event(mount).events, sc) == stop_reason::mounted);
  api::player_event attack = ev(api::player_event_kind::attack);
  attack.target = "zombie";
  CHECK(first_event_stop(f.event(attack).events, sc) == stop_reason::attacked);
  api::player_event damage = ev(api::player_event_kind::damage);
  damage.amount = 3;
  CHECK_FALSE(first_event_stop(f.event(damage).events, sc));
  api::player_fields mode;
  mode.game_mode = api::game_mode::creative;
  CHECK_FALSE(first_event_stop(f.update(mode).events, sc));
  api::player_fields wet;
  wet.eye_in_water = true;
  CHECK(f.update(wet).events.empty());
  CHECK_FALSE(f.poll_now(sc)); // submerge is off
}

TEST_CASE("R28: damage 0 does not stop; lethal damage leaves it to the poll") {
  fixture f;
  api::player_event damage = ev(api::player_event_kind::damage);
  damage.amount = 0;
  CHECK_FALSE(first_event_stop(f.event(damage).events, all_on()));
  damage.amount = 0.5;
  CHECK(first_event_stop(f.event(damage).events, all_on()) == stop_reason::damaged);
  damage.amount = 5;
  damage.lethal = true;
  CHECK_FALSE(first_event_stop(f.event(damage).events, all_on()));
  CHECK(f.poll_now(all_on()) == stop_reason::player_unavailable);
}

TEST_CASE("R29: a vehicle switch mounts, staying on does not; game mode only on change") {
  fixture f;
  api::player_fields riding;
  riding.vehicle = std::optional<std::string>("boat");
  f.update(riding); // before the emote started: not a stop in itself
  CHECK_FALSE(first_event_stop(f.update(riding).events, all_on()));
  api::player_fields other;
  other.vehicle = std::optional<std::string>("horse");
  CHECK(first_event_stop(f.update(other).events, all_on()) == stop_reason::mounted);
  api::player_fields same;
  same.game_mode = api::game_mode::survival;
  CHECK_FALSE(first_event_stop(f.update(same).events, all_on()));
  api::player_fields creative;
  creative.game_mode = api::game_mode::creative;
  CHECK(first_event_stop(f.update(creative).events, all_on()) == stop_reason::game_mode_changed);
}

TEST_CASE("R30: the derived jump stops only when it is a jump") {
  auto jumped = [](double dy, bool riding) {
    fixture f;
    if (riding) {
      api::player_fields r;
      r.vehicle = std::optional<std::string>("boat");
      f.update(r);
    }
    api::player_fields u;
    u.position = core::dvec3{0, 64 + dy, 0};
    u.on_ground = false;
    return first_event_stop(f.update(u).events, all_on());
  };
  CHECK(jumped(0.42, false) == stop_reason::jumped);
  CHECK_FALSE(jumped(0, false));
  CHECK_FALSE(jumped(-0.5, false));
  CHECK_FALSE(jumped(0.42, true));
}

TEST_CASE("R31: a move or a jump in the start tick; a dead player's session") {
  fixture f;
  f.move_to(1, 64, 0);
  CHECK(f.poll_now(all_on(0.1)) == stop_reason::moved);
  fixture g;
  CHECK(first_event_stop(g.event(ev(api::player_event_kind::jump)).events, all_on()) ==
        stop_reason::jumped);
  fixture dead;
  api::player_fields d;
  d.alive = false;
  dead.update(d);
  CHECK(dead.poll_now(all_on()) == stop_reason::player_unavailable);
}

TEST_CASE("R32: dimension change, leave, respawn and rejoin make the player unavailable") {
  fixture f;
  api::player_fields nether;
  nether.dimension = "minecraft:the_nether";
  CHECK_FALSE(first_event_stop(f.update(nether).events, all_on()));
  CHECK(f.poll_now(all_on()) == stop_reason::player_unavailable);

  fixture gone;
  REQUIRE(gone.players.leave("alice"));
  CHECK(gone.poll_now(all_on()) == stop_reason::player_unavailable);

  fixture back; // a rejoin is another incarnation
  REQUIRE(back.players.leave("alice"));
  api::player_join j;
  j.player = "alice";
  j.fields.position = core::dvec3{0, 64, 0};
  REQUIRE(back.players.join(j, 2).ok());
  CHECK(back.poll_now(all_on()) == stop_reason::player_unavailable);

  fixture respawned;
  respawned.event(ev(api::player_event_kind::death));
  respawned.event(ev(api::player_event_kind::respawn));
  CHECK(respawned.players.find("alice")->alive);
  CHECK(respawned.poll_now(all_on()) == stop_reason::player_unavailable);
}

TEST_CASE("R33: poll order puts SUBMERGED before MOVED") {
  fixture f;
  api::player_fields u;
  u.eye_in_water = true;
  u.position = core::dvec3{1, 64, 0};
  f.update(u);
  CHECK(f.poll_now(all_on(0.1)) == stop_reason::submerged);
  // With every condition off only availability is polled.
  const stop_conditions off{};
  CHECK_FALSE(f.poll_now(off));
}

TEST_CASE("SUBMERGED uses the world while the client never sent eye_in_water") {
  fixture f(0.5, 0.5);
  REQUIRE(f.blocks.set(ow, {0, 65, 0}, world::block_kind::water));
  CHECK(f.poll_now(all_on()) == stop_reason::submerged);
  stop_conditions no_submerge = all_on();
  no_submerge.submerge = false;
  CHECK_FALSE(f.poll_now(no_submerge));
}

TEST_CASE("a session poll checks participants in order; the first hit wins") {
  world::player_registry players;
  world::voxel_world blocks;
  for (const char* id : {"init", "part"}) {
    api::player_join j;
    j.player = id;
    j.fields.position = core::dvec3{0, 64, 0};
    REQUIRE(players.join(j, 0).ok());
  }
  api::player_fields moved;
  moved.position = core::dvec3{2, 64, 0};
  players.update("part", moved, 1);
  const std::vector<poll_subject> both{{players.find("init"), 1, {0, 64, 0}},
                                       {players.find("part"), 1, {0, 64, 0}}};
  CHECK(poll_session(both, all_on(), ow, blocks) == stop_reason::moved);
  // The partner is polled against its own baseline (its feet at reservation).
  const std::vector<poll_subject> own{{players.find("init"), 1, {0, 64, 0}},
                                      {players.find("part"), 1, {2, 64, 0}}};
  CHECK_FALSE(poll_session(own, all_on(), ow, blocks));
  // The initiator's dimension at start is the session's.
  CHECK(poll_session(own, all_on(), "minecraft:the_end", blocks) ==
        stop_reason::player_unavailable);
}

TEST_CASE("event_stop maps every event kind") {
  const stop_conditions on = all_on();
  const stop_conditions off{};
  using world::event_kind;
  for (auto k : {event_kind::death, event_kind::respawn, event_kind::dimension_change}) {
    world::player_event_record r;
    r.kind = k;
    CHECK_FALSE(event_stop(r, on));
  }
  world::player_event_record r;
  for (auto [k, reason] : std::vector<std::pair<event_kind, stop_reason>>{
           {event_kind::jump, stop_reason::jumped},
           {event_kind::start_riding, stop_reason::mounted},
           {event_kind::attack, stop_reason::attacked},
           {event_kind::game_mode_change, stop_reason::game_mode_changed}}) {
    r.kind = k;
    CHECK(event_stop(r, on) == reason);
    CHECK_FALSE(event_stop(r, off));
  }
}
