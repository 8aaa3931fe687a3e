#pragma once
// Partner geometry (players.md §7.4): whether two players stand close enough, level enough and
// face each other within 45°, with the reference's table trigonometry for the facing vectors.

#include "engine/core/vec.hpp"

namespace emote::world {

/// cos 45° as the reference writes it; an offset of exactly 45° fails by rounding (R40).
inline constexpr double facing_threshold = 0.7071067811865476;

/// `fwd(yaw) = norm(−sinT(a), 0, −cosT(a))` with `a = f32(f32(−yaw·k) − π_f)`; about
/// (−sin yaw, 0, cos yaw). Yaw is not wrapped.
core::dvec3 facing(float yaw) noexcept;

/// The step of `geometry` that fails first (players.md §7.4), or `ok`.
enum class geometry_result : unsigned char {
  ok,
  height,           ///< step 1: |p1.y − p2.y| > 1.0
  too_far,          ///< step 2: h2 > 4.0 (more than 2 blocks apart horizontally)
  same_spot,        ///< step 2: h2 < 1e-8
  initiator_facing, ///< step 5: the initiator does not face the partner within 45°
  partner_facing,   ///< step 5: the partner does not face the initiator within 45°
};

/// `geometry(p1, yaw1, p2, yaw2)` step by step: p1 is the initiator's feet, p2 the partner's.
geometry_result check_geometry(const core::dvec3& p1, float yaw1, const core::dvec3& p2,
                               float yaw2) noexcept;

/// `geometry(p1, yaw1, p2, yaw2)`: p1 is the initiator's feet, p2 the partner's.
inline bool geometry(const core::dvec3& p1, float yaw1, const core::dvec3& p2,
                     float yaw2) noexcept {
  return check_geometry(p1, yaw1, p2, yaw2) == geometry_result::ok;
}

} // namespace emote::world
