#include "render/display_registry.hpp"

#include <algorithm>

namespace emote::render {

display* display_registry::find(api::handle_id h) noexcept {
  if (h >= 0 && h < direct_handles) {
    const auto k = static_cast<std::size_t>(h);
    return k < by_handle_direct_.size() ? by_handle_direct_[k] : nullptr;
  }
  const auto it = by_handle_far_.find(h);
  return it == by_handle_far_.end() ? nullptr : it->second;
}

void display_registry::index_handle(api::handle_id h, display* d) {
  if (h >= 0 && h < direct_handles) {
    const auto k = static_cast<std::size_t>(h);
    if (k >= by_handle_direct_.size()) {
      by_handle_direct_.resize(k + 1, nullptr);
    }
    by_handle_direct_[k] = d;
  } else if (d != nullptr) {
    by_handle_far_[h] = d;
  } else {
    by_handle_far_.erase(h);
  }
}

display& display_registry::add(std::unique_ptr<display> d) {
  display& ref = *d;
  ref.row = trackers_.add(&ref);
  trackers_.place(ref.row, ref.dim, ref.pos.x, ref.pos.z, ref.entity_id);
  if (owned_.size() <= ref.row) {
    owned_.resize(ref.row + 1);
  }
  owned_[ref.row] = std::move(d);
  index_handle(ref.handle, &ref);
  ++live_;
  auto& list = by_session_[ref.session];
  list.insert(std::lower_bound(list.begin(), list.end(), ref.handle,
                               [](const display* x, api::handle_id k) { return x->handle < k; }),
              &ref);
  return ref;
}

void display_registry::remove(display* d) {
  auto& list = by_session_[d->session];
  list.erase(std::remove(list.begin(), list.end(), d), list.end());
  if (list.empty()) {
    by_session_.erase(d->session);
  }
  index_handle(d->handle, nullptr);
  --live_;
  const std::uint32_t row = d->row;
  trackers_.remove(row);
  owned_[row].reset(); // last: `d` is gone
}

const std::vector<display*>* display_registry::of_session(api::session_id s) const noexcept {
  const auto it = by_session_.find(s);
  return it == by_session_.end() ? nullptr : &it->second;
}

std::vector<const display*> display_registry::by_handle() const {
  std::vector<const display*> live;
  live.reserve(live_);
  for (const display* d : by_handle_direct_) {
    if (d != nullptr) {
      live.push_back(d);
    }
  }
  for (const auto& [h, d] : by_handle_far_) {
    live.push_back(d);
  }
  std::sort(live.begin(), live.end(),
            [](const display* x, const display* y) { return x->handle < y->handle; });
  return live;
}

void display_registry::learn_sessions(const api::frame& f) {
  for (const api::event& e : f.events) {
    if (const auto* st = std::get_if<api::ev_playback_started>(&e)) {
      session_info& s = sessions_[st->session];
      s.emote = st->emote;
      if (st->role == api::role::partner) {
        s.partner = st->player;
      } else {
        s.initiator = st->player;
      }
    } else if (const auto* r = std::get_if<api::ev_partner_reserved>(&e)) {
      session_info& s = sessions_[r->session];
      s.initiator = r->initiator;
      s.partner = r->partner;
    } else if (const auto* m = std::get_if<api::ev_partner_matched>(&e)) {
      session_info& s = sessions_[m->session];
      s.initiator = m->initiator;
      s.partner = m->partner;
    }
  }
}

void display_registry::end_sessions(const api::frame& f) {
  for (const api::event& e : f.events) {
    if (const auto* st = std::get_if<api::ev_playback_stopped>(&e)) {
      auto it = sessions_.find(st->session);
      if (it != sessions_.end() && it->second.initiator == st->player) {
        sessions_.erase(it);
      }
    }
  }
}

const session_info* display_registry::session(api::session_id s) const noexcept {
  const auto it = sessions_.find(s);
  return it == sessions_.end() ? nullptr : &it->second;
}

} // namespace emote::render
