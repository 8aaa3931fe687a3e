#include "engine/rules/partner.hpp"

#include "engine/world/geometry.hpp"
#include "engine/world/line_of_sight.hpp"

namespace emote::rules {

std::optional<api::match_failure> pair_failure(const world::player_state* initiator,
                                               const world::player_state* partner,
                                               const world::voxel_world& world) {
  using api::match_failure;
  if (partner == nullptr || !partner->alive) {
    return match_failure::partner_dead;
  }
  if (initiator == nullptr) {
    return match_failure::initiator_offline;
  }
  if (initiator == partner || initiator->id == partner->id) {
    return match_failure::same_player;
  }
  if (!initiator->alive) {
    return match_failure::initiator_dead;
  }
  if (initiator->dimension != partner->dimension) {
    return match_failure::dimension;
  }
  switch (world::check_geometry(initiator->pos, initiator->yaw, partner->pos, partner->yaw)) {
  case world::geometry_result::ok:
    break;
  case world::geometry_result::height:
    return match_failure::height;
  case world::geometry_result::too_far:
    return match_failure::too_far;
  case world::geometry_result::same_spot:
    return match_failure::same_spot;
  case world::geometry_result::initiator_facing:
    return match_failure::initiator_facing;
  case world::geometry_result::partner_facing:
    return match_failure::partner_facing;
  }
  if (!world::line_of_sight(world, *initiator, *partner)) {
    return match_failure::line_of_sight;
  }
  return std::nullopt;
}

bool can_pair(const world::player_state* initiator, const world::player_state* partner,
              const world::voxel_world& world) {
  return !pair_failure(initiator, partner, world).has_value();
}

double pairing_distance_sq(const world::player_state& initiator,
                           const world::player_state& partner) noexcept {
  const double dx = initiator.pos.x - partner.pos.x;
  const double dz = initiator.pos.z - partner.pos.z;
  return dx * dx + dz * dz;
}

std::optional<std::size_t> nearest_offer(std::span<const double> distances_sq) noexcept {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < distances_sq.size(); ++i) {
    if (!best || distances_sq[i] < distances_sq[*best]) {
      best = i;
    }
  }
  return best;
}

} // namespace emote::rules
