#include "engine/math/view.hpp"

#include "engine/math/scalar.hpp"

#include <cmath>

namespace emote::math {

float follow_view_yaw(float v, float y, float dz) noexcept {
  const float d = wrap_degrees(y - v);
  if (std::fabs(d) > dz) {
    return wrap_degrees((v + d) - std::copysign(dz, d));
  }
  return v;
}

} // namespace emote::math
