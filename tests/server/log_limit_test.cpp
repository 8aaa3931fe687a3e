// protocol.md §2: refused connections and failed logins are logged at most once per address per
// 10 s; the rest are counted.
#include "server/daemon/log_limit.hpp"

#include <doctest/doctest.h>

#include <string>

using emote::server::log_limit;
using emote::server::peer_address;
using namespace std::chrono_literals;

TEST_CASE("log limit: one line per address per 10 s, carrying the events since the last") {
  log_limit l;
  auto now = log_limit::time_point{};
  const auto first = l.hit("10.0.0.1", now);
  CHECK(first.log);
  CHECK(first.events == 1);
  int lines = 1;
  std::uint64_t counted = 1;
  // 1,000 refusals over 20 s (one per 20 ms): lines at 10 s and 20 s only.
  for (int i = 1; i <= 1000; ++i) {
    now += 20ms;
    const auto n = l.hit("10.0.0.1", now);
    if (n.log) {
      ++lines;
      counted += n.events;
    }
  }
  CHECK(lines == 3);
  CHECK(l.suppressed() == 1001 - 3);
  CHECK(counted == 1001);            // every event is in some line
  CHECK(l.hit("10.0.0.2", now).log); // another address has its own line
}

TEST_CASE("log limit: memory stays bounded however many addresses are refused") {
  log_limit l;
  auto now = log_limit::time_point{};
  for (int i = 0; i < 20000; ++i) {
    now += 1ms;
    CHECK(l.hit("10." + std::to_string(i / 256) + "." + std::to_string(i % 256), now).log);
    CHECK(l.size() <= log_limit::max_addresses);
  }
  CHECK_FALSE(l.hit("10.78.31", now).log); // the most recent is still remembered
}

TEST_CASE("log limit: the address of a peer name") {
  CHECK(peer_address("10.0.0.1:5000") == "10.0.0.1");
  CHECK(peer_address("ws:10.0.0.1:5000") == "ws:10.0.0.1");
  CHECK(peer_address("unix:/run/emote.sock") == "unix");
  CHECK(peer_address("::1:80") == "::1");
}
