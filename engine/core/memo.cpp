#include "engine/core/memo.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace emote::core {
namespace {
constexpr std::size_t huge_page = std::size_t{2} << 20;
} // namespace

void* allocate_table(std::size_t bytes) {
  // Tables of a huge page or more start on one and fill whole ones, so the kernel can back them
  // with huge pages where it is allowed to (transparent_hugepage "madvise" or "always").
  const bool huge = bytes >= huge_page;
  const std::size_t align = huge ? huge_page : alignof(std::max_align_t);
  const std::size_t size = (bytes + align - 1) / align * align;
  void* p = std::aligned_alloc(align, size);
  if (p == nullptr) {
    throw std::bad_alloc();
  }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (huge) {
    ::madvise(p, size, MADV_HUGEPAGE); // a hint: without it the table works the same
  }
#endif
  std::memset(p, 0, size);
  return p;
}

void free_table(void* p) noexcept {
  std::free(p);
}

} // namespace emote::core
