#pragma once
// A counting global allocator for allocation tests. Linking a test executable against
// emote_test_support and calling any function below pulls in replacements of every global
// operator new/delete that count allocations (and bytes) made by any thread.

#include <cstdint>

namespace emote::testing {

struct allocation_counts {
  std::uint64_t allocations = 0;
  std::uint64_t bytes = 0;
};

/// Totals since the process started.
allocation_counts allocation_totals() noexcept;

/// Allocations made while a scope is alive: `allocation_scope s; work(); CHECK(s.allocations() == 0);`
class allocation_scope {
public:
  allocation_scope() noexcept : start_(allocation_totals()) {}
  [[nodiscard]] std::uint64_t allocations() const noexcept {
    return allocation_totals().allocations - start_.allocations;
  }
  [[nodiscard]] std::uint64_t bytes() const noexcept {
    return allocation_totals().bytes - start_.bytes;
  }

private:
  allocation_counts start_;
};

} // namespace emote::testing
