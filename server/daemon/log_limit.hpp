#pragma once
// One log line per peer address per interval (protocol.md §2): refused connections and failed
// logins are logged at most once per address every 10 s, the line carrying how many happened
// since the previous one; the rest are only counted. Time is passed in, so the policy is tested
// without waiting. Memory is bounded: at most `max_addresses` addresses are remembered, the one
// logged longest ago forgotten first.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace emote::server {

class log_limit {
public:
  using clock_type = std::chrono::steady_clock;
  using time_point = clock_type::time_point;

  static constexpr std::chrono::seconds interval{10};
  static constexpr std::size_t max_addresses = 4096;

  /// Whether to log an event of `address` now, and how many events (this one included) the line
  /// stands for.
  struct note {
    bool log = false;
    std::uint64_t events = 0;
  };
  note hit(const std::string& address, time_point now);

  /// Events that had no line of their own (a later line of their address counts them).
  [[nodiscard]] std::uint64_t suppressed() const noexcept { return suppressed_; }
  [[nodiscard]] std::size_t size() const noexcept { return addresses_.size(); }

private:
  struct entry {
    time_point logged;
    std::uint64_t unlogged = 0;
  };
  std::map<std::string, entry> addresses_;
  std::uint64_t suppressed_ = 0;
};

/// The address part of a printable peer name: `10.0.0.1:5000` → `10.0.0.1`, `[::1]:80` style
/// names and `ws:10.0.0.1:5000` → `ws:10.0.0.1`; a Unix-socket peer (`unix:/path`) is `unix`.
std::string peer_address(const std::string& peer);

} // namespace emote::server
