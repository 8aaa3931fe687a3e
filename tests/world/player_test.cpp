#include "engine/world/player.hpp"

#include "engine/world/eye.hpp"
#include "engine/world/voxel_world.hpp"

#include <doctest/doctest.h>

#include <vector>

using namespace emote;
using namespace emote::world;

namespace {

api::player_fields at(double x, double y, double z) {
  api::player_fields f;
  f.position = core::dvec3{x, y, z};
  return f;
}

std::vector<event_kind> kinds(const change& c) {
  std::vector<event_kind> out;
  for (const auto& e : c.events) {
    out.push_back(e.kind);
  }
  return out;
}

api::player_event explicit_event(api::player_event_kind k) {
  api::player_event e;
  e.player = "alice";
  e.kind = k;
  return e;
}

} // namespace

TEST_CASE("a join fills the defaults of players.md §1.1") {
  api::player_fields f = at(1, 64, 2);
  f.yaw = 30.0f;
  const player_state p = make_player("alice", f, 7);
  CHECK(p.id == "alice");
  CHECK(p.dimension == "minecraft:overworld");
  CHECK(p.pos == core::dvec3{1, 64, 2});
  CHECK(p.yaw == 30.0f);
  CHECK(p.pitch == 0.0f);
  CHECK(p.body_yaw == 30.0f); // = yaw
  CHECK(p.alive);
  CHECK(p.game_mode == api::game_mode::survival);
  CHECK_FALSE(p.vehicle.has_value());
  CHECK(p.on_ground);
  CHECK_FALSE(p.eye_in_water);
  CHECK_FALSE(p.eye_in_water_reported);
  CHECK_FALSE((p.sneaking || p.swimming || p.crawling || p.gliding || p.sleeping || p.sprinting ||
               p.using_item || p.on_fire || p.in_water || p.invisible));
  CHECK(p.velocity == core::dvec3{});
  CHECK(p.main_arm == api::physical_arm::right);
  CHECK(p.right_hand.empty());
  CHECK(p.permissions.empty());
  CHECK(p.health == 20.0f);
  CHECK(p.max_health == 20.0f);
  CHECK(p.scores.empty());
  CHECK(p.incarnation == 1);
  CHECK(p.last_action_tick == 7);
  CHECK(p.yaw_prev == 30.0f);

  api::player_fields g = at(0, 0, 0);
  g.yaw = 30.0f;
  g.body_yaw = -10.0f;
  g.dimension = "minecraft:the_nether";
  g.main_arm = api::physical_arm::left;
  g.right_hand = api::item_stack{"{id:\"minecraft:bow\",count:1}", "minecraft:bow", false};
  const player_state q = make_player("bob", g, 0);
  CHECK(q.body_yaw == -10.0f);
  CHECK(q.dimension == "minecraft:the_nether");
  CHECK(q.main_hand().empty()); // left-handed: the main hand is the left hand
  CHECK(q.off_hand().id == "minecraft:bow");
}

TEST_CASE("body_yaw keeps its join value when only yaw is updated") {
  api::player_fields f = at(0, 64, 0);
  f.yaw = 10.0f;
  player_state p = make_player("alice", f, 0);
  api::player_fields u;
  u.yaw = 50.0f;
  apply_update(p, u, 1);
  CHECK(p.yaw == 50.0f);
  CHECK(p.body_yaw == 10.0f);
}

TEST_CASE("partial updates touch only the given fields; last_action_tick on change only") {
  player_state p = make_player("alice", at(0, 64, 0), 0);
  api::player_fields u;
  u.sneaking = true;
  change c = apply_update(p, u, 5);
  CHECK(c.changed);
  CHECK(c.events.empty());
  CHECK(p.sneaking);
  CHECK(p.pos == core::dvec3{0, 64, 0});
  CHECK(p.last_action_tick == 5);

  c = apply_update(p, u, 9); // the same value again: no change
  CHECK_FALSE(c.changed);
  CHECK(p.last_action_tick == 5);

  api::player_fields perms;
  perms.permissions = std::map<std::string, bool>{{"emote.vip", true}};
  c = apply_update(p, perms, 11);
  CHECK(c.changed);
  CHECK(p.permissions.at("emote.vip"));
  CHECK(p.last_action_tick == 11);

  api::player_fields molang_only;
  molang_only.health = 3.5f;
  CHECK(apply_update(p, molang_only, 12).changed);
  CHECK(p.last_action_tick == 12);
}

