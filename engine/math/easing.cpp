#include "engine/math/easing.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace emote::math {
namespace {

constexpr double pi = 3.141592653589793;
constexpr double back_c = 1.70158;

double bounce(double x) noexcept {
  const double a = ((121.0 / 16.0) * x) * x;
  const double b = (121.0 / 8.0) * std::pow(x - 6.0 / 11.0, 2.0) + 0.5;
  const double c = (121.0 / 4.0) * std::pow(x - 9.0 / 11.0, 2.0) + 0.75;
  const double d = (121.0 / 2.0) * std::pow(x - 10.5 / 11.0, 2.0) + 0.875;
  return std::min(std::min(a, b), std::min(c, d));
}

constexpr std::array<std::string_view, easing_count> names = {
    "linear",
    "ease_in_sine",
    "ease_out_sine",
    "ease_in_out_sine",
    "ease_in_quad",
    "ease_out_quad",
    "ease_in_out_quad",
    "ease_in_cubic",
    "ease_out_cubic",
    "ease_in_out_cubic",
    "ease_in_quart",
    "ease_out_quart",
    "ease_in_out_quart",
    "ease_in_quint",
    "ease_out_quint",
    "ease_in_out_quint",
    "ease_in_expo",
    "ease_out_expo",
    "ease_in_out_expo",
    "ease_in_circ",
    "ease_out_circ",
    "ease_in_out_circ",
    "ease_in_back",
    "ease_out_back",
    "ease_in_out_back",
    "ease_in_elastic",
    "ease_out_elastic",
    "ease_in_out_elastic",
    "ease_in_bounce",
    "ease_out_bounce",
    "ease_in_out_bounce",
};

char lower(char c) noexcept {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

} // namespace

double ease_base(ease_family f, double x) noexcept {
  switch (f) {
  case ease_family::sine:
    return 1.0 - std::cos((pi * x) / 2.0);
  case ease_family::quad:
    return x * x;
  case ease_family::cubic:
    return (x * x) * x;
  case ease_family::quart:
    return std::pow(x, 4.0);
  case ease_family::quint:
    return std::pow(x, 5.0);
  case ease_family::expo:
    return x == 0.0 ? 0.0 : std::pow(2.0, 10.0 * (x - 1.0));
  case ease_family::circ:
    return 1.0 - std::sqrt(1.0 - x * x);
  case ease_family::back:
    return (x * x) * ((back_c + 1.0) * x - back_c);
  case ease_family::elastic:
    return 1.0 - std::pow(std::cos((pi * x) / 2.0), 3.0) * std::cos(pi * x);
  case ease_family::bounce:
    return bounce(x);
  }
  return x;
}

double ease(easing e, double p) noexcept {
  if (e == easing::linear) {
    return p;
  }
  const int index = static_cast<int>(e) - 1;
  const auto family = static_cast<ease_family>(index / 3);
  switch (static_cast<ease_kind>(index % 3)) {
  case ease_kind::in:
    return ease_base(family, p);
  case ease_kind::out:
    return 1.0 - ease_base(family, 1.0 - p);
  case ease_kind::in_out:
    return p < 0.5 ? ease_base(family, 2.0 * p) / 2.0
                   : 1.0 - ease_base(family, 2.0 * (1.0 - p)) / 2.0;
  }
  return p;
}

std::string_view easing_name(easing e) noexcept {
  const auto i = static_cast<std::size_t>(e);
  return i < names.size() ? names[i] : std::string_view{};
}

std::optional<easing> parse_easing(std::string_view name) noexcept {
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string_view n = names[i];
    if (n.size() == name.size() && std::equal(n.begin(), n.end(), name.begin(),
                                              [](char a, char b) { return a == lower(b); })) {
      return static_cast<easing>(i);
    }
  }
  return std::nullopt;
}

} // namespace emote::math
