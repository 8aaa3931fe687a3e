#include "engine/world/player_registry.hpp"

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

} // namespace emote::world
