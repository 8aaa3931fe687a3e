#include "engine/rules/partner.hpp"

#include "engine/world/geometry.hpp"
#include "engine/world/line_of_sight.hpp"

namespace emote::rules {

bool can_pair(const world::player_state* initiator, const world::player_state* partner,
              const world::voxel_world& world) {
  if (partner == nullptr || !partner->alive) {
    return false;
  }
  if (initiator == nullptr || initiator == partner || initiator->id == partner->id ||
      !initiator->alive || initiator->dimension != partner->dimension) {
    return false;
  }
  if (!world::geometry(initiator->pos, initiator->yaw, partner->pos, partner->yaw)) {
    return false;
  }
  return world::line_of_sight(world, *initiator, *partner);
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
