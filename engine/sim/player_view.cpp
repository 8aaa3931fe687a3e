#include "engine/sim/player_view.hpp"

namespace emote::sim {

void fill_item(const api::item_stack& s, molang::item_view& out) {
  out.name.assign(s.id);
  out.charged = s.charged;
}

void fill_view(const world::player_state& p, molang::player_view& out) {
  out.position = p.pos;
  out.velocity = p.velocity;
  out.yaw = p.yaw;
  out.pitch = p.pitch;
  out.body_yaw = p.body_yaw;
  out.yaw_prev = p.yaw_prev;

  out.on_ground = p.on_ground;
  out.eye_in_water = p.eye_in_water;
  out.sneaking = p.sneaking;
  out.swimming = p.swimming;
  out.crawling = p.crawling;
  out.gliding = p.gliding;
  out.sleeping = p.sleeping;
  out.sprinting = p.sprinting;
  out.using_item = p.using_item;
  out.on_fire = p.on_fire;
  out.in_water = p.in_water;
  out.alive = p.alive;
  out.invisible = p.invisible;
  out.hidden_by_emote = false;
  out.riding = p.vehicle.has_value();
  out.spectator = p.game_mode == api::game_mode::spectator;

  out.main_arm = p.main_arm;
  fill_item(p.right_hand, out.right_hand);
  fill_item(p.left_hand, out.left_hand);
  fill_item(p.head, out.head);
  fill_item(p.chest, out.chest);
  fill_item(p.legs, out.legs);
  fill_item(p.feet, out.feet);

  out.health = p.health;
  out.max_health = p.max_health;
  out.hurt_time = p.hurt_time;
  out.death_time = p.death_time;
  out.invulnerable_time = p.invulnerable_time;
  out.xp_level = p.xp_level;
  out.fire_ticks = p.fire_ticks;
  out.use_duration = p.use_duration;
  out.use_remaining = p.use_remaining;
  out.use_eat = p.use_eat;
  out.blocking = p.blocking;
  out.jumping = p.jumping;
  out.in_lava = p.in_lava;
  out.in_water_or_rain = p.in_water_or_rain;
  out.levitating = p.levitating;
  out.walk_position = p.walk_position;
  out.distance_moved = p.distance_moved;
  out.sleep_yaw = p.sleep_yaw;

  out.scores.resize(p.scores.size());
  std::size_t i = 0;
  for (const auto& [objective, score] : p.scores) {
    out.scores[i].first.assign(objective);
    out.scores[i].second = score;
    ++i;
  }
}

} // namespace emote::sim
