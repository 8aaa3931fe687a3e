#include "server/stress_readers.hpp"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace emote::server {

std::uint64_t recipient::checksum() const noexcept {
  std::uint64_t h = bytes;
  for (int i = 0; i < 8; ++i) {
    h = (h ^ a[i]) * 0x100000001B3ULL;
    h = (h ^ b[i]) * 0x100000001B3ULL;
  }
  return h;
}

namespace {

constexpr std::size_t block = 512;

void blocks_scalar(const char* p, std::size_t n, recipient& r) noexcept {
  for (std::size_t k = 0; k < n; ++k, p += block) {
    for (int l = 0; l < 8; ++l) {
      std::uint64_t w[8];
      for (int q = 0; q < 8; ++q) {
        std::memcpy(&w[q], p + 64 * q + 8 * l, 8);
      }
      r.a[l] += ((w[0] + w[1]) + (w[2] + w[3])) + ((w[4] + w[5]) + (w[6] + w[7]));
      r.b[l] += r.a[l];
    }
  }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define EMOTE_SIM_X86_READERS 1
__attribute__((target("avx2"))) inline __m256i ld(const char* q) noexcept {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
}

__attribute__((target("avx2"))) void blocks_avx2(const char* p, std::size_t n,
                                                 recipient& r) noexcept {
  __m256i a0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(r.a));
  __m256i a1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(r.a + 4));
  __m256i b0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(r.b));
  __m256i b1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(r.b + 4));
  for (std::size_t k = 0; k < n; ++k, p += block) {
    const __m256i s0 =
        _mm256_add_epi64(_mm256_add_epi64(_mm256_add_epi64(ld(p), ld(p + 64)),
                                          _mm256_add_epi64(ld(p + 128), ld(p + 192))),
                         _mm256_add_epi64(_mm256_add_epi64(ld(p + 256), ld(p + 320)),
                                          _mm256_add_epi64(ld(p + 384), ld(p + 448))));
    const __m256i s1 =
        _mm256_add_epi64(_mm256_add_epi64(_mm256_add_epi64(ld(p + 32), ld(p + 96)),
                                          _mm256_add_epi64(ld(p + 160), ld(p + 224))),
                         _mm256_add_epi64(_mm256_add_epi64(ld(p + 288), ld(p + 352)),
                                          _mm256_add_epi64(ld(p + 416), ld(p + 480))));
    a0 = _mm256_add_epi64(a0, s0);
    a1 = _mm256_add_epi64(a1, s1);
    b0 = _mm256_add_epi64(b0, a0);
    b1 = _mm256_add_epi64(b1, a1);
  }
  _mm256_store_si256(reinterpret_cast<__m256i*>(r.a), a0);
  _mm256_store_si256(reinterpret_cast<__m256i*>(r.a + 4), a1);
  _mm256_store_si256(reinterpret_cast<__m256i*>(r.b), b0);
  _mm256_store_si256(reinterpret_cast<__m256i*>(r.b + 4), b1);
}

__attribute__((target("avx512f"))) void blocks_avx512(const char* p, std::size_t n,
                                                      recipient& r) noexcept {
  __m512i a = _mm512_load_si512(r.a);
  __m512i b = _mm512_load_si512(r.b);
  for (std::size_t k = 0; k < n; ++k, p += block) {
    const __m512i s = _mm512_add_epi64(
        _mm512_add_epi64(
            _mm512_add_epi64(_mm512_loadu_si512(p), _mm512_loadu_si512(p + 64)),
            _mm512_add_epi64(_mm512_loadu_si512(p + 128), _mm512_loadu_si512(p + 192))),
        _mm512_add_epi64(
            _mm512_add_epi64(_mm512_loadu_si512(p + 256), _mm512_loadu_si512(p + 320)),
            _mm512_add_epi64(_mm512_loadu_si512(p + 384), _mm512_loadu_si512(p + 448))));
    a = _mm512_add_epi64(a, s);
    b = _mm512_add_epi64(b, a);
  }
  _mm512_store_si512(r.a, a);
  _mm512_store_si512(r.b, b);
}
#endif

} // namespace

bool reader_supported(reader_kind k) noexcept {
  switch (k) {
  case reader_kind::scalar:
    return true;
#ifdef EMOTE_SIM_X86_READERS
  case reader_kind::avx2:
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
  case reader_kind::avx512:
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
#else
  default:
    return false;
#endif
  }
  return false;
}

reader_kind best_reader(bool allow_simd) noexcept {
  if (allow_simd && reader_supported(reader_kind::avx512)) {
    return reader_kind::avx512;
  }
  if (allow_simd && reader_supported(reader_kind::avx2)) {
    return reader_kind::avx2;
  }
  return reader_kind::scalar;
}

blocks_fn reader_fn(reader_kind k) noexcept {
#ifdef EMOTE_SIM_X86_READERS
  if (reader_supported(k)) {
    if (k == reader_kind::avx512) {
      return blocks_avx512;
    }
    if (k == reader_kind::avx2) {
      return blocks_avx2;
    }
  }
#else
  (void)k;
#endif
  return blocks_scalar;
}

void deliver(blocks_fn read, std::span<const std::string_view> pieces,
             std::span<recipient> rs) noexcept {
  constexpr std::size_t chunk = 32 * 1024;
  alignas(64) char carry[block] = {};
  std::size_t carried = 0;
  std::size_t total = 0;
  for (std::string_view p : pieces) {
    total += p.size();
    if (carried != 0) {
      const std::size_t take = std::min(block - carried, p.size());
      std::memcpy(carry + carried, p.data(), take);
      carried += take;
      p.remove_prefix(take);
      if (carried < block) {
        continue;
      }
      for (recipient& r : rs) {
        read(carry, 1, r);
      }
      carried = 0;
    }
    const std::size_t full = p.size() / block * block;
    for (std::size_t off = 0; off < full; off += chunk) {
      const std::size_t n = std::min(chunk, full - off) / block;
      for (recipient& r : rs) {
        read(p.data() + off, n, r);
      }
    }
    carried = p.size() - full;
    std::memcpy(carry, p.data() + full, carried);
  }
  if (carried != 0) {
    std::memset(carry + carried, 0, block - carried);
    for (recipient& r : rs) {
      read(carry, 1, r);
    }
  }
  for (recipient& r : rs) {
    r.bytes += total;
  }
}

} // namespace emote::server
