#pragma once
// Plain binary32 value types: 3-vectors, quaternions and affine 4×4 matrices (playback.md §0:
// M[r][c] = row r, column c; column vectors; translation in column 3).

#include <array>
#include <cstring>

namespace emote::math {

struct vec3f {
  float x = 0;
  float y = 0;
  float z = 0;
  friend constexpr bool operator==(const vec3f&, const vec3f&) = default;
};

/// A quaternion (x, y, z, w); not necessarily unit length (a slerp result is not renormalised).
struct quatf {
  float x = 0;
  float y = 0;
  float z = 0;
  float w = 1;
  friend constexpr bool operator==(const quatf&, const quatf&) = default;
};

/// A 3×3 binary32 matrix, row-major.
struct mat3f {
  float m[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
};

/// An affine 4×4 binary32 matrix, row-major; row 3 is always 0 0 0 1.
struct mat4f {
  float m[4][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};

  /// The 16 floats in row-major order (the wire order of a transform record).
  [[nodiscard]] std::array<float, 16> row_major() const noexcept {
    std::array<float, 16> out{};
    std::memcpy(out.data(), &m[0][0], sizeof(out));
    return out;
  }
  /// Bitwise equality of all 16 floats: −0.0 ≠ +0.0 and NaN payloads compare by bits
  /// (playback.md §4.9 change detection).
  [[nodiscard]] bool bits_equal(const mat4f& o) const noexcept {
    return std::memcmp(&m[0][0], &o.m[0][0], sizeof(m)) == 0;
  }
};

} // namespace emote::math
