// Queries (molang.md §5): the catalog, every scalar from a player view, "no player", the query
// functions and their argument rules.
#include "engine/molang/queries.hpp"

#include "tests/molang/support.hpp"

#include <cmath>
#include <set>
#include <string>

using namespace molang_test;

TEST_CASE("catalog: 56 scalars and 11 functions under 65 sorted names") {
  const auto& c = query_catalog();
  CHECK(c.size() == 65);
  int scalars = 0, functions = 0;
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < c.size(); ++i) {
    names.insert(c[i].name);
    scalars += c[i].scalar ? 1 : 0;
    functions += c[i].function ? 1 : 0;
    CHECK(find_query(c[i].name) == static_cast<int>(i));
    if (i > 0) {
      CHECK(c[i - 1].name < c[i].name);
    }
  }
  CHECK(scalars == 56);
  CHECK(functions == 11);
  CHECK(names.size() == 65);
  const auto both = [&](std::string_view n) {
    const auto& e = c[static_cast<std::size_t>(*find_query(n))];
    return e.scalar.has_value() && e.function.has_value();
  };
  CHECK(both("is_item_equipped"));
  CHECK(both("item_is_charged"));
  CHECK_FALSE(find_query("enabled").has_value());
}

namespace {
player_view sample_player() {
  player_view p;
  p.position = {10.5, 64, -3.25};
  p.velocity = {0.3, -0.4, 0.1};
  p.yaw = 370.5f;
  p.pitch = -12.5f;
  p.body_yaw = -190.25f;
  p.yaw_prev = 10.0f;
  p.on_ground = false;
  p.eye_in_water = true;
  p.sneaking = true;
  p.swimming = true;
  p.crawling = true;
  p.gliding = true;
  p.sleeping = true;
  p.sprinting = true;
  p.using_item = true;
  p.on_fire = true;
  p.in_water = true;
  p.alive = true;
  p.invisible = false;
  p.hidden_by_emote = true;
  p.riding = true;
  p.spectator = true;
  p.health = 13.5f;
  p.max_health = 24;
  p.hurt_time = 7;
  p.death_time = 3;
  p.invulnerable_time = 9;
  p.xp_level = 30;
  p.fire_ticks = 45;
  p.use_duration = 32;
  p.use_remaining = 12;
  p.use_eat = true;
  p.blocking = true;
  p.jumping = true;
  p.in_lava = true;
  p.in_water_or_rain = true;
  p.levitating = true;
  p.walk_position = 2.5f;
  p.distance_moved = 7.25f;
  p.sleep_yaw = 90;
  p.right_hand = {"minecraft:crossbow", true};
  return p;
}

double scalar(harness& h, std::string_view name) {
  return h.eval("q." + std::string(name));
}
} // namespace

