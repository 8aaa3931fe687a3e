#include "server/daemon/login_throttle.hpp"

#include <algorithm>
#include <iterator>

namespace emote::server {

std::optional<std::chrono::milliseconds> login_throttle::blocked_for(const std::string& address,
                                                                     time_point now) const {
  const auto found = addresses_.find(address);
  if (found == addresses_.end() || now >= found->second.blocked_until) {
    return std::nullopt;
  }
  return std::chrono::duration_cast<std::chrono::milliseconds>(found->second.blocked_until - now);
}

void login_throttle::make_room(time_point now) {
  // Addresses that are not blocked are only counting; forget them first.
  std::erase_if(addresses_, [&](const auto& e) { return e.second.blocked_until <= now; });
  while (addresses_.size() >= max_addresses) {
    addresses_.erase(
        std::min_element(addresses_.begin(), addresses_.end(), [](const auto& a, const auto& b) {
          return a.second.blocked_until < b.second.blocked_until;
        }));
  }
}

login_throttle::failure_note login_throttle::failed(const std::string& address, time_point now) {
  if (addresses_.size() >= max_addresses && !addresses_.contains(address)) {
    make_room(now);
  }
  entry& e = addresses_[address];
  if (++e.count >= failures_before_block) {
    e.blocked_until = now + e.penalty;
    e.penalty = std::min(e.penalty * 2, longest_block);
  }
  ++e.unlogged;
  failure_note note;
  note.in_a_row = e.count;
  if (e.count == 1 || now - e.logged >= warning_interval) {
    note.warn = true;
    note.since_last_warning = e.unlogged;
    e.logged = now;
    e.unlogged = 0;
  }
  return note;
}

} // namespace emote::server
