// The math library and random primitives as plain functions (molang.md §4), with the edge cases
// the spec names: round ties, sign(0), mod of negatives, signed zeros, Java max/min, easing
// families, the generator-driven functions and their draw counts.
#include "engine/molang/math_functions.hpp"

#include "tests/molang/support.hpp"

#include <cmath>
#include <limits>
#include <vector>

using namespace molang_test;
using emote::core::java_random;

namespace {
constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan_value = std::numeric_limits<double>::quiet_NaN();
} // namespace

TEST_CASE("math member table: 61 names with their arities") {
  CHECK(math_member_count == 61);
  int functions = 0;
  for (int i = 0; i < math_member_count; ++i) {
    const auto m = static_cast<math_member>(i);
    CAPTURE(name(m));
    CHECK(find_math_member(name(m)) == m);
    if (m != math_member::pi) {
      CHECK(arity(m) >= 1);
      CHECK(arity(m) <= 3);
      ++functions;
    }
  }
  CHECK(functions == 60);
  CHECK(arity(math_member::atan2) == 2);
  CHECK(arity(math_member::die_roll_integer) == 3);
  CHECK(arity(math_member::ease_in_out_bounce) == 3);
  CHECK_FALSE(find_math_member("tan").has_value());
  CHECK_FALSE(find_math_member("e").has_value());
  CHECK_FALSE(find_math_member("Sin").has_value()); // lookups take lower-case names
}

TEST_CASE("round: floor-based, ties toward +inf, saturating, no negative zero") {
  CHECK(math::round(2.5) == 3);
  CHECK(math::round(-2.5) == -2);
  CHECK(math::round(-1.5) == -1);
  CHECK(math::round(0.5) == 1);
  CHECK(math::round(0.49999999999999994) == 0);
  CHECK(math::round(4503599627370497.0) == 4503599627370497.0); // 2^52 + 1 stays exact
  CHECK(same_bits(math::round(-0.4), 0.0));
  CHECK(same_bits(math::round(-0.0), 0.0));
  CHECK(math::round(1e300) == 9223372036854775808.0);
  CHECK(math::round(-1e300) == -9223372036854775808.0);
}

TEST_CASE("trunc, ceil, floor and signed zeros") {
  CHECK(same_bits(math::trunc(-0.5), 0.0));
  CHECK(math::trunc(-1.8) == -1);
  CHECK(math::trunc(1e20) == 1e20);
  CHECK(same_bits(math::ceil(-0.5), -0.0));
  CHECK(math::floor(-0.5) == -1);
  CHECK(std::isnan(math::trunc(inf))); // inf - fmod(inf, 1) is NaN; the evaluator normalises
}

TEST_CASE("sign, mod, min_angle, lerprotate") {
  CHECK(math::sign(0.0) == -1);
  CHECK(math::sign(-0.0) == -1);
  CHECK(math::sign(1e-300) == 1);
  CHECK(math::mod(-5, 3) == -2);
  CHECK(math::mod(5, -3) == 2);
  CHECK(same_bits(math::mod(-6, 3), -0.0));
  CHECK(std::isnan(math::mod(5, 0)));
  CHECK(math::min_angle(180) == -180);
  CHECK(math::min_angle(-180) == -180);
  CHECK(math::min_angle(-181) == 179);
  CHECK(math::min_angle(179.5) == 179.5);
  CHECK(math::min_angle(900) == -180);
  CHECK(math::lerprotate(350, 10, 0.5) == 360);
}

TEST_CASE("Java max/min order -0.0 below +0.0") {
  CHECK(same_bits(math::max(-0.0, 0.0), 0.0));
  CHECK(same_bits(math::max(0.0, -0.0), 0.0));
  CHECK(same_bits(math::min(0.0, -0.0), -0.0));
  CHECK(same_bits(math::min(-0.0, 0.0), -0.0));
  CHECK(std::isnan(math::max(nan_value, 1)));
  CHECK(std::isnan(math::min(1, nan_value)));
  CHECK(math::clamp(-1, 0, 10) == 0);
  CHECK(math::clamp(5, 10, 0) == 10); // jmax(lo, jmin(hi, v))
  CHECK(same_bits(math::clamp(-0.0, 0.0, 1.0), 0.0));
}

TEST_CASE("copy_sign uses the sign bit; abs clears it") {
  CHECK(math::copy_sign(2, -0.0) == -2);
  CHECK(math::copy_sign(-2, 0.0) == 2);
  CHECK(same_bits(math::abs(-0.0), 0.0));
}

