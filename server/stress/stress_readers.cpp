#include "server/stress/stress_readers.hpp"

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

constexpr std::size_t block = line_blocks::block;

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
  line_blocks blocks;
  const auto all = [&](const char* p, std::size_t n) {
    for (recipient& r : rs) {
      read(p, n, r);
    }
  };
  std::size_t total = 0;
  for (const std::string_view p : pieces) {
    total += p.size();
    blocks.feed(p, all);
  }
  blocks.end(all);
  for (recipient& r : rs) {
    r.bytes += total;
  }
}

void deliver_range(blocks_fn read, std::span<const std::string_view> pieces, std::size_t begin,
                   std::size_t end, std::span<recipient> rs) noexcept {
  line_blocks blocks;
  const auto all = [&](const char* p, std::size_t n) {
    for (recipient& r : rs) {
      read(p, n, r);
    }
  };
  std::size_t at = 0; // the line offset of the current piece
  std::size_t total = 0;
  for (const std::string_view p : pieces) {
    const std::size_t lo = std::max(at, begin);
    const std::size_t hi = std::min(at + p.size(), end);
    if (lo < hi) {
      blocks.feed(p.substr(lo - at, hi - lo), all);
    }
    at += p.size();
    total = at;
  }
  if (end >= total) {
    blocks.end(all);
  }
  for (recipient& r : rs) {
    r.bytes += std::min(end, total) - std::min(begin, total);
  }
}

void combine(recipient& head, const recipient& tail, std::uint64_t tail_blocks) noexcept {
  for (int l = 0; l < 8; ++l) {
    head.b[l] += tail.b[l] + tail_blocks * head.a[l];
    head.a[l] += tail.a[l];
  }
  head.bytes += tail.bytes;
}

void stream_recipient::feed(const char* data, std::size_t n) noexcept {
  const auto one = [this](const char* p, std::size_t k) { read_(p, k, r_); };
  while (n > 0) {
    const auto* nl = static_cast<const char*>(std::memchr(data, '\n', n));
    const std::size_t len = nl != nullptr ? static_cast<std::size_t>(nl - data) + 1 : n;
    blocks_.feed(std::string_view(data, len), one);
    line_bytes_ += len;
    data += len;
    n -= len;
    if (nl != nullptr) {
      end_line();
    }
  }
}

void stream_recipient::finish() noexcept {
  if (line_bytes_ != 0) {
    end_line();
  }
}

void stream_recipient::end_line() noexcept {
  blocks_.end([this](const char* p, std::size_t k) { read_(p, k, r_); });
  r_.bytes += line_bytes_;
  line_bytes_ = 0;
  ++lines_;
}

} // namespace emote::server
