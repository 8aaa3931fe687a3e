#pragma once
// Transparent huge pages for the heap (Linux), for benchmarks that ask how much of a walk over
// many small heap allocations is address translation: on 4 KiB pages most such walks miss the
// translation cache as well as the data cache. The heap is advised for huge pages and collapsed
// into them (MADV_HUGEPAGE, MADV_COLLAPSE). The daemon does neither, so `emote-sim stress`
// does not either; bench_stress compares the stress tick with and without. A hint: where the
// kernel refuses (THP "never", an older kernel) nothing changes but the speed.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

#if defined(__linux__)
#include <sys/mman.h>
// Linux 6.1's synchronous collapse; Debian 12's C library headers do not name it yet (the value
// is the kernel's ABI).
#if !defined(MADV_COLLAPSE)
#define MADV_COLLAPSE 25
#endif
#endif

namespace emote::bench {

/// What advise_heap_huge_pages() did.
struct huge_page_result {
  std::size_t heap_bytes = 0; ///< size of the heap mapping found (0: none)
  bool advised = false;       ///< MADV_HUGEPAGE accepted
  bool collapsed = false;     ///< MADV_COLLAPSE accepted for the whole range
};

/// Advise and collapse the process heap ("[heap]" in /proc/self/maps) into huge pages.
inline huge_page_result advise_heap_huge_pages() noexcept {
  huge_page_result r;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  std::FILE* maps = std::fopen("/proc/self/maps", "r");
  if (maps == nullptr) {
    return r;
  }
  char line[512];
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
  // The heap may show as several adjacent mappings (an earlier madvise splits it): their union.
  while (std::fgets(line, sizeof line, maps) != nullptr) {
    if (std::strstr(line, "[heap]") == nullptr) {
      continue;
    }
    unsigned long long b = 0;
    unsigned long long e = 0;
    if (std::sscanf(line, "%llx-%llx", &b, &e) == 2) {
      begin = begin == 0 ? static_cast<std::uintptr_t>(b) : begin;
      end = static_cast<std::uintptr_t>(e);
    }
  }
  std::fclose(maps);
  // Only whole 2 MiB pages inside the heap can become huge pages.
  constexpr std::uintptr_t huge = std::uintptr_t{2} << 20;
  const std::uintptr_t first = (begin + huge - 1) & ~(huge - 1);
  const std::uintptr_t last = end & ~(huge - 1);
  r.heap_bytes = end - begin;
  if (last <= first) {
    return r;
  }
  void* const p = reinterpret_cast<void*>(first);
  const std::size_t n = last - first;
  r.advised = ::madvise(p, n, MADV_HUGEPAGE) == 0;
  r.collapsed = r.advised && ::madvise(p, n, MADV_COLLAPSE) == 0;
#endif
  return r;
}

} // namespace emote::bench
