#pragma once
// The stress test's recipients (server/stress): in-memory consumers that read every byte of
// every frame into a checksum, with scalar, AVX2 and AVX-512 readers that compute the same sums.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace emote::server {

/// One in-memory consumer. It reads every byte of every frame it receives into an
/// order-sensitive checksum over 512-byte blocks of 8-byte words: per block, lane l (0..7) adds
/// the block's words l, l+8, ..., l+56 into s, then a += s and b += a (two running sums, as in
/// Fletcher's). A line's last partial block is zero-padded. Every reader computes the same sums
/// (addition mod 2^64 in any order), so the checksum depends only on the bytes.
struct recipient {
  alignas(64) std::uint64_t a[8] = {};
  alignas(64) std::uint64_t b[8] = {};
  std::uint64_t bytes = 0;

  [[nodiscard]] std::uint64_t checksum() const noexcept;
};

enum class reader_kind : std::uint8_t { scalar, avx2, avx512 };
/// Whether this CPU (and build) can run the reader.
[[nodiscard]] bool reader_supported(reader_kind k) noexcept;
/// The fastest supported reader, or scalar when `allow_simd` is false.
[[nodiscard]] reader_kind best_reader(bool allow_simd) noexcept;

using blocks_fn = void (*)(const char*, std::size_t, recipient&) noexcept;
/// The reader's block function (scalar when `k` is not supported).
[[nodiscard]] blocks_fn reader_fn(reader_kind k) noexcept;

/// Reads one frame line, given as consecutive pieces, into every recipient of `rs`, 32 KiB at a
/// time so that each piece of it is read by all of them while it is in this core's L1/L2 cache.
void deliver(blocks_fn read, std::span<const std::string_view> pieces,
             std::span<recipient> rs) noexcept;

} // namespace emote::server
