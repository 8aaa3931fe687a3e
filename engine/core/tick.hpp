#pragma once
// A strong tick type: engine time is counted in whole server ticks (20 per second), never in
// milliseconds or seconds, so the two cannot mix silently.

#include <compare>
#include <cstdint>

namespace emote::core {

class ticks {
public:
  using rep = std::int64_t;
  static constexpr rep per_second = 20;

  constexpr ticks() noexcept = default;
  constexpr explicit ticks(rep count) noexcept : count_(count) {}

  [[nodiscard]] constexpr rep count() const noexcept { return count_; }
  /// Seconds as the Molang queries see them (t / 20).
  [[nodiscard]] constexpr double seconds() const noexcept {
    return static_cast<double>(count_) / static_cast<double>(per_second);
  }

  constexpr auto operator<=>(const ticks&) const noexcept = default;

  constexpr ticks& operator+=(ticks o) noexcept { count_ += o.count_; return *this; }
  constexpr ticks& operator-=(ticks o) noexcept { count_ -= o.count_; return *this; }
  constexpr ticks& operator++() noexcept { ++count_; return *this; }
  friend constexpr ticks operator+(ticks a, ticks b) noexcept { return ticks(a.count_ + b.count_); }
  friend constexpr ticks operator-(ticks a, ticks b) noexcept { return ticks(a.count_ - b.count_); }

private:
  rep count_ = 0;
};

/// The engine's tick counter (T in players.md): 0 at engine start, +1 per tick.
using tick_number = std::int64_t;

} // namespace emote::core
