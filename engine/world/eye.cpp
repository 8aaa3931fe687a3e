#include "engine/world/eye.hpp"

#include "engine/math/table_trig.hpp"

#include <cmath>

namespace emote::world {

float eye_height(const player_state& p) noexcept {
  if (p.gliding) {
    return 0.4f;
  }
  if (p.sleeping) {
    return 0.2f;
  }
  if (p.swimming || p.crawling) {
    return 0.4f;
  }
  if (p.sneaking) {
    return 1.27f;
  }
  return 1.62f;
}

core::dvec3 eye_position(const player_state& p) noexcept {
  return {p.pos.x, p.pos.y + static_cast<double>(eye_height(p)), p.pos.z};
}

std::int64_t cell_coordinate(double v) noexcept {
  return math::java_long(std::floor(v));
}

bool eye_in_water(const player_state& p, const voxel_world& w) noexcept {
  if (p.eye_in_water_reported) {
    return p.eye_in_water;
  }
  const dimension_grid* g = w.dimension(p.dimension);
  if (g == nullptr) {
    return false;
  }
  const core::dvec3 e = eye_position(p);
  return g->at(cell_coordinate(e.x), cell_coordinate(e.y), cell_coordinate(e.z)) ==
         block_kind::water;
}

} // namespace emote::world
