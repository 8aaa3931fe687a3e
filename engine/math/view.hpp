#pragma once
// The view-yaw deadzone rule of playback.md §4.7 (binary32).

namespace emote::math {

/// One follow step: with the view yaw `v`, the player's yaw `y` and deadzone `dz`, returns the
/// new view yaw. V trails Y by exactly dz; dz = 0 follows every change, dz = 180 never follows.
float follow_view_yaw(float v, float y, float dz) noexcept;

} // namespace emote::math
