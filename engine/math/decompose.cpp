#include "engine/math/decompose.hpp"

#include "engine/math/matrix.hpp"
#include "engine/math/quat.hpp"
#include "engine/math/scalar.hpp"

#include <algorithm>
#include <cmath>

namespace emote::math {
namespace {

/// A Givens pair (sin-half, cos-half).
struct givens {
  float sh = 0;
  float ch = 1;

  [[nodiscard]] float cos() const noexcept { return ch * ch - sh * sh; }
  [[nodiscard]] float sin() const noexcept { return (2.0f * sh) * ch; }
  [[nodiscard]] givens inverse() const noexcept { return givens{-sh, ch}; }

  [[nodiscard]] quatf qz() const noexcept { return quatf{0, 0, sh, ch}; }
  [[nodiscard]] quatf qy() const noexcept { return quatf{0, sh, 0, ch}; }
  [[nodiscard]] quatf qx() const noexcept { return quatf{sh, 0, 0, ch}; }

  [[nodiscard]] mat3f rz() const noexcept {
    const float c = cos();
    const float s = sin();
    mat3f m;
    m.m[0][0] = c;
    m.m[0][1] = -s;
    m.m[0][2] = 0;
    m.m[1][0] = s;
    m.m[1][1] = c;
    m.m[1][2] = 0;
    m.m[2][0] = 0;
    m.m[2][1] = 0;
    m.m[2][2] = 1;
    return m;
  }
  [[nodiscard]] mat3f ry() const noexcept {
    const float c = cos();
    const float s = sin();
    mat3f m;
    m.m[0][0] = c;
    m.m[0][1] = 0;
    m.m[0][2] = s;
    m.m[1][0] = 0;
    m.m[1][1] = 1;
    m.m[1][2] = 0;
    m.m[2][0] = -s;
    m.m[2][1] = 0;
    m.m[2][2] = c;
    return m;
  }
  [[nodiscard]] mat3f rx() const noexcept {
    const float c = cos();
    const float s = sin();
    mat3f m;
    m.m[0][0] = 1;
    m.m[0][1] = 0;
    m.m[0][2] = 0;
    m.m[1][0] = 0;
    m.m[1][1] = c;
    m.m[1][2] = -s;
    m.m[2][0] = 0;
    m.m[2][1] = s;
    m.m[2][2] = c;
    return m;
  }
};

givens unnorm(float s, float c) noexcept {
  const float w = 1.0f / std::sqrt(s * s + c * c);
  return givens{w * s, w * c};
}

const float g_factor = 3.0f + 2.0f * std::sqrt(2.0f);

givens pi4() noexcept {
  const float h = static_cast<float>(3.141592653589793 / 4.0) / 2.0f;
  const float s = sin_f(h);
  return givens{s, cos_from_sin(s, h)};
}

givens approx(float a, float b, float d) noexcept {
  const float f = 2.0f * (a - d);
  return (g_factor * b) * b < f * f ? unnorm(b, f) : pi4();
}

givens qr(float a1, float a2) noexcept {
  const float hy = static_cast<float>(std::hypot(static_cast<double>(a1), static_cast<double>(a2)));
  float sh = hy > 1e-6f ? a2 : 0.0f;
  float ch = std::fabs(a1) + std::max(hy, 1e-6f);
  if (a1 < 0.0f) {
    std::swap(sh, ch);
  }
  return unnorm(sh, ch);
}

void similarity(mat3f& sm, const mat3f& q) noexcept {
  sm = mul3(transpose(q), mul3(sm, q));
}

/// B = A·R(q) with each entry summed left to right: (a0·r0 + a1·r1) + a2·r2.
mat3f rotate_right(const mat3f& a, const quatf& q) noexcept {
  const mat3f r = rotation_matrix(q);
  mat3f out;
  for (int row = 0; row < 3; ++row) {
    for (int c = 0; c < 3; ++c) {
      out.m[row][c] = (a.m[row][0] * r.m[0][c] + a.m[row][1] * r.m[1][c]) + a.m[row][2] * r.m[2][c];
    }
  }
  return out;
}

} // namespace

decomposition decompose(const mat4f& m) noexcept {
  decomposition out;
  out.translation = vec3f{m.m[0][3], m.m[1][3], m.m[2][3]};

  const mat3f a = upper3(m);
  mat3f sm = mul3(transpose(a), a);
  quatf qv{0, 0, 0, 1};
  for (int i = 0; i < 5; ++i) {
    if (sm.m[1][0] * sm.m[1][0] + sm.m[0][1] * sm.m[0][1] > 1e-6f) {
      const givens g = approx(sm.m[0][0], 0.5f * (sm.m[1][0] + sm.m[0][1]), sm.m[1][1]);
      qv = mul(qv, g.qz());
      similarity(sm, g.rz());
    }
    if (sm.m[2][0] * sm.m[2][0] + sm.m[0][2] * sm.m[0][2] > 1e-6f) {
      const givens g = approx(sm.m[0][0], 0.5f * (sm.m[2][0] + sm.m[0][2]), sm.m[2][2]).inverse();
      qv = mul(qv, g.qy());
      similarity(sm, g.ry());
    }
    if (sm.m[2][1] * sm.m[2][1] + sm.m[1][2] * sm.m[1][2] > 1e-6f) {
      const givens g = approx(sm.m[1][1], 0.5f * (sm.m[2][1] + sm.m[1][2]), sm.m[2][2]);
      qv = mul(qv, g.qx());
      similarity(sm, g.rx());
    }
  }
  qv = normalize(qv);
  const bool fx = static_cast<double>(sm.m[0][0]) < 1e-6;
  const bool fy = static_cast<double>(sm.m[1][1]) < 1e-6;

  const mat3f b1 = rotate_right(a, qv);
  const givens g1 = fx ? qr(b1.m[1][1], -b1.m[0][1]) : qr(b1.m[0][0], b1.m[1][0]);
  quatf qu = mul(quatf{0, 0, 0, 1}, g1.qz());
  const mat3f b2 = mul3(transpose(g1.rz()), b1);
  const givens g2 = (fx ? qr(b2.m[2][2], -b2.m[0][2]) : qr(b2.m[0][0], b2.m[2][0])).inverse();
  qu = mul(qu, g2.qy());
  const mat3f b3 = mul3(transpose(g2.ry()), b2);
  const givens g3 = fy ? qr(b3.m[2][2], -b3.m[1][2]) : qr(b3.m[1][1], b3.m[2][1]);
  qu = mul(qu, g3.qx());
  const mat3f b4 = mul3(transpose(g3.rx()), b3);

  out.left_rotation = qu;
  out.scale = vec3f{b4.m[0][0], b4.m[1][1], b4.m[2][2]};
  out.right_rotation = quatf{-qv.x, -qv.y, -qv.z, qv.w};
  return out;
}

} // namespace emote::math