TEST_CASE("every molang.md §5.2 scalar from a player") {
  harness h;
  h.player = sample_player();
  const float w_yaw = std::fmod(370.5f, 360.0f);             // 10.5
  const float w_body = std::fmod(-190.25f, 360.0f) + 360.0f; // 169.75
  CHECK(scalar(h, "target_x_rotation") == -12.5);
  CHECK(scalar(h, "body_x_rotation") == -12.5);
  CHECK(scalar(h, "head_x_rotation") == -12.5);
  CHECK(scalar(h, "eye_target_x_rotation") == -12.5);
  CHECK(scalar(h, "body_y_rotation") == w_body);
  CHECK(scalar(h, "head_y_rotation") == w_yaw);
  CHECK(scalar(h, "eye_target_y_rotation") == w_yaw);
  CHECK(scalar(h, "target_y_rotation") == static_cast<double>(w_yaw) - w_body); // -159.25
  CHECK(scalar(h, "yaw_speed") == static_cast<double>(std::fmod(370.5f - 10.0f, 360.0f)));
  CHECK(scalar(h, "ground_speed") == std::sqrt(0.3 * 0.3 + 0.1 * 0.1) * 20);
  CHECK(scalar(h, "vertical_speed") == -0.4 * 20);
  CHECK(scalar(h, "is_moving") == 1);
  CHECK(scalar(h, "modified_distance_moved") == 2.5);
  CHECK(scalar(h, "walk_distance") == 7.25);
  for (const char* flag :
       {"is_sneaking",      "is_sprinting",     "is_swimming",         "is_gliding",
        "is_sleeping",      "is_using_item",    "is_on_fire",          "is_in_water",
        "is_alive",         "is_crawling",      "is_riding",           "is_spectator",
        "head_is_in_water", "is_in_lava",       "is_in_water_or_rain", "blocking",
        "is_jumping",       "is_levitating",    "is_invisible",        "is_emoting",
        "is_eating",        "is_item_equipped", "item_is_charged"}) {
    CAPTURE(flag);
    CHECK(scalar(h, flag) == 1);
  }
  CHECK(scalar(h, "is_on_ground") == 0);
  CHECK(scalar(h, "sleep_rotation") == 90);
  CHECK(scalar(h, "health") == 13.5);
  CHECK(scalar(h, "max_health") == 24);
  CHECK(scalar(h, "hurt_time") == 7);
  CHECK(scalar(h, "death_ticks") == 3);
  CHECK(scalar(h, "invulnerable_ticks") == 9);
  CHECK(scalar(h, "player_level") == 30);
  CHECK(scalar(h, "on_fire_time") == 45 / 20.0);
  CHECK(scalar(h, "item_max_use_duration") == 32 / 20.0);
  CHECK(scalar(h, "item_remaining_use_duration") == 12 / 20.0);
  CHECK(scalar(h, "item_in_use_duration") == 20 / 20.0);
}

TEST_CASE("scalar details: wraps, defaults, clamps") {
  harness h;
  CHECK(scalar(h, "health") == 20); // join defaults
  CHECK(scalar(h, "is_alive") == 1);
  CHECK(scalar(h, "is_on_ground") == 1);
  CHECK(scalar(h, "is_moving") == 0);
  CHECK(scalar(h, "is_emoting") == 1);
  CHECK(scalar(h, "sleep_rotation") == 0);
  h.player.sleep_yaw = 180;
  CHECK(scalar(h, "sleep_rotation") == 0); // not sleeping
  h.player.yaw = 180;
  CHECK(scalar(h, "head_y_rotation") == -180);
  h.player.yaw = -180;
  CHECK(scalar(h, "head_y_rotation") == -180);
  h.player.yaw = -540.25f;
  CHECK(scalar(h, "head_y_rotation") == 179.75);
  h.player.yaw = 170;
  h.player.body_yaw = -170;
  CHECK(scalar(h, "target_y_rotation") == -20);
  h.player.yaw = 5;
  h.player.yaw_prev = 355;
  CHECK(scalar(h, "yaw_speed") == 10);
  h.player.velocity = {1e-6, 0, 0};
  CHECK(scalar(h, "is_moving") == 0); // 1e-12 <= 1e-10
  h.player.velocity = {1e-5, 1e-5, 0};
  CHECK(scalar(h, "is_moving") == 1);
  h.player.fire_ticks = -20;
  CHECK(scalar(h, "on_fire_time") == 0);
  // Item use: M = 0 when not using; R = clamp(remaining, 0, M).
  h.player.use_duration = 40;
  h.player.use_remaining = 50;
  CHECK(scalar(h, "item_max_use_duration") == 0);
  h.player.using_item = true;
  CHECK(scalar(h, "item_max_use_duration") == 2);
  CHECK(scalar(h, "item_remaining_use_duration") == 2);
  CHECK(scalar(h, "item_in_use_duration") == 0);
  h.player.use_remaining = -5;
  CHECK(scalar(h, "item_remaining_use_duration") == 0);
  CHECK(scalar(h, "item_in_use_duration") == 2);
  CHECK(scalar(h, "is_eating") == 0);
  h.player.invisible = true;
  CHECK(scalar(h, "is_invisible") == 1);
  // Main hand follows the main arm.
  h.player.left_hand = {"minecraft:stick", false};
  CHECK(scalar(h, "is_item_equipped") == 0);
  h.player.main_arm = emote::core::physical_arm::left;
  CHECK(scalar(h, "is_item_equipped") == 1);
}

