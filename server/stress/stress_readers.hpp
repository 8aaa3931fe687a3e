#pragma once
// The stress test's recipients (server/stress): in-memory consumers that read every byte of
// every frame into a checksum, with scalar, AVX2 and AVX-512 readers that compute the same sums.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
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

/// The recipient checksum's framing of one line: its bytes, in any number of parts, cut into
/// 512-byte blocks, the last partial block zero-padded. `read(data, blocks)` is called with whole
/// blocks, at most 32 KiB at a time so that a caller handing them to several recipients reads
/// each piece with all of them while it is in this core's L1/L2 cache. deliver() and the socket
/// readers (stream_recipient) both cut lines with it, so their checksums agree.
class line_blocks {
public:
  static constexpr std::size_t block = 512;

  template <class Read>
  void feed(std::string_view p, Read&& read) noexcept {
    constexpr std::size_t chunk = 32 * 1024;
    if (carried_ != 0) {
      const std::size_t take = std::min(block - carried_, p.size());
      std::memcpy(carry_ + carried_, p.data(), take);
      carried_ += take;
      p.remove_prefix(take);
      if (carried_ < block) {
        return;
      }
      read(static_cast<const char*>(carry_), std::size_t{1});
      carried_ = 0;
    }
    const std::size_t full = p.size() / block * block;
    for (std::size_t off = 0; off < full; off += chunk) {
      read(p.data() + off, std::min(chunk, full - off) / block);
    }
    carried_ = p.size() - full;
    std::memcpy(carry_, p.data() + full, carried_);
  }

  /// The line ends: its last partial block, zero-padded.
  template <class Read>
  void end(Read&& read) noexcept {
    if (carried_ != 0) {
      std::memset(carry_ + carried_, 0, block - carried_);
      read(static_cast<const char*>(carry_), std::size_t{1});
      carried_ = 0;
    }
  }

private:
  alignas(64) char carry_[block] = {};
  std::size_t carried_ = 0;
};

/// Reads one frame line, given as consecutive pieces, into every recipient of `rs`, 32 KiB at a
/// time so that each piece of it is read by all of them while it is in this core's L1/L2 cache.
void deliver(blocks_fn read, std::span<const std::string_view> pieces,
             std::span<recipient> rs) noexcept;

/// Reads the bytes [begin, end) of one frame line (given as consecutive pieces) into every
/// recipient of `rs`, as deliver() reads them: `begin` is a multiple of 512, and the line's last
/// partial block is padded only when `end` is the line's end. Two threads can so read one line
/// for one recipient: the head into it, the tail into a fresh recipient, then combine().
void deliver_range(blocks_fn read, std::span<const std::string_view> pieces, std::size_t begin,
                   std::size_t end, std::span<recipient> rs) noexcept;

/// `head` followed by the `tail_blocks` blocks whose sums, read from zero, are `tail`: the sums
/// of reading both in one go (a += s_k, b += a per block, so b gains n·a_head besides the
/// tail's own b).
void combine(recipient& head, const recipient& tail, std::uint64_t tail_blocks) noexcept;

/// A recipient fed a byte stream of lines (a socket reader): it cuts the stream at each '\n'
/// (kept with its line) and reads every line exactly as deliver() does, so its checksum equals an
/// in-memory recipient's over the same lines. A last line without its newline counts once
/// finish() is called.
class stream_recipient {
public:
  explicit stream_recipient(blocks_fn read) noexcept : read_(read) {}

  void feed(const char* data, std::size_t n) noexcept;
  /// The stream ended: a pending partial line is read as a line of its own.
  void finish() noexcept;

  [[nodiscard]] const recipient& sums() const noexcept { return r_; }
  [[nodiscard]] std::uint64_t lines() const noexcept { return lines_; }

private:
  void end_line() noexcept;

  recipient r_;
  line_blocks blocks_;
  blocks_fn read_;
  std::uint64_t line_bytes_ = 0; ///< of the line being read
  std::uint64_t lines_ = 0;
};

} // namespace emote::server
