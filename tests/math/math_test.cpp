#include "engine/math/decompose.hpp"
#include "engine/math/easing.hpp"
#include "engine/math/matrix.hpp"
#include "engine/math/quat.hpp"
#include "engine/math/scalar.hpp"
#include "engine/math/view.hpp"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

using namespace emote::math;

namespace {

bool same_bits(float a, float b) {
  return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

#define CHECK_BITS(a, b)                                                                           \
  do {                                                                                             \
    const float a_ = (a);                                                                          \
    const float b_ = (b);                                                                          \
    CAPTURE(a_);                                                                                   \
    CAPTURE(b_);                                                                                   \
    CHECK(same_bits(a_, b_));                                                                      \
  } while (false)

/// v' = M·v for a direction (column vector, w = 0).
vec3f apply_dir(const mat4f& m, vec3f v) {
  return vec3f{m.m[0][0] * v.x + (m.m[0][1] * v.y + m.m[0][2] * v.z),
               m.m[1][0] * v.x + (m.m[1][1] * v.y + m.m[1][2] * v.z),
               m.m[2][0] * v.x + (m.m[2][1] * v.y + m.m[2][2] * v.z)};
}

} // namespace

TEST_CASE("java casts truncate, saturate and map NaN to 0") {
  CHECK(java_f2i(2.9f) == 2);
  CHECK(java_f2i(-2.9f) == -2);
  CHECK(java_f2i(3e10f) == std::numeric_limits<std::int32_t>::max());
  CHECK(java_f2i(-3e10f) == std::numeric_limits<std::int32_t>::min());
  CHECK(java_f2i(std::numeric_limits<float>::quiet_NaN()) == 0);
  CHECK(java_d2l(1e300) == std::numeric_limits<std::int64_t>::max());
  CHECK(java_d2l(-0.5) == 0);
}

TEST_CASE("cos_from_sin takes the sign from the quadrant of the angle") {
  for (float h : {0.0f, 0.3f, 1.2f, 1.6f, 2.5f, 3.0f, 3.2f, 4.0f, 5.0f, 6.2f, -0.4f, -1.7f, -3.0f,
                  -4.5f, 7.0f, 100.0f}) {
    CAPTURE(h);
    const float s = sin_f(h);
    const float c = cos_from_sin(s, h);
    CHECK(std::fabs(static_cast<double>(c) - std::cos(static_cast<double>(h))) < 1e-6);
  }
  // Exactly at π/2 the cosine is +sqrt(1 − 1) = 0 on the positive side.
  CHECK(cos_from_sin(1.0f, half_pi_f) == 0.0f);
}

TEST_CASE("easings: endpoints, linear and the non-standard families") {
  for (int i = 0; i < easing_count; ++i) {
    const auto e = static_cast<easing>(i);
    CAPTURE(easing_name(e));
    CHECK(ease(e, 0.0) == doctest::Approx(0.0).epsilon(1e-12));
    CHECK(ease(e, 1.0) == doctest::Approx(1.0).epsilon(1e-12));
    CHECK(parse_easing(easing_name(e)) == e);
  }
  CHECK(parse_easing("EASE_IN_OUT_Sine") == easing::ease_in_out_sine);
  CHECK_FALSE(parse_easing("ease_in_sin").has_value());
  CHECK(ease(easing::linear, 0.37) == 0.37);
  CHECK(ease(easing::ease_in_quad, 0.5) == 0.25);
  CHECK(ease(easing::ease_out_quad, 0.5) == 0.75);
  CHECK(ease(easing::ease_in_out_cubic, 0.25) == 0.0625);
  CHECK(ease(easing::ease_in_out_cubic, 0.75) == 1.0 - 0.0625);
  CHECK(ease(easing::ease_in_expo, 0.0) == 0.0);
  CHECK(ease(easing::ease_in_expo, 0.5) == std::pow(2.0, 10.0 * (0.5 - 1.0)));
  // back overshoots below 0 on the way in.
  CHECK(ease(easing::ease_in_back, 0.2) < 0.0);
  // Non-standard elastic: 1 − cos³(πx/2)·cos(πx).
  const double x = 0.3;
  const double pi = 3.141592653589793;
  CHECK(ease(easing::ease_in_elastic, x) ==
        1.0 - std::pow(std::cos((pi * x) / 2.0), 3.0) * std::cos(pi * x));
  // The bounce base has the "out" shape: f(x) = 7.5625·x² near 0, so ease_in_bounce bounces
  // near the end.
  CHECK(ease_base(ease_family::bounce, 0.1) == (7.5625 * 0.1) * 0.1);
  CHECK(ease_base(ease_family::bounce, 1.0) == doctest::Approx(1.0).epsilon(1e-15));
  CHECK(ease(easing::ease_out_bounce, 0.9) == 1.0 - ease_base(ease_family::bounce, 1.0 - 0.9));
}

TEST_CASE("Euler XYZ to quaternion: R = Rx·Ry·Rz") {
  const quatf q = euler_degrees_to_quat(0, 90, 0);
  CHECK_BITS(q.x, 0.0f);
  CHECK_BITS(q.y, 0.70710677f);
  CHECK_BITS(q.z, 0.0f);
  CHECK_BITS(q.w, 0.70710677f);
  // Composition order: rotXYZ(a, b, c) = qX(a) ⊗ qY(b) ⊗ qZ(c).
  const quatf composed = mul(mul(euler_degrees_to_quat(30, 0, 0), euler_degrees_to_quat(0, 40, 0)),
                             euler_degrees_to_quat(0, 0, 50));
  const quatf direct = euler_degrees_to_quat(30, 40, 50);
  CHECK(direct.x == doctest::Approx(composed.x).epsilon(1e-6));
  CHECK(direct.y == doctest::Approx(composed.y).epsilon(1e-6));
  CHECK(direct.z == doctest::Approx(composed.z).epsilon(1e-6));
  CHECK(direct.w == doctest::Approx(composed.w).epsilon(1e-6));
  // 360° is the negated identity quaternion.
  const quatf full = euler_degrees_to_quat(0, 360, 0);
  CHECK(full.w == doctest::Approx(-1.0f));
}

TEST_CASE("slerp takes the shortest path and is not renormalised") {
  const quatf q0 = euler_degrees_to_quat(0, 0, 0);
  // 0° → 360°: the target is −identity, the shortest path shows no rotation at all.
  const quatf q360 = euler_degrees_to_quat(0, 360, 0);
  for (float a : {0.0f, 0.25f, 0.5f, 0.75f, 1.0f}) {
    const quatf q = slerp(q0, q360, a);
    const mat3f r = rotation_matrix(q);
    CHECK(r.m[0][0] == doctest::Approx(1.0f).epsilon(1e-6));
    CHECK(std::fabs(r.m[0][2]) < 1e-6f);
  }
  // 0° → 270° turns −90° the short way: halfway is −45° about Y.
  const quatf q270 = euler_degrees_to_quat(0, 270, 0);
  const quatf half = slerp(q0, q270, 0.5f);
  const mat3f r = rotation_matrix(half);
  // RotY(θ)[0][2] = sin θ.
  CHECK(r.m[0][2] == doctest::Approx(-std::sqrt(0.5)).epsilon(1e-5));
  // The near-parallel branch interpolates linearly: s0 = 1 − α, s1 = α.
  const quatf same = slerp(q0, q0, 0.3f);
  CHECK_BITS(same.w, (1.0f - 0.3f) * 1.0f + 0.3f * 1.0f);
  // Operation order of the spec (f32 everywhere).
  const quatf a = euler_degrees_to_quat(10, 20, 30);
  const quatf b = euler_degrees_to_quat(-40, 80, 5);
  const float alpha = 0.35f;
  const float cosom = a.x * b.x + (a.y * b.y + (a.z * b.z + a.w * b.w));
  const float ac = std::fabs(cosom);
  const float sin_sqr = 1.0f - ac * ac;
  const float sinom = 1.0f / std::sqrt(sin_sqr);
  const float om =
      static_cast<float>(std::atan2(static_cast<double>(sin_sqr * sinom), static_cast<double>(ac)));
  float s0 = static_cast<float>(std::sin(static_cast<double>((1.0f - alpha) * om))) * sinom;
  float s1 = static_cast<float>(std::sin(static_cast<double>(alpha * om))) * sinom;
  if (cosom < 0) {
    s1 = -s1;
  }
  const quatf s = slerp(a, b, alpha);
  CHECK_BITS(s.x, s0 * a.x + s1 * b.x);
  CHECK_BITS(s.w, s0 * a.w + s1 * b.w);
}

TEST_CASE("P30 RootRot maps local forward by root yaw (bit-exact)") {
  const vec3f fwd{0, 0, -1};
  struct row {
    float yaw;
    vec3f expect;
  };
  for (const row& c :
       {row{0, {0, 0, 1}}, row{90, {-1, 0, 0}}, row{180, {0, 0, -1}}, row{-90, {1, 0, 0}}}) {
    CAPTURE(c.yaw);
    const vec3f v = apply_dir(root_rot(c.yaw), fwd);
    CHECK(std::fabs(v.x - c.expect.x) <= 8.742278e-8f);
    CHECK(std::fabs(v.y - c.expect.y) <= 8.742278e-8f);
    CHECK(std::fabs(v.z - c.expect.z) <= 8.742278e-8f);
  }
  // Yaw 180 is the identity (with −0.0 at [2][0], from −s).
  const mat4f id = root_rot(180);
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 4; ++c) {
      CHECK(id.m[r][c] == (r == c ? 1.0f : 0.0f));
    }
  }
  CHECK(std::signbit(id.m[2][0]));

  mat4f world;
  world.m[0][3] = 1; // T(1, 0, 0)
  const mat4f m = affine_mul(root_rot(0), world);
  CHECK_BITS(m.m[0][0], -1.0f);
  CHECK_BITS(m.m[0][1], 0.0f);
  CHECK_BITS(m.m[0][2], -8.742278e-8f);
  CHECK_BITS(m.m[0][3], -1.0f);
  CHECK_BITS(m.m[2][0], 8.742278e-8f);
  CHECK_BITS(m.m[2][1], 0.0f);
  CHECK_BITS(m.m[2][2], -1.0f);
  CHECK_BITS(m.m[2][3], 8.742278e-8f);
}

