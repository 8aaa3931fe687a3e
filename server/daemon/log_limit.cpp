#include "server/daemon/log_limit.hpp"

#include <algorithm>

namespace emote::server {

log_limit::note log_limit::hit(const std::string& address, time_point now) {
  auto found = addresses_.find(address);
  if (found == addresses_.end()) {
    if (addresses_.size() >= max_addresses) {
      addresses_.erase(
          std::min_element(addresses_.begin(), addresses_.end(), [](const auto& a, const auto& b) {
            return a.second.logged < b.second.logged;
          }));
    }
    addresses_.emplace(address, entry{now, 0});
    return {true, 1};
  }
  entry& e = found->second;
  if (now - e.logged < interval) {
    ++e.unlogged;
    ++suppressed_;
    return {false, 0};
  }
  const note n{true, e.unlogged + 1};
  e.logged = now;
  e.unlogged = 0;
  return n;
}

std::string peer_address(const std::string& peer) {
  if (peer.starts_with("unix:")) {
    return "unix";
  }
  const auto colon = peer.rfind(':');
  return colon == std::string::npos ? peer : peer.substr(0, colon);
}

} // namespace emote::server
