#include "engine/world/player_registry.hpp"

#include "engine/world/player_fields.hpp"

namespace emote::world {

core::result<player_state*, join_error> player_registry::join(const api::player_join& j,
                                                              tick_number now) {
  if (by_id_.contains(j.player)) {
    return core::failure{join_error::already_online};
  }
  const std::uint64_t order = next_order_++;
  auto [it, inserted] =
      players_.emplace(order, make_player(j.player, j.fields, now, j.keep_on_disconnect));
  by_id_.emplace(j.player, order);
  it->second.join_serial = order;
  it->second.uuid = j.uuid;
  const auto last = incarnations_.find(j.player);
  if (last != incarnations_.end()) {
    it->second.incarnation = last->second + 1;
  }
  return &it->second;
}

std::optional<change> player_registry::update(std::string_view id, const api::player_fields& fields,
                                              tick_number now) {
  player_state* p = find(id);
  if (p == nullptr) {
    return std::nullopt;
  }
  return apply_update(*p, fields, now);
}

std::optional<change> player_registry::event(std::string_view id, const api::player_event& e,
                                             tick_number now) {
  player_state* p = find(id);
  if (p == nullptr) {
    return std::nullopt;
  }
  std::string anonymous;
  if (e.kind == api::player_event_kind::mount && !e.vehicle) {
    // A mount that names no vehicle boards a vehicle distinct from every other one.
    anonymous = "#" + std::to_string(++anonymous_vehicles_);
  }
  return apply_event(*p, e, now, anonymous);
}

bool player_registry::leave(std::string_view id) {
  const auto it = by_id_.find(id);
  if (it == by_id_.end()) {
    return false;
  }
  const auto p = players_.find(it->second);
  incarnations_.insert_or_assign(p->second.id, p->second.incarnation);
  players_.erase(p);
  by_id_.erase(it);
  return true;
}

bool player_registry::touch(std::string_view id, tick_number now) {
  player_state* p = find(id);
  if (p == nullptr) {
    return false;
  }
  p->last_action_tick = now;
  return true;
}

void player_registry::begin_tick() {
  for (auto& [order, p] : players_) {
    p.yaw_prev = p.yaw;
  }
}

player_state* player_registry::find(std::string_view id) noexcept {
  const auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &players_.find(it->second)->second;
}

const player_state* player_registry::find(std::string_view id) const noexcept {
  const auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &players_.find(it->second)->second;
}

namespace {

void put(core::state_sink& s, std::string_view key, const std::string& v) {
  s.str(key, v);
}
void put(core::state_sink& s, std::string_view key, const dvec3& v) {
  core::describe_vec3(s, key, v);
}
void put(core::state_sink& s, std::string_view key, float v) {
  s.f32(key, v);
}
void put(core::state_sink& s, std::string_view key, bool v) {
  s.boolean(key, v);
}
void put(core::state_sink& s, std::string_view key, std::int32_t v) {
  s.i64(key, v);
}
void put(core::state_sink& s, std::string_view key, api::game_mode v) {
  s.i64(key, static_cast<std::int64_t>(v));
}
void put(core::state_sink& s, std::string_view key, api::physical_arm v) {
  s.i64(key, static_cast<std::int64_t>(v));
}
void put(core::state_sink& s, std::string_view key, const std::optional<std::string>& v) {
  if (v) {
    s.str(key, *v);
  } else {
    s.null(key);
  }
}
void put(core::state_sink& s, std::string_view key, const std::optional<std::int32_t>& v) {
  if (v) {
    s.i64(key, *v);
  } else {
    s.null(key);
  }
}
void put(core::state_sink& s, std::string_view key, const api::item_stack& v) {
  s.begin_object(key);
  s.str("id", v.id);
  s.str("snbt", v.snbt);
  s.boolean("charged", v.charged);
  s.end_object();
}
template <class V>
void put(core::state_sink& s, std::string_view key, const std::map<std::string, V>& m) {
  s.begin_map(key);
  for (const auto& [k, v] : m) {
    put(s, k, v);
  }
  s.end_object();
}

void describe_player(const player_state& p, core::state_sink& s) {
  s.begin_object(p.id);
  // The reported fields (players.md §1.1, molang.md §5.2) by their wire names.
  for_each_player_field([&](const auto& row) { put(s, row.name, p.*row.state); });
  s.boolean("eye_in_water_reported", p.eye_in_water_reported);
  s.i64("incarnation", p.incarnation);
  s.i64("last_action_tick", p.last_action_tick);
  s.f32("yaw_prev", p.yaw_prev);
  s.boolean("keep_on_disconnect", p.keep_on_disconnect);
  // Rendering (render.md §2).
  if (p.uuid) {
    s.begin_list("uuid");
    for (const std::uint8_t b : *p.uuid) {
      s.i64("", b);
    }
    s.end_list();
  } else {
    s.null("uuid");
  }
  put(s, "protocol", p.protocol);
  put(s, "entity_id", p.entity_id);
  put(s, "view_distance", p.view_distance);
  s.str("name", p.name);
  s.boolean("glowing", p.glowing);
  s.begin_map("skin_textures");
  for (const auto& [k, t] : p.skin_textures) {
    s.begin_object(k);
    s.str("value", t.value);
    put(s, "signature", t.signature);
    s.end_object();
  }
  s.end_object();
  s.u64("join_serial", p.join_serial);
  s.u64("client_epoch", p.client_epoch);
  s.end_object();
}

} // namespace

void player_registry::describe(core::state_sink& s) const {
  s.begin_map("players");
  for (const auto& [order, p] : players_) {
    describe_player(p, s);
  }
  s.end_object();
  s.begin_map("incarnations");
  for (const auto& [id, n] : incarnations_) {
    s.i64(id, n);
  }
  s.end_object();
  s.u64("next_join", next_order_);
  s.u64("anonymous_vehicles", anonymous_vehicles_);
}

} // namespace emote::world
