#pragma once
// Tests of what a listener does out of file descriptors: while one of these lives, this process's
// soft limit is `limit` and every descriptor under it is taken but `spare` (a client socket the
// test opens takes one; the server's accept then fails with EMFILE). The destructor gives them
// back and restores the limit.

#include <doctest/doctest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <vector>

namespace emote::server::testing {

class descriptors_taken {
public:
  explicit descriptors_taken(rlim_t limit = 256, int spare = 1) {
    REQUIRE(::getrlimit(RLIMIT_NOFILE, &old_) == 0);
    rlimit low = old_;
    low.rlim_cur = limit;
    REQUIRE(::setrlimit(RLIMIT_NOFILE, &low) == 0);
    for (int fd = ::dup(0); fd >= 0; fd = ::dup(0)) {
      fillers_.push_back(fd);
    }
    for (int i = 0; i < spare && !fillers_.empty(); ++i) {
      ::close(fillers_.back());
      fillers_.pop_back();
    }
  }
  ~descriptors_taken() { give_back(); }
  descriptors_taken(const descriptors_taken&) = delete;
  descriptors_taken& operator=(const descriptors_taken&) = delete;

  /// Close the fillers and restore the limit now (idempotent).
  void give_back() {
    for (const int fd : fillers_) {
      ::close(fd);
    }
    fillers_.clear();
    if (!restored_) {
      restored_ = true;
      ::setrlimit(RLIMIT_NOFILE, &old_);
    }
  }

private:
  rlimit old_{};
  std::vector<int> fillers_;
  bool restored_ = false;
};

} // namespace emote::server::testing
