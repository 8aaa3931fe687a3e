#pragma once
// Packet framing as a vanilla connection writes it (render.md §5.6), for `stress
// --wire-protocol`: a VarInt length prefix of at most 21 bits (3 bytes), and with compression on
// (threshold ≥ 0) the uncompressed data length as a VarInt first — 0 when the packet is below
// the threshold and goes as it is — then the zlib stream. Only stress frames packets itself; the
// renderer's entries are unframed (a plugin's connection frames them).
//
// Compression is libdeflate's whole-buffer zlib encoder at level 1: its output is a standard
// zlib stream (RFC 1950) that any inflater, vanilla's included, reads. bench_framing measured it
// as the fastest zlib-compatible choice at every packet size the pipeline compresses (300 B to
// 8 KB: 3.9 to 17.5 µs, against 5.2 to 61 µs for zlib's deflate at vanilla's level 6 with a
// reused stream, and 4.6 to 22 µs for zlib at level 1), for output 5 to 25 % larger than level 6
// (docs/guide/performance.md "Like for like: the mod's packet pipeline").

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

struct libdeflate_compressor;

namespace emote::render {

/// The largest frame length a Varint21 prefix can carry (2^21 - 1).
inline constexpr std::size_t max_frame_length = (std::size_t{1} << 21) - 1;
/// Vanilla's default network-compression-threshold.
inline constexpr std::int32_t default_compression_threshold = 256;
/// The libdeflate level of compressed packets (1: fastest).
inline constexpr int compression_level = 1;

class packet_framer {
public:
  /// `threshold` < 0: no compression (length prefix only).
  explicit packet_framer(std::int32_t threshold);
  ~packet_framer();
  packet_framer(const packet_framer&) = delete;
  packet_framer& operator=(const packet_framer&) = delete;
  packet_framer(packet_framer&& o) noexcept;
  packet_framer& operator=(packet_framer&&) = delete;

  /// Append `packet` (its id and fields) framed to `out`. False, with nothing appended, when the
  /// frame would not fit a 21-bit length.
  bool append(std::string& out, std::string_view packet);

  [[nodiscard]] std::int32_t threshold() const noexcept { return threshold_; }
  /// Packets compressed so far.
  [[nodiscard]] std::uint64_t compressed() const noexcept { return compressed_; }

private:
  std::int32_t threshold_;
  libdeflate_compressor* compressor_ = nullptr;
  std::string scratch_; ///< the zlib stream of the packet being framed
  std::uint64_t compressed_ = 0;
};

/// Read back one frame of `in` from `pos` (a test and debugging aid, render.md §5.6): the
/// packet's bytes in `packet` and `pos` past the frame. False on a malformed or truncated frame.
bool read_frame(std::string_view in, std::size_t& pos, std::int32_t threshold, std::string& packet);

} // namespace emote::render
