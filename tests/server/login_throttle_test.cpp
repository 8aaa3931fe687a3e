// protocol.md §2: failed logins are throttled per address and their warnings rate-limited.
#include "server/daemon/login_throttle.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using emote::server::login_throttle;
using namespace std::chrono_literals;

TEST_CASE("login throttle: after 5 failures an address waits 1 s, doubling per failure to 60 s") {
  login_throttle t;
  const login_throttle::time_point t0{};
  auto now = t0;
  for (int i = 0; i < 4; ++i) {
    (void)t.failed("10.0.0.1", now);
    CHECK_FALSE(t.blocked_for("10.0.0.1", now).has_value());
  }
  // Each further failure (made as soon as the block ends) blocks twice as long, up to 60 s.
  std::vector<long> blocks;
  for (int i = 0; i < 9; ++i) {
    (void)t.failed("10.0.0.1", now);
    const auto left = t.blocked_for("10.0.0.1", now);
    REQUIRE(left.has_value());
    blocks.push_back(static_cast<long>(left->count()));
    CHECK(t.blocked_for("10.0.0.1", now + *left - 1ms).has_value());
    now += *left;
    CHECK_FALSE(t.blocked_for("10.0.0.1", now).has_value());
  }
  CHECK(blocks == std::vector<long>{1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000});
  // Another address is not affected; a success forgets the address.
  CHECK_FALSE(t.blocked_for("10.0.0.2", t0).has_value());
  (void)t.failed("10.0.0.1", now);
  CHECK(t.blocked_for("10.0.0.1", now).has_value());
  t.succeeded("10.0.0.1");
  CHECK_FALSE(t.blocked_for("10.0.0.1", now).has_value());
  for (int i = 0; i < 4; ++i) {
    (void)t.failed("10.0.0.1", now);
  }
  CHECK_FALSE(t.blocked_for("10.0.0.1", now).has_value()); // counting starts again
}

TEST_CASE("login throttle: one warning per address per 10 s, with the failures since the last") {
  login_throttle t;
  auto now = login_throttle::time_point{};
  auto first = t.failed("a", now);
  CHECK(first.warn);
  CHECK(first.since_last_warning == 1);
  int warnings = 0;
  // 1,000 failures over 20 s (one per 20 ms): a warning at 10 s and 20 s only.
  login_throttle::failure_note last;
  for (int i = 1; i <= 1000; ++i) {
    now += 20ms;
    auto n = t.failed("a", now);
    if (n.warn) {
      ++warnings;
      last = n;
    }
  }
  CHECK(warnings == 2);
  CHECK(last.since_last_warning == 500);
  CHECK(last.in_a_row == 1001);
  CHECK(t.failed("b", now).warn); // another address warns on its first failure
}

TEST_CASE("login throttle: memory stays bounded however many addresses fail") {
  login_throttle t;
  const login_throttle::time_point now{};
  for (int i = 0; i < 20000; ++i) {
    const std::string address = "10." + std::to_string(i / 256) + "." + std::to_string(i % 256);
    for (int k = 0; k < 5; ++k) { // each address blocked
      (void)t.failed(address, now);
    }
    CHECK(t.size() <= login_throttle::max_addresses);
  }
  CHECK(t.blocked_for("10.78.31", now).has_value()); // the most recent are kept
}
