#pragma once
// Quaternions in binary32 (playback.md §2.4, §2.5).

#include "engine/math/types.hpp"

namespace emote::math {

/// Hamilton product a ⊗ b with the operation order of playback.md §2.5.
quatf mul(const quatf& a, const quatf& b) noexcept;

/// rotXYZ(ax, ay, az) = qX(ax) ⊗ qY(ay) ⊗ qZ(az), angles in radians (JOML rotationXYZ).
quatf rotation_xyz(float ax, float ay, float az) noexcept;

/// The quaternion of an Euler XYZ rotation given in degrees (f64): each axis becomes
/// (f32)(deg × 0.017453292519943295) radians, then rotation_xyz.
quatf euler_degrees_to_quat(double x_deg, double y_deg, double z_deg) noexcept;

/// Shortest-path slerp from q0 to q1, not renormalised (JOML Quaternionf.slerp).
quatf slerp(const quatf& q0, const quatf& q1, float alpha) noexcept;

/// Each component × 1/(f32)sqrt(x·x + (y·y + (z·z + w·w))).
quatf normalize(const quatf& q) noexcept;

} // namespace emote::math
