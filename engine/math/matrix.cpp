#include "engine/math/matrix.hpp"

#include "engine/math/scalar.hpp"

namespace emote::math {

mat3f rotation_matrix(const quatf& q) noexcept {
  const float x2 = q.x * q.x;
  const float y2 = q.y * q.y;
  const float z2 = q.z * q.z;
  const float w2 = q.w * q.w;
  const float xy = q.x * q.y;
  const float xz = q.x * q.z;
  const float yz = q.y * q.z;
  const float xw = q.x * q.w;
  const float yw = q.y * q.w;
  const float zw = q.z * q.w;
  const float dxy = xy + xy;
  const float dxz = xz + xz;
  const float dyz = yz + yz;
  const float dxw = xw + xw;
  const float dyw = yw + yw;
  const float dzw = zw + zw;
  mat3f r;
  r.m[0][0] = ((w2 + x2) - z2) - y2;
  r.m[0][1] = dxy - dzw;
  r.m[0][2] = dyw + dxz;
  r.m[1][0] = dxy + dzw;
  r.m[1][1] = ((y2 - z2) + w2) - x2;
  r.m[1][2] = dyz - dxw;
  r.m[2][0] = dxz - dyw;
  r.m[2][1] = dyz + dxw;
  r.m[2][2] = ((z2 - y2) - x2) + w2;
  return r;
}

mat4f local_matrix(const vec3f& p, const quatf& q, const vec3f& s) noexcept {
  const mat3f r = rotation_matrix(q);
  const float sc[3] = {s.x, s.y, s.z};
  const float pc[3] = {p.x, p.y, p.z};
  mat4f l;
  for (int row = 0; row < 3; ++row) {
    for (int col = 0; col < 3; ++col) {
      l.m[row][col] = r.m[row][col] * sc[col];
    }
    l.m[row][3] = pc[row];
  }
  l.m[3][0] = 0;
  l.m[3][1] = 0;
  l.m[3][2] = 0;
  l.m[3][3] = 1;
  return l;
}

mat4f affine_mul(const mat4f& a, const mat4f& b) noexcept {
  mat4f out;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      out.m[r][c] = a.m[r][0] * b.m[0][c] + (a.m[r][1] * b.m[1][c] + a.m[r][2] * b.m[2][c]);
    }
    out.m[r][3] =
        a.m[r][0] * b.m[0][3] + (a.m[r][1] * b.m[1][3] + (a.m[r][2] * b.m[2][3] + a.m[r][3]));
  }
  out.m[3][0] = 0;
  out.m[3][1] = 0;
  out.m[3][2] = 0;
  out.m[3][3] = 1;
  return out;
}

mat3f mul3(const mat3f& a, const mat3f& b) noexcept {
  mat3f out;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      out.m[r][c] = a.m[r][0] * b.m[0][c] + (a.m[r][1] * b.m[1][c] + a.m[r][2] * b.m[2][c]);
    }
  }
  return out;
}

mat3f transpose(const mat3f& a) noexcept {
  mat3f t;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      t.m[r][c] = a.m[c][r];
    }
  }
  return t;
}

mat3f upper3(const mat4f& m) noexcept {
  mat3f a;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      a.m[r][c] = m.m[r][c];
    }
  }
  return a;
}

mat4f root_rot_radians(float a) noexcept {
  const float s = sin_f(a);
  const float c = cos_from_sin(s, a);
  mat4f m;
  m.m[0][0] = c;
  m.m[0][1] = 0;
  m.m[0][2] = s;
  m.m[0][3] = 0;
  m.m[1][0] = 0;
  m.m[1][1] = 1;
  m.m[1][2] = 0;
  m.m[1][3] = 0;
  m.m[2][0] = -s;
  m.m[2][1] = 0;
  m.m[2][2] = c;
  m.m[2][3] = 0;
  return m;
}

mat4f root_rot(float yaw) noexcept {
  const float a = static_cast<float>(static_cast<double>(180.0f - yaw) * deg_to_rad);
  return root_rot_radians(a);
}

} // namespace emote::math
