#include "engine/core/memo.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cstdint>

using namespace emote;

namespace {
struct key8 {
  std::array<std::uint64_t, 2> v;
};
using memo_t = core::direct_memo<key8, std::uint64_t>;
} // namespace

TEST_CASE("memo: the hashed calls find what the plain ones store, and the reverse") {
  memo_t m;
  m.resize(1024);
  for (std::uint64_t i = 0; i < 200; ++i) {
    const key8 k{{i, i * 7}};
    if (i % 2 == 0) {
      m.store(k, i + 1);
    } else {
      m.store_hashed(k, memo_t::hash(k), i + 1);
    }
  }
  std::uint64_t found = 0;
  for (std::uint64_t i = 0; i < 200; ++i) {
    const key8 k{{i, i * 7}};
    m.prefetch_hashed(memo_t::hash(k));
    const std::uint64_t* a = m.find(k);
    const std::uint64_t* b = m.find_hashed(k, memo_t::hash(k));
    CHECK(a == b); // the same slot either way (or both missing: overwritten by a collision)
    if (a != nullptr) {
      CHECK(*a == i + 1);
      ++found;
    }
  }
  CHECK(found > 150); // 200 keys in 1024 direct-mapped slots: few collide
  // A key never stored is a miss whichever way it is looked up.
  const key8 absent{{999999, 1}};
  CHECK(m.find(absent) == nullptr);
  CHECK(m.find_hashed(absent, memo_t::hash(absent)) == nullptr);
}

TEST_CASE("memo tables: large ones start on a 2 MiB boundary, every table starts zeroed") {
  constexpr std::size_t big = (std::size_t{5} << 20) + 123;
  auto* p = static_cast<unsigned char*>(core::allocate_table(big));
  CHECK(reinterpret_cast<std::uintptr_t>(p) % (std::uintptr_t{2} << 20) == 0);
  bool zero = true;
  for (std::size_t i = 0; i < big; i += 4093) {
    zero = zero && p[i] == 0;
  }
  CHECK(zero);
  CHECK(p[big - 1] == 0);
  core::free_table(p);
  auto* q = static_cast<unsigned char*>(core::allocate_table(100));
  CHECK(q[0] == 0);
  CHECK(q[99] == 0);
  core::free_table(q);
}
