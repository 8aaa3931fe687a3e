#include "engine/rules/stop_conditions.hpp"

#include "engine/world/eye.hpp"

namespace emote::rules {

bool moved_beyond(const core::dvec3& pos, const core::dvec3& baseline, double movement_distance) {
  if (!(movement_distance > 0)) {
    return false;
  }
  const double dx = pos.x - baseline.x;
  const double dz = pos.z - baseline.z;
  return dx * dx + dz * dz > movement_distance * movement_distance;
}

std::optional<api::stop_reason> poll(const poll_subject& who, const stop_conditions& sc,
                                     std::string_view session_dimension,
                                     const world::voxel_world& world) {
  const world::player_state* p = who.player;
  if (p == nullptr || p->incarnation != who.incarnation || !p->alive ||
      p->dimension != session_dimension) {
    return api::stop_reason::player_unavailable;
  }
  if (sc.submerge && world::eye_in_water(*p, world)) {
    return api::stop_reason::submerged;
  }
  if (moved_beyond(p->pos, who.baseline, sc.movement_distance)) {
    return api::stop_reason::moved;
  }
  return std::nullopt;
}

std::optional<api::stop_reason> poll_session(std::span<const poll_subject> participants,
                                             const stop_conditions& sc,
                                             std::string_view session_dimension,
                                             const world::voxel_world& world) {
  for (const auto& who : participants) {
    if (auto r = poll(who, sc, session_dimension, world)) {
      return r;
    }
  }
  return std::nullopt;
}

std::optional<api::stop_reason> event_stop(const world::player_event_record& e,
                                           const stop_conditions& sc) {
  using world::event_kind;
  switch (e.kind) {
  case event_kind::jump:
    if (sc.jump) {
      return api::stop_reason::jumped;
    }
    break;
  case event_kind::start_riding:
    if (sc.ride) {
      return api::stop_reason::mounted;
    }
    break;
  case event_kind::damage:
    if (sc.damage && e.amount > 0 && !e.lethal) {
      return api::stop_reason::damaged;
    }
    break;
  case event_kind::attack:
    if (sc.attack) {
      return api::stop_reason::attacked;
    }
    break;
  case event_kind::game_mode_change:
    if (sc.game_mode_change) {
      return api::stop_reason::game_mode_changed;
    }
    break;
  case event_kind::death:
  case event_kind::respawn:
  case event_kind::dimension_change:
    break;
  }
  return std::nullopt;
}

std::optional<api::stop_reason> first_event_stop(std::span<const world::player_event_record> es,
                                                 const stop_conditions& sc) {
  for (const auto& e : es) {
    if (auto r = event_stop(e, sc)) {
      return r;
    }
  }
  return std::nullopt;
}

} // namespace emote::rules
