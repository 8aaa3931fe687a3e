#pragma once
// Compilation of a selection list into segments (playback.md §3.4), incrementally: the list and
// segments equal the eager definition, but only the next segment is ever materialised (§3.7).

#include "engine/playback/selection.hpp"

#include <cstdint>
#include <optional>
#include <span>

namespace emote::playback {

/// What compilation needs to know of an Animation.
struct animation_timing {
  std::int64_t duration = 1;   ///< D
  bool loop = false;           ///< mode == loop
  std::int64_t loop_delay = 0; ///< L
};

/// One Anim item placed on the compiled timeline: entered at `t_start`, a transition until
/// `start`, local ticks 0..D over [start, end].
struct segment {
  std::int32_t animation = -1; ///< index in the Sequence's animations
  std::int64_t t_start = 0;
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::int32_t step = 0;
  std::int64_t repeat = 0;
};

class segment_compiler {
public:
  segment_compiler() = default;
  /// `have_pose`: the list is a two-player branch (its first transition tweens from the offer).
  segment_compiler(std::span<const content::step> steps, bool have_pose,
                   std::span<const animation_timing> timings) noexcept
      : cursor_(steps), timings_(timings), have_pose_(have_pose) {}

  /// The next segment, or nullopt when the list is exhausted (duration() is then final).
  std::optional<segment> next(int_source& draws);

  /// hideAllAt0: the list is empty or starts with a Wait. Valid after the first next().
  [[nodiscard]] bool hide_all_at_0() const noexcept { return hide_all_at_0_; }
  [[nodiscard]] bool exhausted() const noexcept { return exhausted_; }
  /// max(offset, 1): the compiled duration once exhausted; a lower bound before.
  [[nodiscard]] std::int64_t duration() const noexcept { return offset_ > 1 ? offset_ : 1; }

private:
  selection_cursor cursor_;
  std::span<const animation_timing> timings_;
  std::int64_t offset_ = 0;
  bool have_pose_ = false;
  bool first_pulled_ = false;
  bool hide_all_at_0_ = false;
  bool exhausted_ = false;
};

} // namespace emote::playback
