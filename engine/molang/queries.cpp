#include "engine/molang/queries.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace emote::molang {

namespace {

constexpr std::array<std::string_view, scalar_query_count> scalar_names = {
    "anim_time",
    "life_time",
    "anim_time_ticks",
    "anim_length",
    "delta_time",
    "loop_count",
    "key_frame_lerp_time",
    "target_x_rotation",
    "body_x_rotation",
    "head_x_rotation",
    "eye_target_x_rotation",
    "body_y_rotation",
    "head_y_rotation",
    "eye_target_y_rotation",
    "target_y_rotation",
    "yaw_speed",
    "ground_speed",
    "vertical_speed",
    "is_moving",
    "modified_distance_moved",
    "walk_distance",
    "is_on_ground",
    "is_sneaking",
    "is_sprinting",
    "is_swimming",
    "is_gliding",
    "is_sleeping",
    "is_using_item",
    "is_on_fire",
    "is_in_water",
    "is_alive",
    "is_crawling",
    "is_riding",
    "is_spectator",
    "head_is_in_water",
    "is_in_lava",
    "is_in_water_or_rain",
    "blocking",
    "is_jumping",
    "is_levitating",
    "is_invisible",
    "is_emoting",
    "sleep_rotation",
    "health",
    "max_health",
    "hurt_time",
    "death_ticks",
    "invulnerable_ticks",
    "player_level",
    "on_fire_time",
    "item_max_use_duration",
    "item_remaining_use_duration",
    "item_in_use_duration",
    "is_eating",
    "is_item_equipped",
    "item_is_charged",
};

struct function_info {
  std::string_view name;
  query_arity arity;
};

constexpr std::array<function_info, query_function_count> functions = {{
    {"any", {2, -1, "at least 2"}},
    {"all", {2, -1, "at least 2"}},
    {"approx_eq", {2, -1, "at least 2"}},
    {"in_range", {3, 3, "3"}},
    {"position", {1, 1, "1"}},
    {"position_delta", {1, 1, "1"}},
    {"movement_direction", {1, 1, "1"}},
    {"is_item_equipped", {0, 1, "0..1"}},
    {"item_is_charged", {0, 1, "0..1"}},
    {"is_item_name_any", {2, -1, "at least 2"}},
    {"scoreboard", {1, 1, "1"}},
}};

std::vector<query_entry> build_catalog() {
  std::vector<query_entry> out;
  for (int i = 0; i < scalar_query_count; ++i) {
    out.push_back({scalar_names[i], static_cast<scalar_query>(i), std::nullopt});
  }
  for (int i = 0; i < query_function_count; ++i) {
    const auto f = static_cast<query_function>(i);
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const query_entry& e) { return e.name == functions[i].name; });
    if (it != out.end()) {
      it->function = f;
    } else {
      out.push_back({functions[i].name, std::nullopt, f});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const query_entry& a, const query_entry& b) { return a.name < b.name; });
  return out;
}

/// Minecraft's wrapDegrees on floats: the remainder in binary32, then into [-180, 180).
float wrap32(float a) noexcept {
  float g = std::fmod(a, 360.0f);
  if (g >= 180.0f) {
    g = g - 360.0f;
  }
  if (g < -180.0f) {
    g = g + 360.0f;
  }
  return g;
}

double wrap64(double a) noexcept {
  double g = std::fmod(a, 360.0);
  if (g >= 180.0) {
    g = g - 360.0;
  }
  if (g < -180.0) {
    g = g + 360.0;
  }
  return g;
}

double flag(bool b) noexcept {
  return b ? 1.0 : 0.0;
}

} // namespace

const std::vector<query_entry>& query_catalog() {
  static const std::vector<query_entry> catalog = build_catalog();
  return catalog;
}

std::optional<int> find_query(std::string_view lower_name) noexcept {
  const auto& c = query_catalog();
  const auto it =
      std::lower_bound(c.begin(), c.end(), lower_name,
                       [](const query_entry& e, std::string_view n) { return e.name < n; });
  if (it == c.end() || it->name != lower_name) {
    return std::nullopt;
  }
  return static_cast<int>(it - c.begin());
}

query_arity arity(query_function f) noexcept {
  return functions[static_cast<int>(f)].arity;
}
std::string_view name(scalar_query q) noexcept {
  return scalar_names[static_cast<int>(q)];
}
std::string_view name(query_function f) noexcept {
  return functions[static_cast<int>(f)].name;
}

slot slot_from_string(std::string_view s) noexcept {
  if (s == "main_hand" || s == "slot.weapon" || s == "slot.weapon.mainhand") {
    return slot::main_hand;
  }
  if (s == "off_hand" || s == "slot.weapon.offhand") {
    return slot::off_hand;
  }
  if (s == "slot.armor.head") {
    return slot::head;
  }
  if (s == "slot.armor.chest") {
    return slot::chest;
  }
  if (s == "slot.armor.legs") {
    return slot::legs;
  }
  if (s == "slot.armor.feet") {
    return slot::feet;
  }
  return slot::none;
}

const item_view& item_in(const player_view& player, slot s) noexcept {
  static const item_view no_item;
  switch (s) {
  case slot::main_hand:
    return player.main_hand();
  case slot::off_hand:
    return player.off_hand();
  case slot::head:
    return player.head;
  case slot::chest:
    return player.chest;
  case slot::legs:
    return player.legs;
  case slot::feet:
    return player.feet;
  case slot::none:
    break;
  }
  return no_item;
}