TEST_CASE("R30: jump detection from on_ground and the vertical move") {
  auto run = [](double dy, bool riding) {
    api::player_fields f = at(0, 64, 0);
    if (riding) {
      f.vehicle = std::optional<std::string>("boat");
    }
    player_state p = make_player("alice", f, 0);
    api::player_fields u = at(0, 64 + dy, 0);
    u.on_ground = false;
    return kinds(apply_update(p, u, 1));
  };
  CHECK(run(0.42, false) == std::vector<event_kind>{event_kind::jump});
  CHECK(run(0.0, false).empty());
  CHECK(run(-0.5, false).empty());
  CHECK(run(0.42, true).empty());

  // Leaving the ground upwards while changing dimension is not a jump.
  player_state p = make_player("alice", at(0, 64, 0), 0);
  api::player_fields u = at(0, 70, 0);
  u.on_ground = false;
  u.dimension = "minecraft:the_end";
  CHECK(kinds(apply_update(p, u, 1)) == std::vector<event_kind>{event_kind::dimension_change});

  // Already in the air: no new jump however high the player goes.
  api::player_fields up = at(0, 80, 0);
  CHECK(kinds(apply_update(p, up, 2)).empty());
}

TEST_CASE("R29: riding and game mode derive events only on a change") {
  api::player_fields f = at(0, 64, 0);
  f.vehicle = std::optional<std::string>("boat");
  player_state p = make_player("alice", f, 0);

  api::player_fields stay;
  stay.vehicle = std::optional<std::string>("boat");
  CHECK(kinds(apply_update(p, stay, 1)).empty());

  api::player_fields swap;
  swap.vehicle = std::optional<std::string>("horse");
  CHECK(kinds(apply_update(p, swap, 2)) == std::vector<event_kind>{event_kind::start_riding});

  api::player_fields off;
  off.vehicle = std::optional<std::string>(); // explicit null: dismounting is not an event
  CHECK(kinds(apply_update(p, off, 3)).empty());
  CHECK_FALSE(p.vehicle.has_value());

  api::player_fields same_mode;
  same_mode.game_mode = api::game_mode::survival;
  CHECK(kinds(apply_update(p, same_mode, 4)).empty());
  api::player_fields creative;
  creative.game_mode = api::game_mode::creative;
  CHECK(kinds(apply_update(p, creative, 5)) ==
        std::vector<event_kind>{event_kind::game_mode_change});
}

TEST_CASE("one update deriving several events fires them in the stated order") {
  player_state p = make_player("alice", at(0, 64, 0), 0);
  api::player_fields u = at(0, 64.5, 0);
  u.on_ground = false;
  u.game_mode = api::game_mode::adventure;
  u.vehicle = std::optional<std::string>("minecart");
  CHECK(kinds(apply_update(p, u, 1)) == std::vector<event_kind>{event_kind::start_riding,
                                                                event_kind::game_mode_change,
                                                                event_kind::jump});

  player_state q = make_player("bob", at(0, 64, 0), 0);
  api::player_fields v;
  v.alive = false;
  v.dimension = "minecraft:the_nether";
  CHECK(kinds(apply_update(q, v, 1)) ==
        std::vector<event_kind>{event_kind::death, event_kind::dimension_change});
  api::player_fields w;
  w.alive = true;
  w.dimension = "minecraft:overworld";
  CHECK(kinds(apply_update(q, w, 2)) ==
        std::vector<event_kind>{event_kind::respawn, event_kind::dimension_change});
  CHECK(q.incarnation == 2);
}

