#include "engine/rules/display_limit.hpp"
#include "engine/rules/partner.hpp"
#include "engine/rules/play_errors.hpp"
#include "engine/rules/visibility.hpp"

#include <doctest/doctest.h>

#include <vector>

using namespace emote;
using namespace emote::rules;

TEST_CASE("R24: the display-limit projection") {
  CHECK(display_limit_allows(512, 512));
  CHECK_FALSE(display_limit_allows(512, 513));
  CHECK(display_limit_allows(0, 10000)); // 0 = unlimited
  CHECK(projected_displays(480, 80, 100) == 500);
  CHECK(display_limit_allows(512, projected_displays(480, 80, 100)));
  CHECK_FALSE(display_limit_allows(512, projected_displays(480, 80, 113)));
  CHECK(display_limit_allows(512, projected_displays(480, 80, 112)));
  CHECK(default_display_limit == 512);
}

TEST_CASE("play errors carry the spec's messages") {
  CHECK(play_error(api::error_code::unknown_player).message == "Player is not online.");
  CHECK(play_error(api::error_code::unknown_emote).message == "That emote does not exist.");
  CHECK(play_error(api::error_code::display_limit).message ==
        "Too many emotes are active right now. Try again shortly.");
  CHECK(play_error(api::error_code::internal).message ==
        "Something went wrong while starting the emote.");
  CHECK(play_error(api::error_code::no_permission).code == api::error_code::no_permission);
}

TEST_CASE("R23 (capture part): the replacement chain keeps the first stored flag") {
  // invisible false: A hidden stores false; B replaces A and reuses A's stored false, even
  // though the player's current flag is forced invisible by A.
  const bool a = capture_was_invisible(std::nullopt, false);
  CHECK_FALSE(a);
  const bool b = capture_was_invisible(a, true);
  CHECK_FALSE(b);
  // invisible true: every restore is true.
  CHECK(capture_was_invisible(std::nullopt, true));
  CHECK(capture_was_invisible(true, true));
  const api::ev_player_visibility hide = hide_record("alice");
  CHECK(hide.hidden);
  CHECK(hide.blank_equipment);
  const api::ev_player_visibility restore = restore_record("alice", false);
  CHECK_FALSE(restore.hidden);
  CHECK_FALSE(restore.blank_equipment);
}

namespace {
world::player_state standing(const char* id, double x, double y, double z, float yaw) {
  world::player_state p;
  p.id = id;
  p.pos = {x, y, z};
  p.yaw = yaw;
  return p;
}
} // namespace

TEST_CASE("pairing: alive, distinct, same dimension, geometry and line of sight") {
  world::voxel_world w;
  const world::player_state i = standing("i", 0.5, 64, 0.5, 0);
  world::player_state p = standing("p", 0.5, 64, 1.7, 180);
  CHECK(can_pair(&i, &p, w));
  CHECK_FALSE(can_pair(nullptr, &p, w));
  CHECK_FALSE(can_pair(&i, nullptr, w));
  CHECK_FALSE(can_pair(&i, &i, w));
  p.alive = false;
  CHECK_FALSE(can_pair(&i, &p, w)); // R55: the partner must be alive
  p.alive = true;
  world::player_state dead_i = i;
  dead_i.alive = false;
  CHECK_FALSE(can_pair(&dead_i, &p, w));
  p.dimension = "minecraft:the_nether";
  CHECK_FALSE(can_pair(&i, &p, w));
  p.dimension = i.dimension;
  p.yaw = 90;
  CHECK_FALSE(can_pair(&i, &p, w)); // facing away
  p.yaw = 180;
  REQUIRE(w.set(i.dimension, {0, 65, 1}, world::block_kind::water));
  CHECK(can_pair(&i, &p, w)); // water does not block sight
  REQUIRE(w.set(i.dimension, {0, 65, 1}, world::block_kind::solid));
  CHECK_FALSE(can_pair(&i, &p, w));
}

TEST_CASE("pair_failure names the first condition that fails, in players.md §7.3 order") {
  using api::match_failure;
  world::voxel_world w;
  const world::player_state i = standing("i", 0.5, 64, 0.5, 0);
  world::player_state p = standing("p", 0.5, 64, 1.7, 180);
  CHECK_FALSE(pair_failure(&i, &p, w).has_value());
  CHECK(pair_failure(nullptr, &p, w) == match_failure::initiator_offline);
  CHECK(pair_failure(&i, nullptr, w) == match_failure::partner_dead);
  CHECK(pair_failure(&i, &i, w) == match_failure::same_player);
  world::player_state dead_i = i;
  dead_i.alive = false;
  CHECK(pair_failure(&dead_i, &p, w) == match_failure::initiator_dead);
  p.alive = false;
  CHECK(pair_failure(&dead_i, &p, w) == match_failure::partner_dead); // P is checked first
  p.alive = true;
  p.dimension = "minecraft:the_nether";
  p.pos.y = 80; // also too high: the dimension is named first
  CHECK(pair_failure(&i, &p, w) == match_failure::dimension);
  p.dimension = i.dimension;
  CHECK(pair_failure(&i, &p, w) == match_failure::height);
  p.pos.y = 64;
  p.pos.z = 2.6;
  CHECK(pair_failure(&i, &p, w) == match_failure::too_far);
  p.pos.z = 0.5;
  CHECK(pair_failure(&i, &p, w) == match_failure::same_spot);
  p.pos.z = 1.7;
  p.yaw = 90;
  CHECK(pair_failure(&i, &p, w) == match_failure::partner_facing);
  world::player_state away = i;
  away.yaw = 180;
  CHECK(pair_failure(&away, &p, w) == match_failure::initiator_facing); // both fail: I first
  p.yaw = 180;
  REQUIRE(w.set(i.dimension, {0, 65, 1}, world::block_kind::solid));
  CHECK(pair_failure(&i, &p, w) == match_failure::line_of_sight);
  CHECK(api::name(match_failure::line_of_sight) == "line_of_sight");
  CHECK(api::parse_match_failure("partner_facing") == match_failure::partner_facing);
}

TEST_CASE("R57 (choice part): nearest offer, ties to the earliest-created") {
  CHECK(nearest_offer(std::vector<double>{1.0, 0.81}) == 1u);
  CHECK(nearest_offer(std::vector<double>{0.81, 0.81}) == 0u);
  CHECK(nearest_offer(std::vector<double>{2.0, 0.5, 0.5, 3.0}) == 1u);
  CHECK_FALSE(nearest_offer(std::vector<double>{}));
  const world::player_state a = standing("a", 0, 64, 0, 0);
  const world::player_state b = standing("b", 0.6, 70, 0.8, 0);
  CHECK(pairing_distance_sq(a, b) == 0.6 * 0.6 + 0.8 * 0.8); // Y ignored
}
