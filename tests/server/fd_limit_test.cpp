// protocol.md §10: serve raises the soft descriptor limit to the hard one and fits its
// connection caps into it.
#include "server/daemon/fd_limit.hpp"

#include <doctest/doctest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace emote::server;

TEST_CASE("descriptors: the caps are kept when they fit, else fitted with headroom") {
  // The defaults (256 line, 1,024 HTTP) fit a large limit as they are.
  auto caps = fit_connection_caps(1048576, 256, 1024, 2);
  CHECK(caps.line == 256);
  CHECK(caps.http == 1024);
  CHECK_FALSE(caps.lowered);
  // The usual soft limit of 1,024: 256 + 3 x 1,024 do not fit in 1,024 - 64.
  caps = fit_connection_caps(1024, 256, 1024, 1);
  CHECK(caps.lowered);
  CHECK(caps.line == 256);
  CHECK(caps.http == (1024 - 64 - 256) / 3);
  CHECK(static_cast<std::uint64_t>(caps.line) + 3 * caps.http + descriptor_headroom <= 1024);
  // Two HTTP listeners share what is left; line connections keep at most half.
  caps = fit_connection_caps(1024, 5000, 1024, 2);
  CHECK(caps.line == (1024 - 64) / 2);
  CHECK(static_cast<std::uint64_t>(caps.line) + 2 * 3 * caps.http + descriptor_headroom <= 1024);
  // Without HTTP the line connections may use all but the headroom.
  caps = fit_connection_caps(512, 5000, 1024, 0);
  CHECK(caps.line == 512 - 64);
  // A tiny limit still leaves one of each.
  caps = fit_connection_caps(8, 256, 1024, 1);
  CHECK(caps.line >= 1);
  CHECK(caps.http >= 1);
}

TEST_CASE("descriptors: the soft limit is raised to the hard one") {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    rlimit lim{};
    ::getrlimit(RLIMIT_NOFILE, &lim);
    if (lim.rlim_max < 256) {
      ::_exit(10);
    }
    lim.rlim_cur = 128;
    ::setrlimit(RLIMIT_NOFILE, &lim);
    const descriptor_limit d = raise_descriptor_limit();
    rlimit now{};
    ::getrlimit(RLIMIT_NOFILE, &now);
    const bool ok = d.before == 128 && d.soft == lim.rlim_max && d.hard == lim.rlim_max &&
                    now.rlim_cur == lim.rlim_max;
    ::_exit(ok ? 0 : 11);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("descriptors: gates' pairs take two each; when nothing fits they keep up to half") {
  // Everything fits: the caps are as asked.
  auto caps = fit_connection_caps(1048576, 256, 1024, 1, 1000, 2);
  CHECK(caps.gate == 1000);
  CHECK_FALSE(caps.lowered);
  // 1,024 descriptors, 2 gates of 1,000 pairs: the gates share half of 1,024 - 64, 240 pairs each,
  // and the line and HTTP listeners are fitted into the other half as without gates.
  caps = fit_connection_caps(1024, 256, 1024, 1, 1000, 2);
  CHECK(caps.lowered);
  CHECK(caps.gate == (1024 - 64) / 2 / 4);
  CHECK(caps.line == 256 - 16); // at most half of the 480 left
  CHECK(static_cast<std::uint64_t>(caps.line) + 3 * caps.http + 2 * 2 * caps.gate +
            descriptor_headroom <=
        1024);
  // A small gate that fits with the line listener keeps its cap; only HTTP is lowered.
  caps = fit_connection_caps(1024, 256, 1024, 1, 50, 1);
  CHECK(caps.gate == 50);
  CHECK(caps.line == 256);
  CHECK(caps.http == (1024 - 64 - 100 - 256) / 3);
  // A tiny limit still leaves one pair per gate.
  caps = fit_connection_caps(8, 256, 1024, 1, 1000, 3);
  CHECK(caps.gate >= 1);
  CHECK(caps.line >= 1);
}
