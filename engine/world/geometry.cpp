#include "engine/world/geometry.hpp"

#include "engine/math/table_trig.hpp"

#include <cmath>

namespace emote::world {
namespace {

constexpr float deg_to_rad_f = 0.017453292f; // 0x3C8EFA35
constexpr float pi_f = 3.1415927f;           // 0x40490FDB

core::dvec3 norm(const core::dvec3& v) noexcept {
  const double len = std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
  return {v.x / len, v.y / len, v.z / len};
}

double dot(const core::dvec3& a, const core::dvec3& b) noexcept {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

} // namespace

core::dvec3 facing(float yaw) noexcept {
  const float scaled = -yaw * deg_to_rad_f;
  const float a = scaled - pi_f;
  return norm({-static_cast<double>(math::sin_t(a)), 0.0, -static_cast<double>(math::cos_t(a))});
}

geometry_result check_geometry(const core::dvec3& p1, float yaw1, const core::dvec3& p2,
                               float yaw2) noexcept {
  // The checks are written as negated accepts so that NaN coordinates fail too.
  if (!(std::abs(p1.y - p2.y) <= 1.0)) {
    return geometry_result::height;
  }
  const double dx = p2.x - p1.x;
  const double dz = p2.z - p1.z;
  const double h2 = dx * dx + dz * dz;
  if (!(h2 <= 4.0)) {
    return geometry_result::too_far;
  }
  if (!(h2 >= 1e-8)) {
    return geometry_result::same_spot;
  }
  const core::dvec3 u = norm({dx, 0.0, dz});
  const core::dvec3 back{-u.x, -u.y, -u.z};
  if (!(dot(facing(yaw1), u) >= facing_threshold)) {
    return geometry_result::initiator_facing;
  }
  if (!(dot(facing(yaw2), back) >= facing_threshold)) {
    return geometry_result::partner_facing;
  }
  return geometry_result::ok;
}

} // namespace emote::world
