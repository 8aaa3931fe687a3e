#pragma once
// What the stress modes (server/stress/stress.hpp, stress_populated.hpp) and their command line
// share: the monotonic clock of their samples, the report's number formats and argument parsing.

#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string_view>

namespace emote::server::stress_common {

/// Nanoseconds on the monotonic clock.
inline std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

inline double ms_between(std::int64_t a, std::int64_t b) {
  return static_cast<double>(b - a) / 1e6;
}

/// A report figure rounded to three decimals.
inline double round3(double v) {
  return std::round(v * 1000.0) / 1000.0;
}

/// A checksum as the reports print it: 16 lower-case hex digits.
inline std::array<char, 17> checksum_hex(std::uint64_t c) {
  std::array<char, 17> hex{};
  std::snprintf(hex.data(), hex.size(), "%016llx", static_cast<unsigned long long>(c));
  return hex;
}

/// The whole of `text` as a number of type T; false (and `out` untouched) otherwise.
template <class T>
bool parse_number(std::string_view text, T& out) {
  T v{};
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || p != text.data() + text.size()) {
    return false;
  }
  out = v;
  return true;
}

} // namespace emote::server::stress_common
