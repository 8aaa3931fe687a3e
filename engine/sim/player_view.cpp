#include "engine/sim/player_view.hpp"

#include "engine/sim/session_registry.hpp"
#include "engine/world/eye.hpp"
#include "engine/world/player_registry.hpp"
#include "engine/world/voxel_world.hpp"

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

// ---------------------------------------------------------------------------------------------
// player_views

const molang::player_view* player_views::view(std::string_view player, api::session_id session,
                                              api::tick_number now) {
  const world::player_state* p = players_.find(player);
  if (p == nullptr) {
    return nullptr;
  }
  auto it = views_.find(player);
  if (it == views_.end()) {
    it = views_.emplace(std::string(player), entry{}).first;
  }
  entry& v = it->second;
  if (v.dirty) {
    fill_view(*p, v.view);
    v.dirty = false;
  } else if (mode_ == core::cache_mode::check) {
    check(*p, v.view, session);
  }
  v.view.yaw_prev = p->yaw_prev;
  v.view.eye_in_water = world::eye_in_water(*p, world_);
  v.view.hidden_by_emote = sessions_.hidden_by_emote(player, now);
  return &v.view;
}

void player_views::check(const world::player_state& p, const molang::player_view& kept,
                         api::session_id session) const {
  molang::player_view fresh;
  fill_view(p, fresh);
  // The per-use fields are set on every use anyway (view()).
  fresh.yaw_prev = kept.yaw_prev;
  fresh.eye_in_water = kept.eye_in_water;
  fresh.hidden_by_emote = kept.hidden_by_emote;
  if (!(fresh == kept)) {
    core::cache_mismatch e("player view");
    e.session = session;
    e.detail = "player " + p.id;
    throw e;
  }
}

void player_views::joined(const std::string& player) {
  views_[player].dirty = true;
}

void player_views::changed(std::string_view player) {
  const auto it = views_.find(player);
  if (it != views_.end()) {
    it->second.dirty = true;
  }
}

void player_views::left(std::string_view player) {
  if (const auto it = views_.find(player); it != views_.end()) {
    views_.erase(it);
  }
}

} // namespace emote::sim
