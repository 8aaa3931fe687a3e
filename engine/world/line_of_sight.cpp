#include "engine/world/line_of_sight.hpp"

namespace emote::world {

std::vector<grid_cell> traversal_cells(const core::dvec3& a, const core::dvec3& b) {
  std::vector<grid_cell> out;
  traverse(a, b, [&](const grid_cell& c) {
    out.push_back(c);
    return false;
  });
  return out;
}

bool cube_hit(const core::dvec3& a, const core::dvec3& d, const grid_cell& c) noexcept {
  if (d.x * d.x + d.y * d.y + d.z * d.z < 1e-7) {
    return false; // very short rays are never blocked
  }
  const double av[3] = {a.x, a.y, a.z};
  const double dv[3] = {d.x, d.y, d.z};
  const double cv[3] = {static_cast<double>(c[0]), static_cast<double>(c[1]),
                        static_cast<double>(c[2])};
  bool inside = true;
  for (int k = 0; k < 3; ++k) {
    const double p = av[k] + 0.001 * dv[k];
    const double off = p - cv[k];
    inside = inside && off >= 0 && off < 1;
  }
  if (inside) {
    return true; // the ray starts inside the cube
  }
  double t_best = 1.0;
  bool hit = false;
  for (int k = 0; k < 3; ++k) {
    double face = 0;
    if (dv[k] > 1e-7) {
      face = cv[k];
    } else if (dv[k] < -1e-7) {
      face = cv[k] + 1;
    } else {
      continue;
    }
    const double t = (face - av[k]) / dv[k];
    if (!(0 < t && t < t_best)) {
      continue;
    }
    bool within = true;
    for (int o = 0; o < 3; ++o) {
      if (o == k) {
        continue;
      }
      const double q = av[o] + t * dv[o];
      within = within && cv[o] - 1e-7 < q && q < cv[o] + 1 + 1e-7;
    }
    if (within) {
      t_best = t;
      hit = true;
    }
  }
  return hit;
}

bool sight_between(const dimension_grid* grid, const core::dvec3& a, const core::dvec3& b) {
  if (!std::isfinite(a.x) || !std::isfinite(a.y) || !std::isfinite(a.z) || !std::isfinite(b.x) ||
      !std::isfinite(b.y) || !std::isfinite(b.z)) {
    return false;
  }
  const core::dvec3 d{b.x - a.x, b.y - a.y, b.z - a.z};
  if (std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z) > max_sight_distance) {
    return false;
  }
  if (a == b) {
    return true;
  }
  if (grid == nullptr || grid->stored_cells() == 0) {
    return true;
  }
  bool blocked = false;
  traverse(a, b, [&](const grid_cell& c) {
    blocked = grid->at(c[0], c[1], c[2]) == block_kind::solid && cube_hit(a, d, c);
    return blocked;
  });
  return !blocked;
}

bool line_of_sight(const voxel_world& w, const player_state& a, const player_state& b) {
  if (a.dimension != b.dimension) {
    return false;
  }
  return sight_between(w.dimension(a.dimension), eye_position(a), eye_position(b));
}

} // namespace emote::world