TEST_CASE("P32 decomposition of T(1,2,3)·R(0,90,0)·S(2,2,2) and of the identity (bit-exact)") {
  const mat4f m = local_matrix(vec3f{1, 2, 3}, euler_degrees_to_quat(0, 90, 0), vec3f{2, 2, 2});
  CHECK_BITS(m.m[0][0], 0.0f);
  CHECK_BITS(m.m[0][1], 0.0f);
  CHECK_BITS(m.m[0][2], 1.9999999f);
  CHECK_BITS(m.m[0][3], 1.0f);
  const decomposition d = decompose(m);
  CHECK_BITS(d.translation.x, 1.0f);
  CHECK_BITS(d.translation.y, 2.0f);
  CHECK_BITS(d.translation.z, 3.0f);
  CHECK_BITS(d.left_rotation.x, 0.0f);
  CHECK_BITS(d.left_rotation.y, 0.70710677f);
  CHECK_BITS(d.left_rotation.z, 0.0f);
  CHECK_BITS(d.left_rotation.w, 0.70710677f);
  CHECK_BITS(d.scale.x, 1.9999998f);
  CHECK_BITS(d.scale.y, 1.9999999f);
  CHECK_BITS(d.scale.z, 1.9999998f);
  CHECK_BITS(d.right_rotation.x, -0.0f);
  CHECK_BITS(d.right_rotation.y, -0.0f);
  CHECK_BITS(d.right_rotation.z, -0.0f);
  CHECK_BITS(d.right_rotation.w, 1.0f);

  const decomposition id = decompose(mat4f{});
  CHECK(id.translation == vec3f{0, 0, 0});
  CHECK(id.left_rotation == quatf{0, 0, 0, 1});
  CHECK(id.right_rotation == quatf{0, 0, 0, 1});
  CHECK(id.scale == vec3f{1, 1, 1});
}

