#pragma once
// Sequence step selection (playback.md §3.1–3.2) and its lazy materialisation (§3.7).
//
// A `selection_cursor` walks a step list and yields the selection list one item at a time:
// Wait(ticks) and Anim(candidate, step, r, transition, loopDelayAfter). Memory is O(1) beyond
// the step list; a single-candidate step never iterates per repetition, so `repeat` up to
// 2^31−1 costs O(1) per yielded item. `loopDelayAfter` needs to know whether another Anim of
// the same step follows, so the cursor draws ahead within the step (never across steps); the
// private selection generator makes that timing irrelevant.

#include "engine/content/model.hpp"
#include "engine/core/java_random.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace emote::playback {

/// Where selection draws come from: `next_int(bound)` with bound ≥ 1.
class int_source {
public:
  virtual ~int_source() = default;
  virtual std::int32_t next_int(std::int32_t bound) = 0;
};

/// The production source: java.util.Random's nextInt(bound).
class java_int_source final : public int_source {
public:
  explicit java_int_source(std::int64_t seed) noexcept : rng_(seed) {}
  explicit java_int_source(const core::java_random& rng) noexcept : rng_(rng) {}
  std::int32_t next_int(std::int32_t bound) override { return rng_.next_int(bound); }
  [[nodiscard]] const core::java_random& generator() const noexcept { return rng_; }

private:
  core::java_random rng_;
};

/// A scripted source for tests: returns the given draws in order (each clamped into
/// [0, bound)), then 0; records every bound it was asked for.
class scripted_int_source final : public int_source {
public:
  explicit scripted_int_source(std::vector<std::int32_t> draws) : draws_(std::move(draws)) {}
  std::int32_t next_int(std::int32_t bound) override;
  [[nodiscard]] const std::vector<std::int32_t>& bounds() const noexcept { return bounds_; }

private:
  std::vector<std::int32_t> draws_;
  std::vector<std::int32_t> bounds_;
  std::size_t next_ = 0;
};

/// The two generators of session k (playback.md §3.1): the session generator
/// G = Random(server_seed + k) (Molang random functions) and the selection generator
/// Random(s) with s = the first G.nextLong().
struct session_generators {
  core::java_random session;
  core::java_random selection;
};
session_generators make_session_generators(std::int64_t server_seed, std::int64_t session_number);

/// pick(C, ex) of playback.md §3.2: the index of the chosen candidate. `ex` < 0 excludes nothing.
std::int32_t pick_candidate(std::span<const content::candidate> candidates, bool weighted,
                            std::int32_t exclude, int_source& draws);

/// One item of a selection list.
struct selection_item {
  enum class kind : std::uint8_t { wait, anim };
  selection_item::kind type = kind::anim;
  std::int64_t wait = 0;         ///< Wait: ticks
  std::int32_t step = 0;         ///< index of the step in its list (wait steps counted)
  std::int64_t repeat = 0;       ///< r: consumed repetitions before this one, continues counted
  std::int32_t candidate = -1;   ///< index in the step's candidates
  std::int32_t animation = -1;   ///< the candidate's index in sequence::animations
  std::int64_t transition = 0;   ///< the step's transition (before havePose is applied)
  bool loop_delay_after = false; ///< another Anim from the same step follows
};

/// Walks a step list lazily. The steps must outlive the cursor.
class selection_cursor {
public:
  selection_cursor() = default;
  explicit selection_cursor(std::span<const content::step> steps) noexcept : steps_(steps) {}

  /// The next item, or nullopt when the list is exhausted.
  std::optional<selection_item> next(int_source& draws);

private:
  /// Draws the remaining repetitions of the current emote step until an Anim is found (kept in
  /// `ahead_`) or the step ends. Returns whether an Anim was found.
  bool draw_ahead(int_source& draws);
  void leave_step() noexcept;
  /// Draw repetition r_ of the current step: true with `out` filled for an Anim; false for a
  /// control (a break leaves the step).
  bool draw_one(int_source& draws, selection_item& out);

  std::span<const content::step> steps_;
  std::size_t index_ = 0;  ///< current step
  std::int64_t r_ = 0;     ///< next repetition of the current emote step
  std::int32_t prev_ = -1; ///< last drawn Animation candidate of the current step
  bool step_done_ = false; ///< the current emote step has nothing more to yield
  std::optional<selection_item> ahead_;
};

} // namespace emote::playback
