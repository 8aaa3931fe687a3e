#include "server/daemon/tick_schedule.hpp"

namespace emote::server {

tick_schedule::tick_schedule(clock::time_point start, std::int32_t tps, std::int64_t max_behind)
    : start_(start), tps_(tps), max_behind_(max_behind) {}

tick_schedule::clock::time_point tick_schedule::due(std::int64_t slot) const noexcept {
  const std::int64_t ns = slot / tps_ * 1000000000 + slot % tps_ * 1000000000 / tps_;
  return start_ + std::chrono::duration_cast<clock::duration>(std::chrono::nanoseconds(ns));
}

tick_schedule::wake tick_schedule::begin_tick(clock::time_point now) noexcept {
  wake w;
  if (now > due(slot_)) {
    // The latest slot already due at `now`.
    const auto elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(now - start_).count();
    std::int64_t latest = elapsed / 1000000000 * tps_ + elapsed % 1000000000 * tps_ / 1000000000;
    while (latest > slot_ && due(latest) > now) {
      --latest;
    }
    w.behind = latest - slot_;
    if (w.behind > max_behind_) {
      w.skipped = w.behind;
      slot_ = latest;
    }
  }
  ++slot_;
  return w;
}

} // namespace emote::server
