#pragma once
// Transparent huge pages for the heap (Linux). A stress run's tens of thousands of instances live
// in small heap allocations that every tick walks in full; on 4 KiB pages most of those walks
// miss the address-translation cache as well as the data cache. Once the instances exist, their
// heap is advised for huge pages and collapsed into them (MADV_HUGEPAGE, MADV_COLLAPSE). A hint:
// where the kernel refuses (THP "never", an older kernel) nothing changes but the speed.

#include <cstddef>

namespace emote::server {

/// What advise_heap_huge_pages() did.
struct huge_page_result {
  std::size_t heap_bytes = 0; ///< size of the heap mapping found (0: none)
  bool advised = false;       ///< MADV_HUGEPAGE accepted
  bool collapsed = false;     ///< MADV_COLLAPSE accepted for the whole range
};

/// Advise and collapse the process heap ("[heap]" in /proc/self/maps) into huge pages.
huge_page_result advise_heap_huge_pages() noexcept;

} // namespace emote::server
