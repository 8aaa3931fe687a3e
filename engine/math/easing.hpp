#pragma once
// The 31 easings of playback.md §2.3 (binary64, operations in the order the spec writes them).

#include <cstdint>
#include <optional>
#include <string_view>

namespace emote::math {

enum class ease_family : std::uint8_t {
  sine,
  quad,
  cubic,
  quart,
  quint,
  expo,
  circ,
  back,
  elastic,
  bounce,
};
enum class ease_kind : std::uint8_t { in, out, in_out };

/// linear, then ease_in_X, ease_out_X, ease_in_out_X for every family in the order of
/// ease_family: index = 1 + 3·family + kind.
enum class easing : std::uint8_t {
  linear = 0,
  // NOLINTBEGIN(readability-identifier-naming)
  ease_in_sine,
  ease_out_sine,
  ease_in_out_sine,
  ease_in_quad,
  ease_out_quad,
  ease_in_out_quad,
  ease_in_cubic,
  ease_out_cubic,
  ease_in_out_cubic,
  ease_in_quart,
  ease_out_quart,
  ease_in_out_quart,
  ease_in_quint,
  ease_out_quint,
  ease_in_out_quint,
  ease_in_expo,
  ease_out_expo,
  ease_in_out_expo,
  ease_in_circ,
  ease_out_circ,
  ease_in_out_circ,
  ease_in_back,
  ease_out_back,
  ease_in_out_back,
  ease_in_elastic,
  ease_out_elastic,
  ease_in_out_elastic,
  ease_in_bounce,
  ease_out_bounce,
  ease_in_out_bounce,
  // NOLINTEND(readability-identifier-naming)
};
inline constexpr int easing_count = 31;

constexpr easing make_easing(ease_family f, ease_kind k) noexcept {
  return static_cast<easing>(1 + 3 * static_cast<int>(f) + static_cast<int>(k));
}

/// The base function f(x) of a family.
double ease_base(ease_family f, double x) noexcept;

/// ease(p) for one of the 31 easings.
double ease(easing e, double p) noexcept;

/// The file name of an easing (`linear`, `ease_in_out_sine`, …).
std::string_view easing_name(easing e) noexcept;
/// Parse an easing name, ASCII case-insensitive (formats.md §3.4).
std::optional<easing> parse_easing(std::string_view name) noexcept;

} // namespace emote::math
