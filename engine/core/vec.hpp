#pragma once
// Plain value vectors shared by every module. Arithmetic lives in engine/math.

#include <compare>

namespace emote::core {

/// A binary64 3-vector: world positions, origins, velocities (players.md §0).
struct dvec3 {
  double x = 0;
  double y = 0;
  double z = 0;
  friend constexpr bool operator==(const dvec3&, const dvec3&) = default;
};

} // namespace emote::core
