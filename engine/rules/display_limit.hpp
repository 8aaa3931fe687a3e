#pragma once
// The display limit of players.md §8.1 (config `max_active_display_entities`, 0 = unlimited).

#include <cstdint>

namespace emote::rules {

inline constexpr std::int64_t default_display_limit = 512;
inline constexpr std::int64_t max_display_limit = 1048576;

/// `projected = active − replaced + new`: `active` counts the displays of every registered
/// session plus the running stress test, `replaced` those of the player's current session (0 if
/// none), `added` the new emote's (a Sequence's compiled node union with partner copies).
constexpr std::int64_t projected_displays(std::int64_t active, std::int64_t replaced,
                                          std::int64_t added) noexcept {
  return active - replaced + added;
}

/// Refused iff `limit > 0 ∧ projected > limit`; reaching the limit exactly is allowed.
constexpr bool display_limit_allows(std::int64_t limit, std::int64_t projected) noexcept {
  return !(limit > 0 && projected > limit);
}

} // namespace emote::rules