TEST_CASE("R28: damage events, lethal damage kills") {
  player_state p = make_player("alice", at(0, 64, 0), 0);
  api::player_event d = explicit_event(api::player_event_kind::damage);
  d.amount = 0;
  change c = apply_event(p, d, 3, "");
  REQUIRE(c.events.size() == 1);
  CHECK(c.events[0].kind == event_kind::damage);
  CHECK(c.events[0].amount == 0);
  CHECK(p.alive);
  CHECK(p.last_action_tick == 3); // every event counts as an action

  d.amount = 5;
  d.lethal = true;
  c = apply_event(p, d, 4, "");
  CHECK(kinds(c) == std::vector<event_kind>{event_kind::damage, event_kind::death});
  CHECK(c.events[0].lethal);
  CHECK_FALSE(p.alive);
  CHECK(p.incarnation == 1);
}

TEST_CASE("explicit events are their state updates") {
  player_state p = make_player("alice", at(0, 64, 0), 0);

  api::player_event m = explicit_event(api::player_event_kind::mount);
  m.vehicle = "pig";
  CHECK(kinds(apply_event(p, m, 1, "")) == std::vector<event_kind>{event_kind::start_riding});
  CHECK(p.vehicle == std::optional<std::string>("pig"));
  CHECK(kinds(apply_event(p, m, 2, "")).empty()); // the same vehicle again: no start

  api::player_event gm = explicit_event(api::player_event_kind::game_mode);
  gm.mode = api::game_mode::spectator;
  CHECK(kinds(apply_event(p, gm, 3, "")) == std::vector<event_kind>{event_kind::game_mode_change});
  CHECK(p.game_mode == api::game_mode::spectator);

  api::player_event a = explicit_event(api::player_event_kind::attack);
  a.target = "zombie";
  change c = apply_event(p, a, 4, "");
  CHECK(kinds(c) == std::vector<event_kind>{event_kind::attack});
  CHECK(c.events[0].target == std::optional<std::string>("zombie"));

  CHECK(kinds(apply_event(p, explicit_event(api::player_event_kind::jump), 5, "")) ==
        std::vector<event_kind>{event_kind::jump});

  CHECK(kinds(apply_event(p, explicit_event(api::player_event_kind::death), 6, "")) ==
        std::vector<event_kind>{event_kind::death});
  CHECK(kinds(apply_event(p, explicit_event(api::player_event_kind::death), 7, "")).empty());
  CHECK(p.incarnation == 1);
  CHECK(kinds(apply_event(p, explicit_event(api::player_event_kind::respawn), 8, "")) ==
        std::vector<event_kind>{event_kind::respawn});
  CHECK(p.alive);
  CHECK(p.incarnation == 2);
  // A living player's explicit respawn is still a new incarnation.
  CHECK(kinds(apply_event(p, explicit_event(api::player_event_kind::respawn), 9, "")) ==
        std::vector<event_kind>{event_kind::respawn});
  CHECK(p.incarnation == 3);
  CHECK(p.last_action_tick == 9);
}

TEST_CASE("eye heights follow the first matching pose (players.md §1.2)") {
  player_state p = make_player("alice", at(0, 64, 0), 0);
  CHECK(eye_height(p) == 1.62f);
  CHECK(eye_position(p).y == 64 + 1.6200000047683716);
  p.sneaking = true;
  CHECK(eye_height(p) == 1.27f);
  CHECK(static_cast<double>(eye_height(p)) == 1.2699999809265137);
  p.crawling = true;
  CHECK(eye_height(p) == 0.4f);
  p.crawling = false;
  p.swimming = true;
  CHECK(eye_height(p) == 0.4f);
  p.sleeping = true;
  CHECK(eye_height(p) == 0.2f);
  CHECK(static_cast<double>(eye_height(p)) == 0.20000000298023224);
  p.gliding = true;
  CHECK(eye_height(p) == 0.4f);
  CHECK(eye_position(p).y == 64 + 0.4000000059604645);
}

