#include "engine/playback/channels.hpp"

#include "engine/math/easing.hpp"
#include "engine/math/matrix.hpp"
#include "engine/math/quat.hpp"

#include <algorithm>

namespace emote::playback {

double keyframe_progress(std::span<const content::vector_keyframe> keys, std::uint32_t k,
                         std::int64_t t) noexcept {
  if (k + 1 >= keys.size()) {
    return 0.0;
  }
  const auto tk = static_cast<double>(keys[k].time.count());
  const auto tn = static_cast<double>(keys[k + 1].time.count());
  const double p = (static_cast<double>(t) - tk) / (tn - tk);
  return std::clamp(p, 0.0, 1.0);
}

math::mat4f local_from(const std::array<double, 3>& position, const math::quatf& rotation,
                       const std::array<double, 3>& scale) noexcept {
  const math::vec3f p{static_cast<float>(position[0]), static_cast<float>(position[1]),
                      static_cast<float>(position[2])};
  const math::vec3f s{static_cast<float>(scale[0]), static_cast<float>(scale[1]),
                      static_cast<float>(scale[2])};
  return math::local_matrix(p, rotation, s);
}

math::quatf rotation_from(const std::array<double, 3>& degrees) noexcept {
  return math::euler_degrees_to_quat(degrees[0], degrees[1], degrees[2]);
}

math::mat4f default_local(const content::transform& t) noexcept {
  return local_from(t.position, rotation_from(t.rotation), t.scale);
}

namespace {

std::array<double, 3> constants(const content::track_vector& v) {
  return {v[0].constant, v[1].constant, v[2].constant};
}

} // namespace

std::array<double, 3> constant_vector(std::span<const content::vector_keyframe> keys,
                                      const std::array<double, 3>& fallback, std::int64_t t) {
  if (keys.empty()) {
    return fallback;
  }
  const std::uint32_t k = advance_cursor(keys, 0, t);
  const double p = keyframe_progress(keys, k, t);
  const std::array<double, 3> post = constants(keys[k].post);
  if (k + 1 >= keys.size() || keys[k].interpolation == content::interpolation::step) {
    return post;
  }
  const std::array<double, 3> pre = constants(keys[k + 1].pre);
  const double e = math::ease(static_cast<math::easing>(keys[k].easing), p);
  return {lerp_component(post[0], pre[0], e), lerp_component(post[1], pre[1], e),
          lerp_component(post[2], pre[2], e)};
}

math::quatf constant_rotation(std::span<const content::vector_keyframe> keys,
                              const std::array<double, 3>& fallback, std::int64_t t) {
  if (keys.empty()) {
    return rotation_from(fallback);
  }
  const std::uint32_t k = advance_cursor(keys, 0, t);
  const double p = keyframe_progress(keys, k, t);
  const math::quatf q0 = rotation_from(constants(keys[k].post));
  if (k + 1 >= keys.size() || keys[k].interpolation == content::interpolation::step) {
    return q0;
  }
  const math::quatf q1 = rotation_from(constants(keys[k + 1].pre));
  const double e = math::ease(static_cast<math::easing>(keys[k].easing), p);
  return math::slerp(q0, q1, static_cast<float>(e));
}

} // namespace emote::playback
