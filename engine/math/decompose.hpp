#pragma once
// The Minecraft-style decomposition of a display matrix into translation, left rotation, scale
// and right rotation (playback.md §4.4), bit for bit.

#include "engine/math/types.hpp"

namespace emote::math {

struct decomposition {
  vec3f translation;
  quatf left_rotation;
  vec3f scale;
  quatf right_rotation;
  friend bool operator==(const decomposition&, const decomposition&) = default;
};

decomposition decompose(const mat4f& m) noexcept;

} // namespace emote::math