TEST_CASE("frame queries") {
  harness h;
  h.frame = {1.5, 2.5, 30, 4, 0.05, 3, 0.25};
  CHECK(scalar(h, "anim_time") == 1.5);
  CHECK(scalar(h, "life_time") == 2.5);
  CHECK(scalar(h, "anim_time_ticks") == 30);
  CHECK(scalar(h, "anim_length") == 4);
  CHECK(scalar(h, "delta_time") == 0.05);
  CHECK(scalar(h, "loop_count") == 3);
  CHECK(scalar(h, "key_frame_lerp_time") == 0.25);
}

TEST_CASE("no player: every molang.md §5.2 scalar and player function is 0, frame queries remain") {
  harness h;
  h.with_player = false;
  h.frame.anim_time = 2;
  CHECK(scalar(h, "anim_time") == 2);
  for (const auto& e : query_catalog()) {
    if (e.scalar &&
        static_cast<int>(*e.scalar) >= static_cast<int>(scalar_query::target_x_rotation)) {
      CAPTURE(e.name);
      CHECK(same_bits(scalar(h, e.name), 0.0));
    }
  }
  CHECK(h.eval("q.position(0)") == 0);
  CHECK(h.eval("q.is_item_equipped('main_hand')") == 0);
  CHECK(h.eval("q.is_item_name_any('main_hand', '')") == 0);
  CHECK(h.eval("q.scoreboard('x')") == 0);
  CHECK(h.eval("q.any(1, 1)") == 1); // any/all/approx_eq/in_range always work
  CHECK(h.eval("q.in_range(1, 0, 2)") == 1);
}

TEST_CASE("slot(s): numbers, names, unknown values") {
  harness h;
  h.player.right_hand = {"minecraft:bow", false};
  h.player.left_hand = {"minecraft:shield", false};
  h.player.chest = {"minecraft:elytra", false};
  h.player.legs = {"minecraft:iron_leggings", false};
  h.player.feet = {"minecraft:iron_boots", true};
  CHECK(h.eval("q.is_item_name_any(1, 'minecraft:shield')") == 1);
  CHECK(h.eval("q.is_item_name_any(0, 'minecraft:bow')") == 1);
  CHECK(h.eval("q.is_item_name_any(2, 'minecraft:bow')") == 1);
  CHECK(h.eval("q.is_item_name_any('slot.weapon', 'minecraft:bow')") == 1);
  CHECK(h.eval("q.is_item_name_any('slot.weapon.mainhand', 'minecraft:bow')") == 1);
  CHECK(h.eval("q.is_item_name_any('slot.weapon.offhand', 'minecraft:shield')") == 1);
  CHECK(h.eval("q.is_item_name_any('slot.armor.chest', 'minecraft:elytra')") == 1);
  CHECK(h.eval("q.is_item_name_any('slot.armor.legs', 'minecraft:iron_leggings')") == 1);
  CHECK(h.eval("q.is_item_name_any('slot.armor.feet', 'minecraft:iron_boots')") == 1);
  CHECK(h.eval("q.item_is_charged('slot.armor.feet')") == 1);
  CHECK(h.eval("q.is_item_equipped('MAIN_HAND')") == 0); // string contents are exact
  CHECK(h.eval("q.is_item_equipped('nowhere')") == 0);
  CHECK(h.eval("q.is_item_name_any('nowhere', '')") == 1); // an empty slot matches ''
  CHECK(h.eval("q.is_item_name_any('slot.armor.head', '')") == 1);
  CHECK(h.eval("q.is_item_equipped({})") == 0); // a block is not a slot
  CHECK(h.eval("q.is_item_equipped()") == 1);   // absent -> main hand
  CHECK(h.eval("q.item_is_charged()") == 0);
}

