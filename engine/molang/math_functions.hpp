#pragma once
// The `math` namespace (molang.md §4): the 60 functions and `pi`, as plain functions on doubles,
// plus the random primitives of §4.2 drawing from a java.util.Random-compatible generator.
// Results are the raw IEEE results; the evaluator normalises them (NaN, ±inf -> +0.0).

#include "engine/core/java_random.hpp"

#include <cstdint>
#include <optional>
#include <string_view>

namespace emote::molang {

/// Every `math` member. `pi` is a number, the others are functions of fixed arity.
enum class math_member : std::uint8_t {
  abs,
  acos,
  asin,
  atan,
  atan2,
  sin,
  cos,
  ceil,
  floor,
  round,
  trunc,
  clamp,
  copy_sign,
  exp,
  ln,
  sqrt,
  pow,
  hermite_blend,
  lerp,
  inverse_lerp,
  min_angle,
  lerprotate,
  max,
  min,
  mod,
  sign,
  random,
  random_integer,
  die_roll,
  die_roll_integer,
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
  ease_in_sine,
  ease_out_sine,
  ease_in_out_sine,
  ease_in_circ,
  ease_out_circ,
  ease_in_out_circ,
  ease_in_expo,
  ease_out_expo,
  ease_in_out_expo,
  ease_in_back,
  ease_out_back,
  ease_in_out_back,
  ease_in_elastic,
  ease_out_elastic,
  ease_in_out_elastic,
  ease_in_bounce,
  ease_out_bounce,
  ease_in_out_bounce,
  pi,
};
inline constexpr int math_member_count = static_cast<int>(math_member::pi) + 1;

/// Lower-case name as written after `math.`.
std::string_view name(math_member m) noexcept;
/// Look up a lower-case member name.
std::optional<math_member> find_math_member(std::string_view lower_name) noexcept;
/// Number of arguments a function takes (0 for `pi`, which is not a function).
int arity(math_member m) noexcept;
/// True for the random functions (they draw from the generator).
bool is_random(math_member m) noexcept;

/// The easing curve families and their three forms (molang.md §4.1).
enum class ease_family : std::uint8_t {
  quad,
  cubic,
  quart,
  quint,
  sine,
  circ,
  expo,
  back,
  elastic,
  bounce
};
enum class ease_form : std::uint8_t { in, out, in_out };

namespace math {

inline constexpr double pi = 3.141592653589793;
/// R = π / 180 in double.
inline constexpr double radians_per_degree = pi / 180.0;

double abs(double x) noexcept;
double acos(double x) noexcept;
double asin(double x) noexcept;
double atan(double x) noexcept;
double atan2(double y, double x) noexcept;
double sin(double degrees) noexcept;
double cos(double degrees) noexcept;
double ceil(double x) noexcept;
double floor(double x) noexcept;
double round(double x) noexcept;
double trunc(double x) noexcept;
double clamp(double v, double lo, double hi) noexcept;
double copy_sign(double a, double b) noexcept;
double exp(double x) noexcept;
double ln(double x) noexcept;
double sqrt(double x) noexcept;
double pow(double b, double e) noexcept;
double hermite_blend(double t) noexcept;
double lerp(double a, double b, double t) noexcept;
double inverse_lerp(double a, double b, double v) noexcept;
double min_angle(double x) noexcept;
double lerprotate(double a, double b, double t) noexcept;
double max(double a, double b) noexcept; ///< Java Math.max (-0.0 < +0.0)
double min(double a, double b) noexcept; ///< Java Math.min
double mod(double x, double d) noexcept;
double sign(double x) noexcept;
/// The curve E(t) of a family (radians, products left to right).
double ease_curve(ease_family f, double t) noexcept;
double ease(ease_family f, ease_form form, double a, double b, double t) noexcept;

} // namespace math

// ---- random primitives (molang.md §4.2) ---------------------------------------------------------

/// Counts loop iterations and die-roll draws of one evaluation against the run-time budget
/// (molang.md §6).
struct draw_budget {
  std::uint64_t used = 0;
  std::uint64_t limit = 1'000'000;
  bool exceeded = false;
  /// Charge one unit; false (and `exceeded`) once the limit is passed.
  bool charge() noexcept {
    if (++used > limit) {
      exceeded = true;
      return false;
    }
    return true;
  }
};

namespace random {

/// D() = (next(26) * 2^27 + next(27)) * 2^-53.
double unit(core::java_random& g) noexcept;
/// L() = (next(32) << 32) + next(32), wrapping.
std::int64_t bits64(core::java_random& g) noexcept;
/// uniform(lo, hi) for lo < hi: Java 17+ Random.nextDouble(lo, nextUp(hi)).
double uniform(core::java_random& g, double lo, double hi) noexcept;
/// between(f, l) for f < l: an integer in [f, l] (Java 17+ Random.nextLong(f, l + 1), or the
/// double formula when l = 2^63 - 1).
double between(core::java_random& g, std::int64_t f, std::int64_t l) noexcept;
/// math.random(lo, hi).
double random(core::java_random& g, double lo, double hi) noexcept;
/// math.random_integer(lo, hi), both ends included.
double random_integer(core::java_random& g, double lo, double hi) noexcept;
/// rolls(n) = n > 0 ? min(ceil(n), 2^31 - 1) : 0.
std::int64_t rolls(double n) noexcept;
/// math.die_roll(n, lo, hi); every draw is charged to `budget` (stops with NaN when exceeded).
double die_roll(core::java_random& g, double n, double lo, double hi, draw_budget& budget) noexcept;
/// math.die_roll_integer(n, lo, hi); every drawing term is charged to `budget`.
double die_roll_integer(core::java_random& g, double n, double lo, double hi,
                        draw_budget& budget) noexcept;
/// 0.0 + c + c + ... (k terms) in binary64, bit-identical to the loop but O(log) time.
double repeated_sum(double c, std::uint64_t k) noexcept;

} // namespace random

// ---- Java conversions used by the dialect -----------------------------------------------------

/// f32(x): round to binary32 (out-of-range values become ±inf as the hardware does).
float to_f32(double x) noexcept;
/// Java (long) cast: truncate toward zero, NaN -> 0, saturate.
std::int64_t java_i64(double x) noexcept;
/// Java (int) cast.
std::int32_t java_i32(double x) noexcept;
/// Java Math.ulp(double).
double java_ulp(double x) noexcept;
/// The loop count of `loop(c, body)`: clamp(Math.round((float) c), 0, 1024).
int loop_count(double c) noexcept;
/// NaN, ±inf -> +0.0; every other value (including -0.0) unchanged (molang.md §3.1).
inline double normalize(double x) noexcept {
  return (x - x == 0.0) ? x : 0.0; // x - x is NaN exactly for NaN and ±inf
}

} // namespace emote::molang
