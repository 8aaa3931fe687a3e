#include "server/huge_pages.hpp"

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

namespace emote::server {

huge_page_result advise_heap_huge_pages() noexcept {
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
#if defined(MADV_COLLAPSE)
  r.collapsed = r.advised && ::madvise(p, n, MADV_COLLAPSE) == 0;
#endif
#endif
  return r;
}

} // namespace emote::server
