#pragma once
// A java.util.Random-compatible generator (48-bit LCG), bit-exact with Java's for setSeed, next,
// nextInt, nextInt(bound), nextLong and nextDouble (playback.md §3.1, molang.md §4.2).

#include <cstdint>

namespace emote::core {

class java_random {
public:
  static constexpr std::uint64_t multiplier = 0x5DEECE66DULL;
  static constexpr std::uint64_t addend = 0xBULL;
  static constexpr std::uint64_t mask = (1ULL << 48) - 1;

  explicit java_random(std::int64_t seed = 0) noexcept { set_seed(seed); }

  void set_seed(std::int64_t seed) noexcept {
    state_ = (static_cast<std::uint64_t>(seed) ^ multiplier) & mask;
  }

  /// Java's protected next(bits), 1 <= bits <= 32: the top `bits` of the new state, as int32.
  std::int32_t next(int bits) noexcept {
    state_ = (state_ * multiplier + addend) & mask;
    return static_cast<std::int32_t>(static_cast<std::int64_t>(state_) >> (48 - bits));
  }

  std::int32_t next_int() noexcept { return next(32); }

  /// nextInt(bound) for bound >= 1 (callers guarantee it).
  std::int32_t next_int(std::int32_t bound) noexcept {
    std::int32_t r = next(31);
    const std::int32_t m = bound - 1;
    if ((bound & m) == 0) {
      return static_cast<std::int32_t>((static_cast<std::int64_t>(bound) * r) >> 31);
    }
    for (std::int32_t u = r;; u = next(31)) {
      r = u % bound;
      // int32(u - r + m) >= 0 with 32-bit wrap-around.
      const auto sum = static_cast<std::uint32_t>(u) - static_cast<std::uint32_t>(r) +
                       static_cast<std::uint32_t>(m);
      if (static_cast<std::int32_t>(sum) >= 0) {
        return r;
      }
    }
  }

  std::int64_t next_long() noexcept {
    const auto hi = static_cast<std::int64_t>(next(32));
    const auto lo = static_cast<std::int64_t>(next(32));
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(hi) << 32) + lo;
  }

  /// (next(26) * 2^27 + next(27)) * 2^-53.
  double next_double() noexcept {
    const auto a = static_cast<std::int64_t>(next(26));
    const auto b = static_cast<std::int64_t>(next(27));
    return static_cast<double>((a << 27) + b) * 0x1.0p-53;
  }

  [[nodiscard]] std::uint64_t state() const noexcept { return state_; }

private:
  std::uint64_t state_ = 0;
};

} // namespace emote::core
