#include "engine/playback/segments.hpp"

#include <limits>

namespace emote::playback {
namespace {

// Compiled ticks are 64-bit; saturate rather than wrap on absurd inputs.
std::int64_t add_sat(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) {
    return std::numeric_limits<std::int64_t>::max();
  }
  return r;
}

} // namespace

std::optional<segment> segment_compiler::next(int_source& draws) {
  while (!exhausted_) {
    const std::optional<selection_item> item = cursor_.next(draws);
    if (!first_pulled_) {
      first_pulled_ = true;
      hide_all_at_0_ = !item || item->type == selection_item::kind::wait;
    }
    if (!item) {
      exhausted_ = true;
      break;
    }
    if (item->type == selection_item::kind::wait) {
      offset_ = add_sat(offset_, item->wait);
      continue;
    }
    const animation_timing timing =
        item->animation >= 0 && static_cast<std::size_t>(item->animation) < timings_.size()
            ? timings_[static_cast<std::size_t>(item->animation)]
            : animation_timing{};
    const std::int64_t tr = have_pose_ ? item->transition : 0;
    segment s;
    s.animation = item->animation;
    s.step = item->step;
    s.repeat = item->repeat;
    s.t_start = offset_;
    s.start = add_sat(offset_, tr);
    s.end = add_sat(s.start, timing.duration);
    offset_ = s.end;
    if (item->loop_delay_after && timing.loop) {
      offset_ = add_sat(offset_, timing.loop_delay);
    }
    have_pose_ = true;
    return s;
  }
  return std::nullopt;
}

} // namespace emote::playback
