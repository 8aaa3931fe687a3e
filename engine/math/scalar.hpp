#pragma once
// Scalar building blocks with Java semantics: casts, JOML's cosFromSin, yaw wrapping and
// packing (playback.md §2.4, §4.7).

#include <cstdint>

namespace emote::math {

/// binary32 π, 2π and π/2 as JOML defines them: PI = (f32)π, TWO_PI = PI·2, PIH = (f32)(π/2).
inline constexpr float pi_f = static_cast<float>(3.141592653589793);
inline constexpr float two_pi_f = pi_f * 2.0f;
inline constexpr float half_pi_f = static_cast<float>(3.141592653589793 / 2.0);
/// Degrees → radians factor used in f64 (π / 180).
inline constexpr double deg_to_rad = 0.017453292519943295;

/// Java `(int) f`: truncation toward zero, NaN → 0, saturating at the int32 range.
std::int32_t java_f2i(float f) noexcept;
/// Java `(int) d`.
std::int32_t java_d2i(double d) noexcept;
/// Java `(long) d`.
std::int64_t java_d2l(double d) noexcept;

/// (f32)sin(x) with the f32 argument widened to f64.
float sin_f(float x) noexcept;

/// JOML's cosFromSin(s, h): the cosine of h given its sine s, sign from the quadrant of h.
float cos_from_sin(float s, float h) noexcept;

/// wrap(v) of playback.md §4.7 (binary32): the result lies in [−180, 180).
float wrap_degrees(float v) noexcept;

/// pack(v) = int8(floor((v · 256f) / 360f)), keeping the low 8 bits (Minecraft's packDegrees).
std::int8_t pack_degrees(float v) noexcept;

} // namespace emote::math