TEST_CASE("degrees: R = pi / 180 divides, sin/cos multiply") {
  CHECK(math::radians_per_degree == 3.141592653589793 / 180.0);
  CHECK(math::asin(1) == std::asin(1.0) / (3.141592653589793 / 180.0));
  CHECK(math::sin(90) == std::sin(90 * (3.141592653589793 / 180.0)));
  CHECK(math::atan2(-1, -1) == doctest::Approx(-135).epsilon(1e-12));
}

TEST_CASE("blends keep their written operation order") {
  CHECK(math::hermite_blend(0.3) == 0.3 * 0.3 * (3 - 2 * 0.3));
  CHECK(math::lerp(1e16, 1, 1) == 1e16 + (1 - 1e16) * 1);
  CHECK(std::isinf(math::inverse_lerp(2, 2, 3)));
  CHECK(std::isnan(math::inverse_lerp(2, 2, 2)));
}

TEST_CASE("easing curves of molang.md §4.1") {
  const double t = 0.3;
  CHECK(math::ease_curve(ease_family::quad, t) == t * t);
  CHECK(math::ease_curve(ease_family::cubic, t) == t * t * t);
  CHECK(math::ease_curve(ease_family::quart, t) == t * t * t * t);
  CHECK(math::ease_curve(ease_family::quint, t) == t * t * t * t * t);
  CHECK(math::ease_curve(ease_family::sine, t) == 1 - std::cos(t * math::pi / 2));
  CHECK(math::ease_curve(ease_family::circ, t) == 1 - std::sqrt(1 - t * t));
  CHECK(math::ease_curve(ease_family::expo, 0) == 0);
  CHECK(math::ease_curve(ease_family::expo, t) == std::pow(2.0, 10 * (t - 1)));
  CHECK(math::ease_curve(ease_family::back, t) == t * t * ((1.70158 + 1) * t - 1.70158));
  CHECK(math::ease_curve(ease_family::elastic, 0) == 0);
  CHECK(math::ease_curve(ease_family::elastic, 1) == 1);
  CHECK(math::ease_curve(ease_family::elastic, t) ==
        -std::pow(2.0, 10 * (t - 1)) * std::sin(((t - 1) - 0.3 / 4) * 2 * math::pi / 0.3));
  // bounce: E(t) = 1 - B(1 - t) with the four pieces of B.
  CHECK(math::ease_curve(ease_family::bounce, 0.75) == 1 - 7.5625 * 0.25 * 0.25);
  const double y2 = 0.5 - 1.5 / 2.75;
  CHECK(math::ease_curve(ease_family::bounce, 0.5) == 1 - (7.5625 * y2 * y2 + 0.75));
  const double y3 = 0.75 - 2.25 / 2.75;
  CHECK(math::ease_curve(ease_family::bounce, 0.25) == 1 - (7.5625 * y3 * y3 + 0.9375));
  const double y4 = 0.9375 - 2.625 / 2.75;
  CHECK(math::ease_curve(ease_family::bounce, 0.0625) == 1 - (7.5625 * y4 * y4 + 0.984375));
  // The three forms.
  CHECK(math::ease(ease_family::quad, ease_form::in, 2, 6, t) == math::lerp(2, 6, t * t));
  CHECK(math::ease(ease_family::quad, ease_form::out, 2, 6, t) ==
        math::lerp(2, 6, 1 - (1 - t) * (1 - t)));
  CHECK(math::ease(ease_family::cubic, ease_form::in_out, 2, 6, 0.25) ==
        math::lerp(2, 6, (0.5 * 0.5 * 0.5) / 2));
  CHECK(math::ease(ease_family::cubic, ease_form::in_out, 2, 6, 0.75) ==
        math::lerp(2, 6, 1 - (0.5 * 0.5 * 0.5) / 2));
  // Nothing is clamped: t outside [0, 1] extrapolates.
  CHECK(math::ease(ease_family::quad, ease_form::in, 0, 1, 2) == 4);
}

