#pragma once
// The realtime clock's schedule (protocol.md §11): tick k is due at start + k × period, on
// absolute deadlines so that late wake-ups never accumulate into drift. A tick that overruns
// makes the next one due at once; when the server is more than `max_behind` ticks late it skips
// the missed deadlines (the engine's tick counter is not affected, only the schedule).

#include <chrono>
#include <cstdint>

namespace emote::server {

class tick_schedule {
public:
  using clock = std::chrono::steady_clock;

  tick_schedule(clock::time_point start, std::int32_t tps, std::int64_t max_behind = 40);

  /// When schedule slot `slot` is due. Exact for any tps: start + slot × 1e9 / tps ns, rounded
  /// down, computed from the slot number (never by adding periods).
  [[nodiscard]] clock::time_point due(std::int64_t slot) const noexcept;
  [[nodiscard]] clock::time_point next_due() const noexcept { return due(slot_); }
  [[nodiscard]] std::int64_t next_slot() const noexcept { return slot_; }

  struct wake {
    std::int64_t behind = 0;  ///< whole periods between the due time and `now`
    std::int64_t skipped = 0; ///< deadlines skipped at this wake-up (0 unless behind > max)
  };

  /// Account for the tick that starts now (`now` >= next_due()); moves to the next slot.
  wake begin_tick(clock::time_point now) noexcept;

private:
  clock::time_point start_;
  std::int64_t tps_;
  std::int64_t max_behind_;
  std::int64_t slot_ = 0;
};

} // namespace emote::server