TEST_CASE("decomposition reassembles the matrix") {
  const mat4f m =
      local_matrix(vec3f{0.5f, -1, 2}, euler_degrees_to_quat(20, -35, 70), vec3f{1.5f, 0.5f, 2});
  const decomposition d = decompose(m);
  // M = T · R(left) · S · R(right)
  mat4f s;
  s.m[0][0] = d.scale.x;
  s.m[1][1] = d.scale.y;
  s.m[2][2] = d.scale.z;
  const mat4f rebuilt =
      affine_mul(affine_mul(local_matrix(d.translation, d.left_rotation, vec3f{1, 1, 1}), s),
                 local_matrix(vec3f{}, d.right_rotation, vec3f{1, 1, 1}));
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 4; ++c) {
      CHECK(rebuilt.m[r][c] == doctest::Approx(m.m[r][c]).epsilon(1e-4));
    }
  }
  // A zero scale decomposes without NaN.
  const decomposition z = decompose(local_matrix(vec3f{}, quatf{}, vec3f{0, 0, 0}));
  CHECK_FALSE(std::isnan(z.left_rotation.w));
  CHECK_FALSE(std::isnan(z.right_rotation.w));
  CHECK(z.scale.x == 0.0f);
}

TEST_CASE("yaw wrap and pack") {
  CHECK(wrap_degrees(180.0f) == -180.0f);
  CHECK(wrap_degrees(-180.0f) == -180.0f);
  CHECK(wrap_degrees(-340.0f) == 20.0f);
  CHECK(wrap_degrees(540.0f) == -180.0f);
  CHECK(wrap_degrees(359.5f) == -0.5f);
  CHECK(pack_degrees(10.0f) == 7);
  CHECK(pack_degrees(10.5f) == 7);
  CHECK(pack_degrees(30.0f) == 21);
  CHECK(pack_degrees(-1.0f) == -1);
  CHECK(pack_degrees(180.0f) == -128); // 128 keeps its low 8 bits
}

TEST_CASE("P29 view follow deadzone arithmetic") {
  // Deadzone 50, root yaw 0, player 40, 60, 60.5, 80.
  float v = 0;
  v = follow_view_yaw(v, 40, 50);
  CHECK(v == 0.0f);
  v = follow_view_yaw(v, 60, 50);
  CHECK(v == 10.0f);
  v = follow_view_yaw(v, 60.5f, 50);
  CHECK(v == 10.5f);
  v = follow_view_yaw(v, 80, 50);
  CHECK(v == 30.0f);
  // Root yaw 170, player −170 → V stays 170; then −100 → V = −150, rel = 40.
  v = follow_view_yaw(170, -170, 50);
  CHECK(v == 170.0f);
  v = follow_view_yaw(v, -100, 50);
  CHECK(v == -150.0f);
  CHECK(wrap_degrees(v - 170.0f) == 40.0f);
  // Deadzone 0 follows every change; deadzone 180 never follows.
  CHECK(follow_view_yaw(0, 40, 0) == 40.0f);
  CHECK(follow_view_yaw(40, -30, 0) == -30.0f);
  CHECK(follow_view_yaw(0, 179, 180) == 0.0f);
  CHECK(follow_view_yaw(0, -180, 180) == 0.0f);
}