TEST_CASE("Java conversions") {
  CHECK(java_i64(nan_value) == 0);
  CHECK(java_i64(1e30) == std::numeric_limits<std::int64_t>::max());
  CHECK(java_i64(-1e30) == std::numeric_limits<std::int64_t>::min());
  CHECK(java_i64(-2.9) == -2);
  CHECK(java_i32(3e9) == std::numeric_limits<std::int32_t>::max());
  CHECK(java_i32(-0.9) == 0);
  CHECK(std::isinf(to_f32(1e300)));
  CHECK(to_f32(0x1.fffffefp127) == std::numeric_limits<float>::max()); // rounds down
  CHECK(std::isinf(to_f32(0x1.ffffffp127)));                           // the tie rounds up
  CHECK(java_ulp(1.0) == std::ldexp(1.0, -52));
  CHECK(java_ulp(-3.0) == std::ldexp(1.0, -51));
  CHECK(java_ulp(0.0) == std::numeric_limits<double>::denorm_min());
  CHECK(java_ulp(std::numeric_limits<double>::denorm_min()) ==
        std::numeric_limits<double>::denorm_min());
  CHECK(java_ulp(0.3) == 5.551115123125783e-17);
}

TEST_CASE("loop counts: Math.round of the binary32 value, clamped to 0..1024") {
  CHECK(loop_count(2.5) == 3);
  CHECK(loop_count(-0.5) == 0);
  CHECK(loop_count(2.4999999999) == 3); // f32(2.4999999999) = 2.5
  CHECK(loop_count(2.49999) == 2);
  CHECK(loop_count(0.49999997) == 0);
  CHECK(loop_count(1024.4) == 1024);
  CHECK(loop_count(1e300) == 1024);
  CHECK(loop_count(-1e300) == 0);
  CHECK(loop_count(3) == 3);
}

TEST_CASE("normalize maps NaN and infinities to +0.0 and keeps -0.0") {
  CHECK(same_bits(normalize(nan_value), 0.0));
  CHECK(same_bits(normalize(inf), 0.0));
  CHECK(same_bits(normalize(-inf), 0.0));
  CHECK(same_bits(normalize(-0.0), -0.0));
  CHECK(normalize(1.5) == 1.5);
}

// ---- random primitives -------------------------------------------------------------------------

TEST_CASE("uniform is Random.nextDouble(lo, nextUp(hi))") {
  java_random a(42), b(42);
  const double u = b.next_double();
  const double bound = std::nextafter(1.0, 2.0);
  CHECK(random::uniform(a, 0, 1) == u * (bound - 0) + 0);
  // A span beyond the double range uses the halved formula.
  java_random c(5), d(5);
  const double big = std::numeric_limits<double>::max();
  const double r = random::uniform(c, -big, big);
  const double v = d.next_double();
  CHECK(r == (v * (0.5 * big - 0.5 * -big) + 0.5 * -big) * 2.0);
  CHECK(std::isfinite(r));
}

TEST_CASE("random draws nothing for empty or single-point ranges") {
  java_random g(42);
  const auto before = g.state();
  CHECK(random::random(g, 3, 3) == 3);
  CHECK(random::random(g, 5, 2) == 0);
  CHECK(random::random_integer(g, 3, 0) == 0);
  CHECK(random::random_integer(g, 2.2, 2.8) == 0); // ceil 3 > floor 2
  CHECK(random::random_integer(g, 2, 2.8) == 2);
  CHECK(g.state() == before);
}

TEST_CASE("between: power-of-two ranges mask, others reject, huge ranges redraw") {
  // n = 4 (power of two): (L() & 3) + f.
  java_random a(9), b(9);
  const auto l = b.next_long();
  CHECK(random::between(a, 10, 13) == static_cast<double>((l & 3) + 10));
  // n = 6: (L() >>> 1) mod 6 + f (the first draw is accepted unless it lands in the tail).
  java_random c(42), d(42);
  const auto w = static_cast<std::uint64_t>(d.next_long()) >> 1;
  CHECK(random::between(c, 1, 6) == static_cast<double>(w % 6 + 1));
  // n <= 0 (range wider than 2^63): draw until inside.
  java_random e(3);
  for (int i = 0; i < 100; ++i) {
    const double r = random::between(e, std::numeric_limits<std::int64_t>::min() + 5,
                                     std::numeric_limits<std::int64_t>::max() - 5);
    CHECK(r >= -9223372036854775808.0);
    CHECK(r <= 9223372036854775807.0);
  }
  // l = 2^63 - 1 uses one D() in double arithmetic.
  java_random f(11), g(11);
  const double u = g.next_double();
  const double dl = 9223372036854775807.0;
  CHECK(random::between(f, 0, std::numeric_limits<std::int64_t>::max()) ==
        std::min(dl, 0.0 + std::floor(u * ((dl - 0.0) + 1))));
  CHECK(f.state() == g.state());
}

