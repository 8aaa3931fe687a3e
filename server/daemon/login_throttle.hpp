#pragma once
// Failed logins per peer address (protocol.md §2): after 5 failures in a row an address's hellos
// are refused for 1 s, then 2, 4, ... up to 60 s after each further failure; a success forgets
// the address. The warning for failures is rate-limited to one per address per 10 s, carrying
// how many failed since the previous one. Time is passed in, so the policy is tested without
// waiting.

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>

namespace emote::server {

class login_throttle {
public:
  using clock_type = std::chrono::steady_clock;
  using time_point = clock_type::time_point;

  static constexpr int failures_before_block = 5;
  static constexpr std::chrono::milliseconds first_block{1000};
  static constexpr std::chrono::milliseconds longest_block{60000};
  static constexpr std::chrono::seconds warning_interval{10};
  /// Addresses remembered at most; beyond it the ones whose block ends first are forgotten.
  static constexpr std::size_t max_addresses = 4096;

  /// How long `address` is still refused at `now`; nullopt when it may try.
  [[nodiscard]] std::optional<std::chrono::milliseconds> blocked_for(const std::string& address,
                                                                     time_point now) const;

  /// What a failure leads to: whether to log a warning now, with the failures since the last
  /// warning and in a row.
  struct failure_note {
    bool warn = false;
    int since_last_warning = 0;
    int in_a_row = 0;
  };
  failure_note failed(const std::string& address, time_point now);
  void succeeded(const std::string& address) { addresses_.erase(address); }

  [[nodiscard]] std::size_t size() const noexcept { return addresses_.size(); }

private:
  struct entry {
    int count = 0;
    time_point blocked_until;
    std::chrono::milliseconds penalty = first_block;
    time_point logged;
    int unlogged = 0;
  };
  void make_room(time_point now);
  std::map<std::string, entry> addresses_;
};

} // namespace emote::server
