#pragma once
// Pure pieces of one evaluation (playback.md §2.2–2.5) shared by the runtime evaluator and the
// load-time baker, so that baked poses equal per-tick ones bit for bit.

#include "engine/content/model.hpp"
#include "engine/math/types.hpp"

#include <array>
#include <cstdint>
#include <span>

namespace emote::playback {

/// The index of the last keyframe with time ≤ t, starting the search at `from` (cursors only
/// move forward between cycle begins). Keyframe 0 sits at 0t, so the result is ≥ 0 for t ≥ 0.
template <class Keyframe>
std::uint32_t advance_cursor(std::span<const Keyframe> keys, std::uint32_t from,
                             std::int64_t t) noexcept {
  std::uint32_t k = from;
  while (k + 1 < keys.size() && keys[k + 1].time.count() <= t) {
    ++k;
  }
  return k;
}

/// Progress p = clamp((t − t_k) / (t_{k+1} − t_k), 0, 1) in f64; 0 without a next keyframe.
double keyframe_progress(std::span<const content::vector_keyframe> keys, std::uint32_t k,
                         std::int64_t t) noexcept;

/// The local matrix T(p)·R(q)·S(s) from f64 position and scale and a rotation quaternion.
math::mat4f local_from(const std::array<double, 3>& position, const math::quatf& rotation,
                       const std::array<double, 3>& scale) noexcept;

/// The quaternion of Euler degrees (f64 per axis).
math::quatf rotation_from(const std::array<double, 3>& degrees) noexcept;

/// The node's default local matrix (its `transform`).
math::mat4f default_local(const content::transform& t) noexcept;

/// Evaluates a vector channel without Molang (every component a constant). Used by the baker.
std::array<double, 3> constant_vector(std::span<const content::vector_keyframe> keys,
                                      const std::array<double, 3>& fallback, std::int64_t t);
math::quatf constant_rotation(std::span<const content::vector_keyframe> keys,
                              const std::array<double, 3>& fallback, std::int64_t t);

/// Blend of one component pair: post + (pre − post)·e.
inline double lerp_component(double post, double pre, double e) noexcept {
  return post + (pre - post) * e;
}

} // namespace emote::playback
