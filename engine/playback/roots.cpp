#include "engine/playback/roots.hpp"

#include "engine/math/table_trig.hpp"

namespace emote::playback {

resolved_placement resolve_placement(const content::placement& p, float scene_yaw) noexcept {
  resolved_placement out;
  const auto& c = p.position.components;
  if (!p.position.local) {
    // Validation guarantees relative world components; `~a` adds a to the scene coordinate.
    out.offset = core::dvec3{c[0].value, c[1].value, c[2].value};
  } else {
    const double left = c[0].value;
    const double up = c[1].value;
    const double forwards = c[2].value;
    const float k = static_cast<float>(3.141592653589793 / 180.0);
    const float g = (scene_yaw + 90.0f) * k;
    const float cos_pitch = math::cos_t(-0.0f * k); // pitch 0: 1
    const float sin_pitch = math::sin_t(-0.0f * k); // pitch 0: 0
    const float c9 = math::cos_t(90.0f * k);        // cos of (pitch + 90°)
    const float s9 = math::sin_t(90.0f * k);        // sin of (pitch + 90°)
    const double fx = static_cast<double>(math::cos_t(g) * cos_pitch);
    const double fy = static_cast<double>(sin_pitch);
    const double fz = static_cast<double>(math::sin_t(g) * cos_pitch);
    const double ux = static_cast<double>(math::cos_t(g) * c9);
    const double uy = static_cast<double>(s9);
    const double uz = static_cast<double>(math::sin_t(g) * c9);
    // Lf = −(F × U)
    const double lx = (fy * uz - fz * uy) * -1.0;
    const double ly = (fz * ux - fx * uz) * -1.0;
    const double lz = (fx * uy - fy * ux) * -1.0;
    out.offset.x = (fx * forwards + ux * up) + lx * left;
    out.offset.y = (fy * forwards + uy * up) + ly * left;
    out.offset.z = (fz * forwards + uz * up) + lz * left;
  }
  const auto& yaw = p.rotation.yaw;
  out.yaw = yaw.relative ? static_cast<float>(static_cast<double>(scene_yaw) + yaw.value)
                         : static_cast<float>(yaw.value);
  return out;
}

core::dvec3 offset_position(const core::dvec3& scene, const core::dvec3& offset) noexcept {
  return core::dvec3{scene.x + offset.x, scene.y + offset.y, scene.z + offset.z};
}

} // namespace emote::playback
