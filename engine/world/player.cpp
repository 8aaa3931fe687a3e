#include "engine/world/player.hpp"

#include "engine/world/player_fields.hpp"

#include <type_traits>
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
  bool changed = false;
  for_each_player_field([&](const auto& field) {
    const auto& given = f.*field.in;
    if constexpr (std::is_same_v<typename std::decay_t<decltype(field)>::value_type, bool>) {
      if (field.in == &api::player_fields::eye_in_water && given) {
        // Sending the field, even with the value the world gave, ends the derivation
        // (players.md §2.1).
        p.eye_in_water_reported = true;
      }
    }
    changed |= assign(p.*field.state, given);
  });
  return changed;
}

/// The viewer fields (render.md §2); a client reset (§4 rule 4) bumps `client_epoch`.
void assign_viewer_fields(player_state& p, const api::viewer_fields& f) {
  bool reset = f.render_reset;
  if (f.protocol) {
    // A viewer that stops being one is dropped by the renderer; a change to another version
    // is a reset.
    reset |= p.protocol && *f.protocol && *p.protocol != **f.protocol;
    p.protocol = *f.protocol;
  }
  if (f.entity_id) {
    reset |= p.entity_id != *f.entity_id;
    p.entity_id = *f.entity_id;
  }
  if (f.view_distance) {
    p.view_distance = *f.view_distance;
  }
  if (f.name) {
    p.name = *f.name;
  }
  if (f.glowing) {
    p.glowing = *f.glowing;
  }
  if (f.skin_textures) {
    p.skin_textures = *f.skin_textures;
  }
  if (reset) {
    ++p.client_epoch;
  }
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
      ++p.client_epoch; // render.md §4 rule 4
    }
  }
}

} // namespace

player_state make_player(std::string id, const api::player_fields& fields, tick_number now,
                         bool keep_on_disconnect) {
  player_state p;
  p.id = std::move(id);
  assign_fields(p, fields);
  assign_viewer_fields(p, fields.viewer);
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
  assign_viewer_fields(p, fields.viewer);
  if (p.dimension != before.dimension) {
    ++p.client_epoch; // render.md §4 rule 4
  }
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
