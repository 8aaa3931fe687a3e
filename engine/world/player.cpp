#include "engine/world/player.hpp"

#include <utility>

namespace emote::world {
namespace {

/// dst := *src when given; returns whether the value changed.
template <class T>
bool assign(T& dst, const std::optional<T>& src) {
  if (!src || dst == *src) {
    return false;
  }
  dst = *src;
  return true;
}

bool assign_fields(player_state& p, const api::player_fields& f) {
  bool c = false;
  c |= assign(p.dimension, f.dimension);
  c |= assign(p.pos, f.position);
  c |= assign(p.yaw, f.yaw);
  c |= assign(p.pitch, f.pitch);
  c |= assign(p.body_yaw, f.body_yaw);
  c |= assign(p.alive, f.alive);
  c |= assign(p.game_mode, f.game_mode);
  c |= assign(p.vehicle, f.vehicle);
  c |= assign(p.on_ground, f.on_ground);
  if (f.eye_in_water) {
    // Sending the field, even with the value the world gave, ends the derivation (§2.1).
    p.eye_in_water_reported = true;
    c |= assign(p.eye_in_water, f.eye_in_water);
  }
  c |= assign(p.sneaking, f.sneaking);
  c |= assign(p.swimming, f.swimming);
  c |= assign(p.crawling, f.crawling);
  c |= assign(p.gliding, f.gliding);
  c |= assign(p.sleeping, f.sleeping);
  c |= assign(p.sprinting, f.sprinting);
  c |= assign(p.using_item, f.using_item);
  c |= assign(p.on_fire, f.on_fire);
  c |= assign(p.in_water, f.in_water);
  c |= assign(p.invisible, f.invisible);
  c |= assign(p.velocity, f.velocity);
  c |= assign(p.main_arm, f.main_arm);
  c |= assign(p.right_hand, f.right_hand);
  c |= assign(p.left_hand, f.left_hand);
  c |= assign(p.head, f.head);
  c |= assign(p.chest, f.chest);
  c |= assign(p.legs, f.legs);
  c |= assign(p.feet, f.feet);
  c |= assign(p.permissions, f.permissions);
  c |= assign(p.health, f.health);
  c |= assign(p.max_health, f.max_health);
  c |= assign(p.hurt_time, f.hurt_time);
  c |= assign(p.death_time, f.death_time);
  c |= assign(p.invulnerable_time, f.invulnerable_time);
  c |= assign(p.xp_level, f.xp_level);
  c |= assign(p.fire_ticks, f.fire_ticks);
  c |= assign(p.use_duration, f.use_duration);
  c |= assign(p.use_remaining, f.use_remaining);
  c |= assign(p.use_eat, f.use_eat);
  c |= assign(p.blocking, f.blocking);
  c |= assign(p.jumping, f.jumping);
  c |= assign(p.in_lava, f.in_lava);
  c |= assign(p.in_water_or_rain, f.in_water_or_rain);
  c |= assign(p.levitating, f.levitating);
  c |= assign(p.walk_position, f.walk_position);
  c |= assign(p.distance_moved, f.distance_moved);
  c |= assign(p.sleep_yaw, f.sleep_yaw);
  c |= assign(p.scores, f.scores);
  return c;
}

player_event_record record(event_kind k) {
  player_event_record r;
  r.kind = k;
  return r;
}

/// Bookkeeping after any change: a respawn starts a new incarnation.
void account(player_state& p, const std::vector<player_event_record>& events) {
  for (const auto& e : events) {
    if (e.kind == event_kind::respawn) {
      ++p.incarnation;
    }
  }
}

} // namespace

player_state make_player(std::string id, const api::player_fields& fields, tick_number now,
                         bool keep_on_disconnect) {
  player_state p;
  p.id = std::move(id);
  assign_fields(p, fields);
  // body_yaw defaults to the join yaw when the join does not carry its own.
  if (!fields.body_yaw) {
    p.body_yaw = p.yaw;
  }
  p.yaw_prev = p.yaw;
  p.incarnation = 1;
  p.last_action_tick = now;
  p.keep_on_disconnect = keep_on_disconnect;
  return p;
}

std::vector<player_event_record> derive_events(const player_state& before,
                                               const player_state& after) {
  std::vector<player_event_record> out;
  if (after.vehicle && after.vehicle != before.vehicle) {
    out.push_back(record(event_kind::start_riding));
  }
  if (after.game_mode != before.game_mode) {
    out.push_back(record(event_kind::game_mode_change));
  }
  // The server's own jump detection: leaving the ground upwards, on foot, in one dimension.
  if (before.on_ground && !after.on_ground && after.pos.y - before.pos.y > 0 && !before.vehicle &&
      before.dimension == after.dimension) {
    out.push_back(record(event_kind::jump));
  }
  if (before.alive && !after.alive) {
    out.push_back(record(event_kind::death));
  }
  if (!before.alive && after.alive) {
    out.push_back(record(event_kind::respawn));
  }
  if (before.dimension != after.dimension) {
    out.push_back(record(event_kind::dimension_change));
  }
  return out;
}

change apply_update(player_state& p, const api::player_fields& fields, tick_number now) {
  const player_state before = p;
  change c;
  c.changed = assign_fields(p, fields);
  if (c.changed) {
    p.last_action_tick = now;
    c.events = derive_events(before, p);
    account(p, c.events);
  }
  return c;
}

change apply_event(player_state& p, const api::player_event& e, tick_number now,
                   const std::string& anonymous_vehicle) {
  const player_state before = p;
  change c;
  switch (e.kind) {
  case api::player_event_kind::jump:
    c.events.push_back(record(event_kind::jump));
    break;
  case api::player_event_kind::damage: {
    player_event_record r = record(event_kind::damage);
    r.amount = e.amount;
    r.lethal = e.lethal;
    c.events.push_back(r);
    if (e.lethal) {
      p.alive = false;
    }
    break;
  }
  case api::player_event_kind::attack: {
    player_event_record r = record(event_kind::attack);
    r.target = e.target;
    c.events.push_back(r);
    break;
  }
  case api::player_event_kind::mount:
    p.vehicle = e.vehicle ? *e.vehicle : anonymous_vehicle;
    break;
  case api::player_event_kind::game_mode:
    if (e.mode) {
      p.game_mode = *e.mode;
    }
    break;
  case api::player_event_kind::death:
    p.alive = false;
    break;
  case api::player_event_kind::respawn:
    p.alive = true;
    break;
  }
  c.changed =
      !(p.vehicle == before.vehicle && p.game_mode == before.game_mode && p.alive == before.alive);
  auto derived = derive_events(before, p);
  // An explicit respawn is a new incarnation even for a living player (for example leaving the
  // End), so it is reported when the alive flag alone would not show it.
  if (e.kind == api::player_event_kind::respawn && before.alive) {
    derived.push_back(record(event_kind::respawn));
    c.changed = true;
  }
  account(p, derived);
  c.events.insert(c.events.end(), derived.begin(), derived.end());
  p.last_action_tick = now;
  return c;
}

} // namespace emote::world
