#pragma once
// Table trigonometry as the reference server computes it (players.md §7.4, playback.md §4.3):
// a 65536-entry sine table indexed by the angle in radians scaled by 65536 / 2π. Partner
// geometry and `^` placements must use it, not std::sin, because the table's coarse steps decide
// borderline matches bit for bit.

#include <array>
#include <cstdint>

namespace emote::math {

inline constexpr std::size_t trig_table_size = 65536;
/// 65536 / 2π, the table's index scale.
inline constexpr double trig_table_scale = 10430.378350470453;

/// `Tb[i] = (f32)sin(i / 10430.378350470453)` for i = 0..65535, built once on first use.
const std::array<float, trig_table_size>& sin_table() noexcept;

/// Java's `(long)` conversion: truncation toward zero, NaN → 0, saturation outside the int64
/// range. The spec's `int64(...)`/`trunc64(...)`; out-of-range angles therefore never invoke
/// undefined behaviour.
std::int64_t java_long(double v) noexcept;

/// The table index of `v` (binary32 radians widened to binary64), optionally offset by a quarter
/// turn: `java_long(v · scale + offset) & 65535`.
std::size_t trig_index(float v, double offset = 0.0) noexcept;

/// `sinT(v) = Tb[int64(v · 10430.378350470453) & 65535]`.
float sin_t(float v) noexcept;
/// `cosT(v) = Tb[int64(v · 10430.378350470453 + 16384.0) & 65535]`.
float cos_t(float v) noexcept;

} // namespace emote::math
