#pragma once
// Affine matrices in binary32 (playback.md §2.5, §4.4).

#include "engine/math/types.hpp"

namespace emote::math {

/// The rotation matrix of q (valid for non-unit q; its norm error stays in the matrix).
mat3f rotation_matrix(const quatf& q) noexcept;

/// local = T(p)·R(q)·S(s): Lc[r][c] = R[r][c]·s_c, Lc[r][3] = p_r.
mat4f local_matrix(const vec3f& p, const quatf& q, const vec3f& s) noexcept;

/// The affine product A ⊙ B (used for every matrix product of the playback spec).
mat4f affine_mul(const mat4f& a, const mat4f& b) noexcept;

/// The 3×3 part of ⊙: (A·B)[r][c] = A[r][0]·B[0][c] + (A[r][1]·B[1][c] + A[r][2]·B[2][c]).
mat3f mul3(const mat3f& a, const mat3f& b) noexcept;

mat3f transpose(const mat3f& a) noexcept;

/// The upper-left 3×3 of an affine matrix.
mat3f upper3(const mat4f& m) noexcept;

/// RootRot(yaw): a rotation about +Y by (180 − yaw) degrees, computed as playback.md §4.4 says.
mat4f root_rot(float yaw) noexcept;

/// RootRot construction for an angle already in radians (playback.md §5.2 `Rv`).
mat4f root_rot_radians(float a) noexcept;

} // namespace emote::math