double scalar_value(scalar_query q, const frame_queries& frame,
                    const player_view* player) noexcept {
  switch (q) {
  case scalar_query::anim_time:
    return frame.anim_time;
  case scalar_query::life_time:
    return frame.life_time;
  case scalar_query::anim_time_ticks:
    return frame.anim_time_ticks;
  case scalar_query::anim_length:
    return frame.anim_length;
  case scalar_query::delta_time:
    return frame.delta_time;
  case scalar_query::loop_count:
    return frame.loop_count;
  case scalar_query::key_frame_lerp_time:
    return frame.key_frame_lerp_time;
  default:
    break;
  }
  if (player == nullptr) {
    return 0.0; // a playback without a player (stress instance): every molang.md §5.2 scalar is 0
  }
  const player_view& p = *player;
  const auto& m = p.velocity;
  switch (q) {
  case scalar_query::target_x_rotation:
  case scalar_query::body_x_rotation:
  case scalar_query::head_x_rotation:
  case scalar_query::eye_target_x_rotation:
    return p.pitch;
  case scalar_query::body_y_rotation:
    return wrap32(p.body_yaw);
  case scalar_query::head_y_rotation:
  case scalar_query::eye_target_y_rotation:
    return wrap32(p.yaw);
  case scalar_query::target_y_rotation:
    return wrap64(static_cast<double>(wrap32(p.yaw)) - static_cast<double>(wrap32(p.body_yaw)));
  case scalar_query::yaw_speed:
    return wrap32(p.yaw - p.yaw_prev);
  case scalar_query::ground_speed:
    return std::sqrt(m.x * m.x + m.z * m.z) * 20;
  case scalar_query::vertical_speed:
    return m.y * 20;
  case scalar_query::is_moving:
    return flag(m.x * m.x + m.y * m.y + m.z * m.z > 1e-10);
  case scalar_query::modified_distance_moved:
    return p.walk_position;
  case scalar_query::walk_distance:
    return p.distance_moved;
  case scalar_query::is_on_ground:
    return flag(p.on_ground);
  case scalar_query::is_sneaking:
    return flag(p.sneaking);
  case scalar_query::is_sprinting:
    return flag(p.sprinting);
  case scalar_query::is_swimming:
    return flag(p.swimming);
  case scalar_query::is_gliding:
    return flag(p.gliding);
  case scalar_query::is_sleeping:
    return flag(p.sleeping);
  case scalar_query::is_using_item:
    return flag(p.using_item);
  case scalar_query::is_on_fire:
    return flag(p.on_fire);
  case scalar_query::is_in_water:
    return flag(p.in_water);
  case scalar_query::is_alive:
    return flag(p.alive);
  case scalar_query::is_crawling:
    return flag(p.crawling);
  case scalar_query::is_riding:
    return flag(p.riding);
  case scalar_query::is_spectator:
    return flag(p.spectator);
  case scalar_query::head_is_in_water:
    return flag(p.eye_in_water);
  case scalar_query::is_in_lava:
    return flag(p.in_lava);
  case scalar_query::is_in_water_or_rain:
    return flag(p.in_water_or_rain);
  case scalar_query::blocking:
    return flag(p.blocking);
  case scalar_query::is_jumping:
    return flag(p.jumping);
  case scalar_query::is_levitating:
    return flag(p.levitating);
  case scalar_query::is_invisible:
    return flag(p.invisible || p.hidden_by_emote);
  case scalar_query::is_emoting:
    return 1.0;
  case scalar_query::sleep_rotation:
    return p.sleeping ? static_cast<double>(p.sleep_yaw) : 0.0;
  case scalar_query::health:
    return p.health;
  case scalar_query::max_health:
    return p.max_health;
  case scalar_query::hurt_time:
    return p.hurt_time;
  case scalar_query::death_ticks:
    return p.death_time;
  case scalar_query::invulnerable_ticks:
    return p.invulnerable_time;
  case scalar_query::player_level:
    return p.xp_level;
  case scalar_query::on_fire_time:
    return std::max(0, p.fire_ticks) / 20.0;
  case scalar_query::item_max_use_duration:
  case scalar_query::item_remaining_use_duration:
  case scalar_query::item_in_use_duration: {
    const std::int64_t total = p.using_item ? p.use_duration : 0;
    const std::int64_t remaining =
        p.using_item ? std::max<std::int64_t>(0, std::min<std::int64_t>(total, p.use_remaining))
                     : 0;
    if (q == scalar_query::item_max_use_duration) {
      return static_cast<double>(total) / 20.0;
    }
    if (q == scalar_query::item_remaining_use_duration) {
      return static_cast<double>(remaining) / 20.0;
    }
    return static_cast<double>(total - remaining) / 20.0;
  }
  case scalar_query::is_eating:
    return flag(p.using_item && p.use_eat);
  case scalar_query::is_item_equipped:
    return flag(!p.main_hand().empty());
  case scalar_query::item_is_charged:
    return flag(p.main_hand().charged);
  default:
    break;
  }
  return 0.0;
}

} // namespace emote::molang
