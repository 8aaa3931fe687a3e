#pragma once
// Exact line of sight (players.md §2.2–2.4): a voxel traversal of the slightly stretched eye
// segment, and for each solid cell on it a cube test against the unstretched segment. The
// operation order is the reference's, so borderline rays (corners, faces, 128 blocks) decide the
// same way.

#include "engine/core/vec.hpp"
#include "engine/world/eye.hpp"
#include "engine/world/player.hpp"
#include "engine/world/voxel_world.hpp"

#include <array>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <vector>

namespace emote::world {

inline constexpr double max_sight_distance = 128.0;

/// A traversal cell; int64 because a stretched ray near the int32 edge may step past it.
using grid_cell = std::array<std::int64_t, 3>;

/// players.md §2.3: visit the cells from A towards B in the reference's order. `visit(const
/// grid_cell&)` returns true to stop early. Callers bound |B − A| (the traversal takes about |B −
/// A|·3 steps) and pass finite points.
template <class Visit>
void traverse(const core::dvec3& a, const core::dvec3& b, Visit&& visit) {
  const double av[3] = {a.x, a.y, a.z};
  const double bv[3] = {b.x, b.y, b.z};
  double start[3];
  double t_delta[3];
  double t[3];
  std::int64_t step[3];
  grid_cell c{};
  for (int k = 0; k < 3; ++k) {
    start[k] = av[k] + (-1e-7) * (bv[k] - av[k]);
  }
  for (int k = 0; k < 3; ++k) {
    const double end = bv[k] + (-1e-7) * (av[k] - bv[k]);
    const double fl = std::floor(start[k]);
    c[static_cast<std::size_t>(k)] = cell_coordinate(start[k]);
    const double delta = end - start[k];
    const int s = (delta > 0) - (delta < 0);
    step[k] = s;
    t_delta[k] = (s == 0) ? DBL_MAX : static_cast<double>(s) / delta;
    const double frac = start[k] - fl;
    t[k] = t_delta[k] * (s > 0 ? 1 - frac : frac);
  }
  if (visit(static_cast<const grid_cell&>(c))) {
    return;
  }
  while (t[0] <= 1 || t[1] <= 1 || t[2] <= 1) {
    int axis = 0;
    if (t[0] < t[1]) {
      axis = t[0] < t[2] ? 0 : 2;
    } else {
      axis = t[1] < t[2] ? 1 : 2;
    }
    c[static_cast<std::size_t>(axis)] += step[axis];
    t[axis] += t_delta[axis];
    if (visit(static_cast<const grid_cell&>(c))) {
      return;
    }
  }
}

/// The cells players.md §2.3 visits, in order (tests and diagnostics).
std::vector<grid_cell> traversal_cells(const core::dvec3& a, const core::dvec3& b);

/// players.md §2.4: whether the segment from `a` along `d` (= B − A) hits the unit cube at `c`.
bool cube_hit(const core::dvec3& a, const core::dvec3& d, const grid_cell& c) noexcept;

/// players.md §2.2 steps 2–4 between two eye points in one dimension (`grid` may be null: nothing
/// solid). Non-finite points never see each other.
bool sight_between(const dimension_grid* grid, const core::dvec3& a, const core::dvec3& b);

/// LOS(a → b) of players.md §2.2: false across dimensions, else `sight_between` the two eyes.
bool line_of_sight(const voxel_world& w, const player_state& a, const player_state& b);

} // namespace emote::world