TEST_CASE("is_item_name_any: names from arg 2, or arg 3 after a number; strings only") {
  harness h;
  h.player.right_hand = {"minecraft:bow", false};
  CHECK(h.eval("q.is_item_name_any('main_hand', 'minecraft:stick', 'minecraft:bow')") == 1);
  CHECK(h.eval("q.is_item_name_any('main_hand', 0, 'minecraft:bow')") == 1);
  CHECK(h.eval("q.is_item_name_any('main_hand', 'minecraft:bow', 0)") == 1);
  CHECK(h.eval("q.is_item_name_any('main_hand', 5, 'minecraft:stick')") == 0);
  CHECK(h.eval("q.is_item_name_any('main_hand', 'bow')") == 0); // no namespace added here
}

TEST_CASE("scoreboard: exact objective names; non-strings look up \"\"") {
  harness h;
  h.player.scores = {{"", 99}, {"Combo", -3}, {"combo", 12}}; // sorted, as views keep them
  CHECK(h.eval("q.scoreboard('combo')") == 12);
  CHECK(h.eval("q.scoreboard('Combo')") == -3);
  CHECK(h.eval("q.scoreboard(5)") == 99);
  CHECK(h.eval("q.scoreboard('nope')") == 0);
}

TEST_CASE("any/all/approx_eq/in_range details") {
  CHECK(eval("q.all(2, 2, 2.0)") == 1);
  CHECK(eval("q.any(0, -0)") == 1);
  CHECK(eval("q.any('a', 'b', 'a')") == 1);
  CHECK(eval("q.all('a', 'a', 0)") == 0);
  CHECK(eval("q.any(v.unset, 0)") == 1);
  CHECK(eval("q.any({}, 0)") == 1); // a block compares as the number 0
  CHECK(eval("q.any(q, 0)") == 1);  // so does an object
  CHECK(eval("q.approx_eq(1, 1.0000000000000002)") == 1);
  CHECK(eval("q.approx_eq(1, 1.0000000000000004)") == 0);
  CHECK(eval("q.approx_eq(0, 0, -0)") == 1);
  CHECK(eval("q.approx_eq(1" + std::string(308, '0') + " * 10, 0)") == 1); // overflow -> 0
  CHECK(eval("q.in_range(1, 1, 1)") == 1);
  CHECK(eval("q.in_range(1, 2, 0)") == 0);
  // Called with fewer arguments through an alias or the branch rule: missing args are 0.
  CHECK(eval("t.q = q; t.q.in_range()") == 1); // 0 <= 0 <= 0
  CHECK(eval("t.q = q; t.q.all(5)") == 1);     // no candidates
  CHECK(eval("t.q = q; t.q.any(5)") == 0);
  CHECK(eval("1 ? q.is_item_equipped : 0") == 0); // branch rule calls it: nothing held
}

TEST_CASE("query functions evaluate every argument once, left to right, kinds kept") {
  harness h;
  CHECK(h.eval("q.any(v.a = 1, v.b = 2, v.c = 'x'); v.a + v.b * 10") == 21);
  CHECK(h.eval("v.n = 0; q.in_range(v.n = v.n + 1, v.n = v.n * 10, v.n = v.n + 5); v.n") == 15);
}

TEST_CASE("movement_direction and position with odd indexes") {
  harness h;
  h.player.position = {1, 2, 3};
  h.player.velocity = {0, 3, 4};
  CHECK(h.eval("q.position(2.9)") == 3);  // i32 truncates
  CHECK(h.eval("q.position(-0.5)") == 1); // -0.5 truncates to 0
  CHECK(h.eval("q.position(-1)") == 0);
  CHECK(h.eval("q.position('1')") == 1); // a string is the number 0
  CHECK(h.eval("q.movement_direction(1)") == 0.6);
  h.player.velocity = {9.9e-6, 0, 0};
  CHECK(h.eval("q.movement_direction(0)") == 0); // 9.9e-6 < f32(1e-5) = 9.99999974e-6
  h.player.velocity = {1e-5, 0, 0};
  CHECK(h.eval("q.movement_direction(0)") == 1);
}
