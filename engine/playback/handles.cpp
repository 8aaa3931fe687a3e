#include "engine/playback/handles.hpp"

namespace emote::playback {

void handle_pool::acquire(std::size_t n, std::vector<api::handle_id>& out) {
  for (std::size_t i = 0; i < n; ++i) {
    if (!free_.empty()) {
      out.push_back(*free_.begin());
      free_.erase(free_.begin());
    } else {
      out.push_back(next_++);
    }
    ++held_;
  }
}

void handle_pool::release(std::span<const api::handle_id> ids) {
  for (const api::handle_id id : ids) {
    if (id <= 0 || id >= next_ || free_.count(id) != 0) {
      continue; // not held: ignore rather than corrupt the pool
    }
    if (id == next_ - 1) {
      --next_;
      // Shrink the high-water mark over trailing free ids so `free_` stays small.
      while (!free_.empty() && *free_.rbegin() == next_ - 1) {
        free_.erase(std::prev(free_.end()));
        --next_;
      }
    } else {
      free_.insert(id);
    }
    --held_;
  }
}

void handle_pool::describe(core::state_sink& s) const {
  s.begin_object("handles");
  s.i64("next", static_cast<std::int64_t>(next_));
  s.u64("held", held_);
  s.begin_list("free");
  for (const api::handle_id id : free_) {
    s.i64("", static_cast<std::int64_t>(id));
  }
  s.end_list();
  s.end_object();
}

} // namespace emote::playback
