#pragma once
// Software prefetch of a byte range: start loading every cache line of [p, p + n) so that a
// later read finds it in cache. A hint only: it never faults and never changes a result. Used
// where the next piece of work is known ahead and lies where the hardware prefetchers cannot
// guess it: a memo slot picked by a hash (engine/core/memo.hpp), its only caller.

#include <cstddef>
#include <cstdint>

namespace emote::core {

inline constexpr std::size_t cache_line = 64;

inline void prefetch_bytes(const void* p, std::size_t n) noexcept {
  if (n == 0) {
    return;
  }
  const auto first = reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t{cache_line - 1};
  const auto last = reinterpret_cast<std::uintptr_t>(p) + n - 1;
  for (std::uintptr_t a = first; a <= last; a += cache_line) {
    __builtin_prefetch(reinterpret_cast<const void*>(a));
  }
}

} // namespace emote::core
