#include "engine/molang/math_functions.hpp"

#include <array>
#include <cmath>
#include <limits>

namespace emote::molang {

namespace {

struct member_info {
  std::string_view name;
  int arity;
};

// Indexed by math_member.
constexpr std::array<member_info, math_member_count> members = {{
    {"abs", 1},
    {"acos", 1},
    {"asin", 1},
    {"atan", 1},
    {"atan2", 2},
    {"sin", 1},
    {"cos", 1},
    {"ceil", 1},
    {"floor", 1},
    {"round", 1},
    {"trunc", 1},
    {"clamp", 3},
    {"copy_sign", 2},
    {"exp", 1},
    {"ln", 1},
    {"sqrt", 1},
    {"pow", 2},
    {"hermite_blend", 1},
    {"lerp", 3},
    {"inverse_lerp", 3},
    {"min_angle", 1},
    {"lerprotate", 3},
    {"max", 2},
    {"min", 2},
    {"mod", 2},
    {"sign", 1},
    {"random", 2},
    {"random_integer", 2},
    {"die_roll", 3},
    {"die_roll_integer", 3},
    {"ease_in_quad", 3},
    {"ease_out_quad", 3},
    {"ease_in_out_quad", 3},
    {"ease_in_cubic", 3},
    {"ease_out_cubic", 3},
    {"ease_in_out_cubic", 3},
    {"ease_in_quart", 3},
    {"ease_out_quart", 3},
    {"ease_in_out_quart", 3},
    {"ease_in_quint", 3},
    {"ease_out_quint", 3},
    {"ease_in_out_quint", 3},
    {"ease_in_sine", 3},
    {"ease_out_sine", 3},
    {"ease_in_out_sine", 3},
    {"ease_in_circ", 3},
    {"ease_out_circ", 3},
    {"ease_in_out_circ", 3},
    {"ease_in_expo", 3},
    {"ease_out_expo", 3},
    {"ease_in_out_expo", 3},
    {"ease_in_back", 3},
    {"ease_out_back", 3},
    {"ease_in_out_back", 3},
    {"ease_in_elastic", 3},
    {"ease_out_elastic", 3},
    {"ease_in_out_elastic", 3},
    {"ease_in_bounce", 3},
    {"ease_out_bounce", 3},
    {"ease_in_out_bounce", 3},
    {"pi", 0},
}};

constexpr double inf = std::numeric_limits<double>::infinity();

} // namespace

std::string_view name(math_member m) noexcept {
  return members[static_cast<int>(m)].name;
}

std::optional<math_member> find_math_member(std::string_view lower_name) noexcept {
  for (int i = 0; i < math_member_count; ++i) {
    if (members[i].name == lower_name) {
      return static_cast<math_member>(i);
    }
  }
  return std::nullopt;
}

int arity(math_member m) noexcept {
  return members[static_cast<int>(m)].arity;
}

bool is_random(math_member m) noexcept {
  return m == math_member::random || m == math_member::random_integer ||
         m == math_member::die_roll || m == math_member::die_roll_integer;
}

namespace math {

double abs(double x) noexcept {
  return std::fabs(x);
}
double acos(double x) noexcept {
  return std::acos(x) / radians_per_degree;
}
double asin(double x) noexcept {
  return std::asin(x) / radians_per_degree;
}
double atan(double x) noexcept {
  return std::atan(x) / radians_per_degree;
}
double atan2(double y, double x) noexcept {
  return std::atan2(y, x) / radians_per_degree;
}
double sin(double degrees) noexcept {
  return std::sin(degrees * radians_per_degree);
}
double cos(double degrees) noexcept {
  return std::cos(degrees * radians_per_degree);
}
double ceil(double x) noexcept {
  return std::ceil(x);
}
double floor(double x) noexcept {
  return std::floor(x);
}

double round(double x) noexcept {
  // Java Math.round(double) then back to double: floor(x + 1/2) without its rounding error,
  // saturated to the long range; the long result has no negative zero.
  double r = std::floor(x);
  if (x - r >= 0.5) {
    r = r + 1;
  }
  constexpr double two63 = 9223372036854775808.0;
  if (r > two63) {
    r = two63;
  } else if (r < -two63) {
    r = -two63;
  }
  return r == 0 ? 0.0 : r;
}

double trunc(double x) noexcept {
  return x - std::fmod(x, 1.0);
}

double max(double a, double b) noexcept {
  if (a != a) {
    return a;
  }
  if (a == 0.0 && b == 0.0) {
    return std::signbit(a) ? b : a;
  }
  return a >= b ? a : b;
}

double min(double a, double b) noexcept {
  if (a != a) {
    return a;
  }
  if (a == 0.0 && b == 0.0) {
    return std::signbit(a) ? a : b;
  }
  return a <= b ? a : b;
}

double clamp(double v, double lo, double hi) noexcept {
  return max(lo, min(hi, v));
}
double copy_sign(double a, double b) noexcept {
  return std::copysign(a, b);
}
double exp(double x) noexcept {
  return std::exp(x);
}
double ln(double x) noexcept {
  return std::log(x);
}
double sqrt(double x) noexcept {
  return std::sqrt(x);
}
double pow(double b, double e) noexcept {
  return std::pow(b, e);
}
double hermite_blend(double t) noexcept {
  return t * t * (3 - 2 * t);
}
double lerp(double a, double b, double t) noexcept {
  return a + (b - a) * t;
}
double inverse_lerp(double a, double b, double v) noexcept {
  return (v - a) / (b - a);
}

double min_angle(double x) noexcept {
  double r = std::fmod(x, 360.0);
  if (r >= 180) {
    r = r - 360;
  } else if (r < -180) {
    r = r + 360;
  }
  return r;
}

double lerprotate(double a, double b, double t) noexcept {
  return a + min_angle(b - a) * t;
}
double mod(double x, double d) noexcept {
  return std::fmod(x, d);
}
double sign(double x) noexcept {
  return x > 0 ? 1.0 : -1.0;
}

namespace {
double bounce_out(double x) noexcept {
  constexpr double k = 7.5625;
  if (x < 1 / 2.75) {
    return k * x * x;
  }
  if (x < 2 / 2.75) {
    const double y = x - 1.5 / 2.75;
    return k * y * y + 0.75;
  }
  if (x < 2.5 / 2.75) {
    const double y = x - 2.25 / 2.75;
    return k * y * y + 0.9375;
  }
  const double y = x - 2.625 / 2.75;
  return k * y * y + 0.984375;
}
} // namespace

double ease_curve(ease_family f, double t) noexcept {
  switch (f) {
  case ease_family::quad:
    return t * t;
  case ease_family::cubic:
    return t * t * t;
  case ease_family::quart:
    return t * t * t * t;
  case ease_family::quint:
    return t * t * t * t * t;
  case ease_family::sine:
    return 1 - std::cos(t * pi / 2);
  case ease_family::circ:
    return 1 - std::sqrt(1 - t * t);
  case ease_family::expo:
    return t == 0 ? 0.0 : std::pow(2.0, 10 * (t - 1));
  case ease_family::back: {
    constexpr double s = 1.70158;
    return t * t * ((s + 1) * t - s);
  }
  case ease_family::elastic: {
    if (t == 0 || t == 1) {
      return t;
    }
    constexpr double p = 0.3;
    const double u = t - 1;
    return -std::pow(2.0, 10 * u) * std::sin((u - p / 4) * 2 * pi / p);
  }
  case ease_family::bounce:
    return 1 - bounce_out(1 - t);
  }
  return 0;
}

double ease(ease_family f, ease_form form, double a, double b, double t) noexcept {
  switch (form) {
  case ease_form::in:
    return lerp(a, b, ease_curve(f, t));
  case ease_form::out:
    return lerp(a, b, 1 - ease_curve(f, 1 - t));
  case ease_form::in_out:
    return lerp(a, b, t < 0.5 ? ease_curve(f, t * 2) / 2 : 1 - ease_curve(f, (1 - t) * 2) / 2);
  }
  return 0;
}

} // namespace math

// ---- conversions ------------------------------------------------------------------------------

float to_f32(double x) noexcept {
  // Values at or beyond FLT_MAX + half an ulp round to infinity; converting them directly would
  // be undefined behaviour in C++.
  constexpr double overflow = 0x1.ffffffp127;
  if (x >= overflow) {
    return std::numeric_limits<float>::infinity();
  }
  if (x <= -overflow) {
    return -std::numeric_limits<float>::infinity();
  }
  return static_cast<float>(x);
}

std::int64_t java_i64(double x) noexcept {
  if (x != x) {
    return 0;
  }
  if (x >= 9223372036854775808.0) {
    return std::numeric_limits<std::int64_t>::max();
  }
  if (x <= -9223372036854775808.0) {
    return std::numeric_limits<std::int64_t>::min();
  }
  return static_cast<std::int64_t>(x);
}

std::int32_t java_i32(double x) noexcept {
  if (x != x) {
    return 0;
  }
  if (x >= 2147483647.0) {
    return std::numeric_limits<std::int32_t>::max();
  }
  if (x <= -2147483648.0) {
    return std::numeric_limits<std::int32_t>::min();
  }
  return static_cast<std::int32_t>(x);
}

double java_ulp(double x) noexcept {
  x = std::fabs(x);
  if (x != x || x == inf) {
    return x;
  }
  if (x < std::numeric_limits<double>::min()) {
    return std::numeric_limits<double>::denorm_min();
  }
  return std::ldexp(1.0, std::ilogb(x) - 52);
}

int loop_count(double c) noexcept {
  const float f = to_f32(c);
  if (f != f) {
    return 0;
  }
  // Math.round(float) = floor(f + 1/2) computed exactly; in double the sum is exact for every
  // float that is not already an integer.
  const double r = std::floor(static_cast<double>(f) + 0.5);
  if (r <= 0) {
    return 0;
  }
  if (r >= 1024) {
    return 1024;
  }
  return static_cast<int>(r);
}

// ---- random primitives ------------------------------------------------------------------------

namespace random {

double unit(core::java_random& g) noexcept {
  return g.next_double();
}
std::int64_t bits64(core::java_random& g) noexcept {
  return g.next_long();
}

double uniform(core::java_random& g, double lo, double hi) noexcept {
  double bound = std::nextafter(hi, inf);
  if (bound == inf) {
    bound = hi;
  }
  const double u = unit(g);
  double r;
  if (bound - lo < inf) {
    r = u * (bound - lo) + lo;
  } else {
    const double half_lo = 0.5 * lo;
    r = (u * (0.5 * bound - half_lo) + half_lo) * 2.0;
  }
  if (r >= bound) {
    r = std::nextafter(bound, -inf);
  }
  return r;
}

double between(core::java_random& g, std::int64_t f, std::int64_t l) noexcept {
  if (l == std::numeric_limits<std::int64_t>::max()) {
    const double u = unit(g);
    const double dl = static_cast<double>(l);
    const double df = static_cast<double>(f);
    return std::min(dl, df + std::floor(u * ((dl - df) + 1)));
  }
  // Random.nextLong(f, l + 1) (RandomSupport.boundedNextLong), in wrapping 64-bit arithmetic.
  const auto uf = static_cast<std::uint64_t>(f);
  const std::uint64_t n = static_cast<std::uint64_t>(l) + 1 - uf;
  const std::uint64_t m = n - 1;
  auto r = static_cast<std::uint64_t>(bits64(g));
  if ((n & m) == 0) {
    r = (r & m) + uf;
  } else if (static_cast<std::int64_t>(n) > 0) {
    std::uint64_t w = r >> 1;
    while (static_cast<std::int64_t>(w + m - (w % n)) < 0) {
      w = static_cast<std::uint64_t>(bits64(g)) >> 1;
    }
    r = (w % n) + uf;
  } else {
    while (static_cast<std::int64_t>(r) < f || static_cast<std::int64_t>(r) > l) {
      r = static_cast<std::uint64_t>(bits64(g));
    }
  }
  return static_cast<double>(static_cast<std::int64_t>(r));
}

double random(core::java_random& g, double lo, double hi) noexcept {
  if (lo < hi) {
    return uniform(g, lo, hi);
  }
  return lo == hi ? lo : 0.0;
}

namespace {
struct int_range {
  std::int64_t f;
  std::int64_t l;
};
int_range integer_range(double lo, double hi) noexcept {
  return {java_i64(std::ceil(lo)), java_i64(std::floor(hi))};
}
} // namespace

double random_integer(core::java_random& g, double lo, double hi) noexcept {
  const auto [f, l] = integer_range(lo, hi);
  if (f > l) {
    return 0.0;
  }
  if (f == l) {
    return static_cast<double>(f);
  }
  return between(g, f, l);
}

std::int64_t rolls(double n) noexcept {
  if (!(n > 0)) {
    return 0;
  }
  const double c = std::ceil(n);
  return c >= 2147483647.0 ? 2147483647 : static_cast<std::int64_t>(c);
}

double die_roll(core::java_random& g, double n, double lo, double hi,
                draw_budget& budget) noexcept {
  const std::int64_t k = rolls(n);
  if (lo < hi) {
    double sum = 0.0;
    for (std::int64_t i = 0; i < k; ++i) {
      if (!budget.charge()) {
        return std::numeric_limits<double>::quiet_NaN();
      }
      sum = sum + uniform(g, lo, hi);
    }
    return sum;
  }
  if (lo == hi) {
    return lo * static_cast<double>(k);
  }
  return 0.0;
}

double die_roll_integer(core::java_random& g, double n, double lo, double hi,
                        draw_budget& budget) noexcept {
  const std::int64_t k = rolls(n);
  const auto [f, l] = integer_range(lo, hi);
  if (k == 0 || f > l) {
    return 0.0; // every term is 0 and draws nothing
  }
  if (f == l) {
    return repeated_sum(static_cast<double>(f), static_cast<std::uint64_t>(k));
  }
  double sum = 0.0;
  for (std::int64_t i = 0; i < k; ++i) {
    if (!budget.charge()) {
      return std::numeric_limits<double>::quiet_NaN();
    }
    sum = sum + between(g, f, l);
  }
  return sum;
}

namespace {
__extension__ typedef unsigned __int128 u128;

int bit_length(u128 x) noexcept {
  int n = 0;
  while (x != 0) {
    x >>= 1;
    ++n;
  }
  return n;
}

/// Round a non-negative integer to 53 significant bits, ties to even (binary64 addition).
u128 round53(u128 x) noexcept {
  const int b = bit_length(x);
  if (b <= 53) {
    return x;
  }
  const int sh = b - 53;
  u128 q = x >> sh;
  const u128 r = x & ((u128{1} << sh) - 1);
  const u128 half = u128{1} << (sh - 1);
  if (r > half || (r == half && (q & 1) != 0)) {
    ++q;
  }
  return q << sh;
}
} // namespace

double repeated_sum(double c, std::uint64_t k) noexcept {
  if (k == 0) {
    return 0.0;
  }
  if (c == 0 || c - c != 0) {
    return 0.0 + c; // 0, NaN and ±inf are fixed points of the loop
  }
  const bool negative = c < 0;
  // |c| = M * 2^e with M an odd integer; every partial sum is a multiple of 2^e (rounding only
  // coarsens the grid), so the sums are exact integers in units of 2^e.
  int e = 0;
  const double m = std::frexp(std::fabs(c), &e);
  auto units = static_cast<std::uint64_t>(std::ldexp(m, 53));
  e -= 53;
  while ((units & 1) == 0) {
    units >>= 1;
    ++e;
  }
  const u128 step = units;
  u128 s = 0;
  std::uint64_t left = k;
  while (left > 0) {
    s = round53(s + step);
    --left;
    if (left == 0) {
      break;
    }
    // Inside one binade (ulp fixed) the increment becomes constant once two consecutive
    // increments agree (ties to even settle after one step), so jump over the rest of it.
    const int b = bit_length(s);
    const u128 ulp = b <= 53 ? u128{1} : u128{1} << (b - 53);
    const u128 top = b <= 53 ? u128{1} << 53 : u128{1} << b;
    const u128 d1 = round53(s + step) - s;
    if (d1 == 0) {
      break; // the sum no longer moves
    }
    if (s + step + ulp >= top) {
      continue;
    }
    const u128 d2 = round53(s + d1 + step) - (s + d1);
    if (d1 != d2) {
      continue;
    }
    u128 j = (top - ulp - 1 - step - s) / d1 + 1;
    if (j > left) {
      j = left;
    }
    s += j * d1;
    left -= static_cast<std::uint64_t>(j);
  }
  const double magnitude = std::ldexp(static_cast<double>(s), e);
  return negative ? -magnitude : magnitude;
}

} // namespace random

} // namespace emote::molang