TEST_CASE("eye_in_water comes from the world until the client reports it") {
  voxel_world w;
  player_state p = make_player("alice", at(0.5, 64, 0.5), 0);
  CHECK_FALSE(eye_in_water(p, w));
  REQUIRE(w.set("minecraft:overworld", {0, 65, 0}, block_kind::water));
  CHECK(eye_in_water(p, w)); // eye at y 65.62
  p.sleeping = true;         // eye at 64.2: the feet cell is dry
  CHECK_FALSE(eye_in_water(p, w));
  p.sleeping = false;
  REQUIRE(w.set("minecraft:overworld", {0, 65, 0}, block_kind::solid));
  CHECK_FALSE(eye_in_water(p, w)); // only water counts
  REQUIRE(w.set("minecraft:overworld", {0, 65, 0}, block_kind::water));
  p.dimension = "minecraft:the_nether";
  CHECK_FALSE(eye_in_water(p, w));
  p.dimension = "minecraft:overworld";

  api::player_fields u;
  u.eye_in_water = false;
  const change c = apply_update(p, u, 3);
  CHECK_FALSE(c.changed); // false again: no field changed, yet the derivation has ended
  CHECK(p.eye_in_water_reported);
  CHECK_FALSE(eye_in_water(p, w)); // the client said dry, the world is ignored now
  u.eye_in_water = true;
  apply_update(p, u, 4);
  REQUIRE(w.clear("minecraft:overworld") == 1);
  CHECK(eye_in_water(p, w));

  // Negative coordinates use floor, not truncation.
  player_state q = make_player("bob", at(-0.5, 64, -0.5), 0);
  REQUIRE(w.set("minecraft:overworld", {-1, 65, -1}, block_kind::water));
  CHECK(eye_in_water(q, w));
}

TEST_CASE("viewer fields: client resets bump client_epoch (render.md §4 rule 4)") {
  api::player_fields join;
  join.position = dvec3{0, 64, 0};
  join.viewer.protocol = 769;
  join.viewer.entity_id = 42;
  player_state p = make_player("alice", join, 0);
  CHECK(*p.protocol == 769);
  CHECK(*p.entity_id == 42);
  const auto epoch = p.client_epoch;

  auto bump = [&](const api::player_fields& f) {
    const auto before = p.client_epoch;
    const auto c = apply_update(p, f, 1);
    CHECK_FALSE(c.changed); // viewer fields are not player actions
    return p.client_epoch != before;
  };
  api::player_fields f;
  f.viewer.view_distance = 6;
  f.viewer.name = "Alice";
  f.viewer.glowing = true;
  CHECK_FALSE(bump(f));
  CHECK(*p.view_distance == 6);
  CHECK(p.name == "Alice");
  CHECK(p.glowing);
  f = {};
  f.viewer.protocol = 769; // the same version: nothing lost
  CHECK_FALSE(bump(f));
  f.viewer.protocol = 775;
  CHECK(bump(f));
  f = {};
  f.viewer.entity_id = 43;
  CHECK(bump(f));
  f = {};
  f.viewer.render_reset = true;
  CHECK(bump(f));
  f = {};
  f.viewer.protocol = std::optional<std::int32_t>{}; // null: not a viewer; the renderer drops it
  CHECK_FALSE(bump(f));
  CHECK_FALSE(p.protocol);
  CHECK(p.client_epoch > epoch);

  // A dimension change, even there and back in one tick, is a reset each time (K24).
  const auto before = p.client_epoch;
  api::player_fields d;
  d.dimension = "minecraft:the_nether";
  apply_update(p, d, 2);
  d.dimension = "minecraft:overworld";
  apply_update(p, d, 2);
  CHECK(p.client_epoch == before + 2);
  // A respawn too.
  api::player_event respawn;
  respawn.kind = api::player_event_kind::respawn;
  const auto r = p.client_epoch;
  apply_event(p, respawn, 3, "");
  CHECK(p.client_epoch == r + 1);
}
