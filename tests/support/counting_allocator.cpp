#include "support/counting_allocator.hpp"

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

// GCC cannot see that the deletes below pair with the malloc in these operator new.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace {
std::atomic<std::uint64_t> allocations{0};
std::atomic<std::uint64_t> bytes{0};

void* counted(std::size_t n, std::size_t align) noexcept {
  allocations.fetch_add(1, std::memory_order_relaxed);
  bytes.fetch_add(n, std::memory_order_relaxed);
  if (n == 0) {
    n = 1;
  }
  if (align <= alignof(std::max_align_t)) {
    return std::malloc(n);
  }
  return std::aligned_alloc(align, (n + align - 1) / align * align);
}
void* counted_or_throw(std::size_t n, std::size_t align) {
  if (void* p = counted(n, align)) {
    return p;
  }
  throw std::bad_alloc();
}
constexpr std::size_t plain = alignof(std::max_align_t);
} // namespace

namespace emote::testing {
allocation_counts allocation_totals() noexcept {
  return {allocations.load(std::memory_order_relaxed), bytes.load(std::memory_order_relaxed)};
}
} // namespace emote::testing

void* operator new(std::size_t n) { return counted_or_throw(n, plain); }
void* operator new[](std::size_t n) { return counted_or_throw(n, plain); }
void* operator new(std::size_t n, std::align_val_t a) {
  return counted_or_throw(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a) {
  return counted_or_throw(n, static_cast<std::size_t>(a));
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counted(n, plain); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counted(n, plain); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted(n, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
