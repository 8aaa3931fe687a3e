#pragma once
// Roots of a playback's spaces (playback.md §4.3): a binary64 position and a binary32 yaw.

#include "engine/content/model.hpp"
#include "engine/core/vec.hpp"

namespace emote::playback {

struct root {
  core::dvec3 position;
  float yaw = 0;
};

/// A participant placement resolved against the scene root: the root is scene + offset
/// (component-wise, f64), so a moving scene root carries it along with the same offset.
struct resolved_placement {
  core::dvec3 offset;
  float yaw = 0;
};

/// Resolve `participants.initiator/partner` against the scene root (position `scene`, raw yaw
/// `scene_yaw`, pitch 0): `~a ~b ~c`, or `^l ^u ^f` in table trigonometry; the rotation's yaw
/// relative ((f32)((f64)Y + v)) or absolute ((f32)v), never wrapped.
resolved_placement resolve_placement(const content::placement& p, float scene_yaw) noexcept;

/// scene + offset, component-wise in f64.
core::dvec3 offset_position(const core::dvec3& scene, const core::dvec3& offset) noexcept;

} // namespace emote::playback