TEST_CASE("random_integer: both ends included, ceil/floor of the bounds") {
  java_random g(1);
  bool saw_low = false, saw_high = false;
  for (int i = 0; i < 400; ++i) {
    const double r = random::random_integer(g, 0, 3);
    CHECK(r >= 0);
    CHECK(r <= 3);
    CHECK(r == std::floor(r));
    saw_low = saw_low || r == 0;
    saw_high = saw_high || r == 3;
  }
  CHECK(saw_low);
  CHECK(saw_high);
  java_random h(2);
  for (int i = 0; i < 100; ++i) {
    const double r = random::random_integer(h, -1.5, 1.5);
    CHECK(r >= -1);
    CHECK(r <= 1);
  }
}

TEST_CASE("rolls: ceil, capped at 2^31 - 1, zero for non-positive counts") {
  CHECK(random::rolls(1.2) == 2);
  CHECK(random::rolls(3) == 3);
  CHECK(random::rolls(0) == 0);
  CHECK(random::rolls(-4) == 0);
  CHECK(random::rolls(0.0001) == 1);
  CHECK(random::rolls(1e12) == 2147483647);
}

TEST_CASE("die_roll sums uniform draws in order and charges each one") {
  java_random a(42), b(42);
  draw_budget budget;
  const double r = random::die_roll(a, 3, 1, 6, budget);
  double expect = 0.0;
  for (int i = 0; i < 3; ++i) {
    expect = expect + random::uniform(b, 1, 6);
  }
  CHECK(r == expect);
  CHECK(budget.used == 3);
  CHECK(random::die_roll(a, 2.5, 4, 4, budget) == 12); // lo == hi: lo * rolls, no draws
  CHECK(same_bits(random::die_roll(a, 2, -4, -4, budget), -8.0));
  CHECK(same_bits(random::die_roll(a, 0, -4, -4, budget), -0.0)); // -4 * 0
  CHECK(random::die_roll(a, 2, 6, 1, budget) == 0);
  CHECK(budget.used == 3);
}

TEST_CASE("die_roll_integer sums random_integer terms; the budget stops huge counts") {
  java_random a(42), b(42);
  draw_budget budget;
  const double r = random::die_roll_integer(a, 3, 1, 6, budget);
  double expect = 0.0;
  for (int i = 0; i < 3; ++i) {
    expect = expect + random::random_integer(b, 1, 6);
  }
  CHECK(r == expect);
  CHECK(budget.used == 3);
  draw_budget small;
  small.limit = 10;
  java_random c(1);
  CHECK(std::isnan(random::die_roll_integer(c, 11, 1, 6, small)));
  CHECK(small.exceeded);
  // Terms that draw nothing are not charged: 2^31 - 1 copies of 3, summed exactly.
  draw_budget none;
  java_random d(1);
  const auto before = d.state();
  CHECK(random::die_roll_integer(d, 1e12, 3, 3, none) == 3.0 * 2147483647.0);
  CHECK(none.used == 0);
  CHECK(d.state() == before);
}

TEST_CASE("repeated_sum is bit-identical to the addition loop") {
  const auto brute = [](double c, std::uint64_t k) {
    double s = 0.0;
    for (std::uint64_t i = 0; i < k; ++i) {
      s = s + c;
    }
    return s;
  };
  const double values[] = {1,
                           3,
                           -7,
                           4194305,
                           9007199254740993.0,
                           123456789012345678.0,
                           -987654321098765432.0,
                           4611686018427387904.0 + 1024,
                           9223372036854775807.0,
                           6004799503160661.0,
                           0.1,
                           1e-300,
                           1e300,
                           3.0000000000000004};
  const std::uint64_t counts[] = {0, 1, 2, 3, 7, 100, 4097, 65537, 300001};
  for (const double c : values) {
    for (const std::uint64_t k : counts) {
      CAPTURE(c);
      CAPTURE(k);
      CHECK(same_bits(random::repeated_sum(c, k), brute(c, k)));
    }
  }
  // Random integer-valued terms with many binade crossings.
  java_random g(77);
  for (int i = 0; i < 200; ++i) {
    const double c = std::ldexp(static_cast<double>(g.next_long() >> 11), g.next_int(20));
    const auto k = static_cast<std::uint64_t>(g.next_int(20000));
    CAPTURE(c);
    CAPTURE(k);
    CHECK(same_bits(random::repeated_sum(c, k), brute(c, k)));
  }
  CHECK(same_bits(random::repeated_sum(0.0, 5), 0.0));
  CHECK(same_bits(random::repeated_sum(-0.0, 5), 0.0));
}
