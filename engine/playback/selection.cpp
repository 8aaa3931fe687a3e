#include "engine/playback/selection.hpp"

#include <algorithm>

namespace emote::playback {

std::int32_t scripted_int_source::next_int(std::int32_t bound) {
  bounds_.push_back(bound);
  if (next_ >= draws_.size()) {
    return 0;
  }
  const std::int32_t v = draws_[next_++];
  return std::clamp(v, 0, bound - 1);
}

session_generators make_session_generators(std::int64_t server_seed, std::int64_t session_number) {
  const auto seed = static_cast<std::int64_t>(static_cast<std::uint64_t>(server_seed) +
                                              static_cast<std::uint64_t>(session_number));
  session_generators g{core::java_random(seed), core::java_random(0)};
  g.selection.set_seed(g.session.next_long());
  return g;
}

std::int32_t pick_candidate(std::span<const content::candidate> candidates, bool weighted,
                            std::int32_t exclude, int_source& draws) {
  const auto n = static_cast<std::int32_t>(candidates.size());
  if (n <= 1) {
    return 0;
  }
  if (!weighted) {
    if (exclude < 0) {
      return draws.next_int(n);
    }
    const std::int32_t j = draws.next_int(n - 1);
    return j < exclude ? j : j + 1;
  }
  std::int32_t total = 0;
  for (std::int32_t i = 0; i < n; ++i) {
    if (i != exclude) {
      total += candidates[static_cast<std::size_t>(i)].weight;
    }
  }
  if (total <= 0) {
    // Unreachable for validated content (weights are 1..100); keep the result in range.
    return exclude == 0 ? 1 : 0;
  }
  std::int32_t x = draws.next_int(total);
  std::int32_t last = -1;
  for (std::int32_t i = 0; i < n; ++i) {
    if (i == exclude) {
      continue;
    }
    last = i;
    x -= candidates[static_cast<std::size_t>(i)].weight;
    if (x < 0) {
      return i;
    }
  }
  return last;
}

void selection_cursor::leave_step() noexcept {
  ++index_;
  r_ = 0;
  prev_ = -1;
  step_done_ = false;
}

bool selection_cursor::draw_one(int_source& draws, selection_item& out) {
  const content::step& st = steps_[index_];
  const auto& cands = st.candidates;
  if (cands.size() == 1) {
    // A lone candidate never draws: an Animation yields every repetition in O(1), a lone
    // control uses up (continue) or leaves (break) the whole step at once.
    const content::candidate& c = cands.front();
    if (c.kind != content::candidate_kind::animation) {
      r_ = st.repeat;
      step_done_ = true;
      return false;
    }
    out = selection_item{};
    out.step = static_cast<std::int32_t>(index_);
    out.repeat = r_;
    out.candidate = 0;
    out.animation = c.animation_index;
    out.transition = st.transition.count();
    ++r_;
    return true;
  }
  std::int32_t animation_candidates = 0;
  for (const auto& c : cands) {
    if (c.kind == content::candidate_kind::animation) {
      ++animation_candidates;
    }
  }
  const std::int32_t k =
      pick_candidate(cands, st.weighted, animation_candidates > 1 ? prev_ : -1, draws);
  const content::candidate& c = cands[static_cast<std::size_t>(k)];
  const std::int64_t r = r_;
  ++r_;
  switch (c.kind) {
  case content::candidate_kind::animation:
    prev_ = k;
    out = selection_item{};
    out.step = static_cast<std::int32_t>(index_);
    out.repeat = r;
    out.candidate = k;
    out.animation = c.animation_index;
    out.transition = st.transition.count();
    return true;
  case content::candidate_kind::break_repeat:
    step_done_ = true;
    return false;
  case content::candidate_kind::continue_repeat:
    return false;
  }
  return false;
}

bool selection_cursor::draw_ahead(int_source& draws) {
  const content::step& st = steps_[index_];
  while (!step_done_ && r_ < st.repeat) {
    selection_item item;
    if (draw_one(draws, item)) {
      ahead_ = item;
      return true;
    }
  }
  step_done_ = true;
  return false;
}

std::optional<selection_item> selection_cursor::next(int_source& draws) {
  if (!ahead_) {
    while (index_ < steps_.size()) {
      const content::step& st = steps_[index_];
      if (st.kind == content::step_kind::wait) {
        selection_item w;
        w.type = selection_item::kind::wait;
        w.wait = st.wait.count();
        w.step = static_cast<std::int32_t>(index_);
        leave_step();
        return w;
      }
      if (draw_ahead(draws)) {
        break;
      }
      leave_step();
    }
    if (!ahead_) {
      return std::nullopt;
    }
  }
  selection_item item = *ahead_;
  ahead_.reset();
  item.loop_delay_after = draw_ahead(draws);
  if (!item.loop_delay_after) {
    leave_step();
  }
  return item;
}

} // namespace emote::playback
