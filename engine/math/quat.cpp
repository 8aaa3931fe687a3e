#include "engine/math/quat.hpp"

#include "engine/math/scalar.hpp"

#include <cmath>

namespace emote::math {

quatf mul(const quatf& a, const quatf& b) noexcept {
  quatf r;
  r.x = a.w * b.x + (a.x * b.w + (a.y * b.z - a.z * b.y));
  r.y = a.w * b.y + ((-a.x) * b.z + (a.y * b.w + a.z * b.x));
  r.z = a.w * b.z + (a.x * b.y + ((-a.y) * b.x + a.z * b.w));
  r.w = a.w * b.w + ((-a.x) * b.x + ((-a.y) * b.y - a.z * b.z));
  return r;
}

quatf rotation_xyz(float ax, float ay, float az) noexcept {
  const float hx = ax * 0.5f;
  const float hy = ay * 0.5f;
  const float hz = az * 0.5f;
  const float sx = sin_f(hx);
  const float cx = cos_from_sin(sx, hx);
  const float sy = sin_f(hy);
  const float cy = cos_from_sin(sy, hy);
  const float sz = sin_f(hz);
  const float cz = cos_from_sin(sz, hz);
  const float cycz = cy * cz;
  const float sysz = sy * sz;
  const float sycz = sy * cz;
  const float cysz = cy * sz;
  quatf q;
  q.w = cx * cycz - sx * sysz;
  q.x = sx * cycz + cx * sysz;
  q.y = cx * sycz - sx * cysz;
  q.z = cx * cysz + sx * sycz;
  return q;
}

quatf euler_degrees_to_quat(double x_deg, double y_deg, double z_deg) noexcept {
  return rotation_xyz(static_cast<float>(x_deg * deg_to_rad),
                      static_cast<float>(y_deg * deg_to_rad),
                      static_cast<float>(z_deg * deg_to_rad));
}

quatf slerp(const quatf& q0, const quatf& q1, float alpha) noexcept {
  const float cosom = q0.x * q1.x + (q0.y * q1.y + (q0.z * q1.z + q0.w * q1.w));
  const float ac = std::fabs(cosom);
  float s0 = 0;
  float s1 = 0;
  if (1.0f - ac > 1e-6f) {
    const float sin_sqr = 1.0f - ac * ac;
    const float sinom = 1.0f / std::sqrt(sin_sqr);
    const float om = static_cast<float>(
        std::atan2(static_cast<double>(sin_sqr * sinom), static_cast<double>(ac)));
    s0 = sin_f((1.0f - alpha) * om) * sinom;
    s1 = sin_f(alpha * om) * sinom;
  } else {
    s0 = 1.0f - alpha;
    s1 = alpha;
  }
  if (cosom < 0.0f) {
    s1 = -s1;
  }
  quatf q;
  q.x = s0 * q0.x + s1 * q1.x;
  q.y = s0 * q0.y + s1 * q1.y;
  q.z = s0 * q0.z + s1 * q1.z;
  q.w = s0 * q0.w + s1 * q1.w;
  return q;
}

quatf normalize(const quatf& q) noexcept {
  const float inv = 1.0f / std::sqrt(q.x * q.x + (q.y * q.y + (q.z * q.z + q.w * q.w)));
  return quatf{q.x * inv, q.y * inv, q.z * inv, q.w * inv};
}

} // namespace emote::math
