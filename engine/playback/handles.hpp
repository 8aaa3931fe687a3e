#pragma once
// Display handle ids (playback.md §4.1): positive integers, the smallest ids not held first.

#include "engine/api/types.hpp"
#include "engine/core/state_digest.hpp"

#include <cstdint>
#include <set>
#include <span>
#include <vector>

namespace emote::playback {

class handle_pool {
public:
  /// Append the `n` smallest ids not held, ascending, and hold them.
  void acquire(std::size_t n, std::vector<api::handle_id>& out);
  /// Return ids to the pool (after the frame of the tick in which their playback ended).
  void release(std::span<const api::handle_id> ids);
  /// Number of ids held.
  [[nodiscard]] std::size_t held() const noexcept { return held_; }
  /// The next new id, the released ones below it and the count held (protocol.md §8).
  void describe(core::state_sink& s) const;

private:
  std::set<api::handle_id> free_; ///< released ids below next_
  api::handle_id next_ = 1;
  std::size_t held_ = 0;
};

/// Start admission (playback.md §4.1): projected = active − replaced + own; refused iff the
/// limit is > 0 and projected exceeds it.
[[nodiscard]] constexpr bool admit_display_start(std::int64_t active, std::int64_t replaced,
                                                 std::int64_t own, std::int64_t limit) noexcept {
  const std::int64_t projected = active - replaced + own;
  return !(limit > 0 && projected > limit);
}

} // namespace emote::playback
