#include "render/framing.hpp"

#include "render/wire.hpp"

#include <libdeflate.h>

#include <new>
#include <utility>

namespace emote::render {
namespace {

/// The largest uncompressed packet a vanilla client accepts (2^23 bytes).
constexpr std::size_t max_packet_length = std::size_t{1} << 23;

void put_varint(std::string& out, std::uint32_t u) {
  while (u >= 0x80) {
    out.push_back(static_cast<char>(u | 0x80));
    u >>= 7;
  }
  out.push_back(static_cast<char>(u));
}

/// A VarInt of at most `max_bytes` bytes at `pos`; false when malformed or truncated.
bool get_varint(std::string_view in, std::size_t& pos, int max_bytes, std::uint32_t& v) {
  v = 0;
  for (int k = 0; k < max_bytes; ++k) {
    if (pos >= in.size()) {
      return false;
    }
    const auto b = static_cast<std::uint8_t>(in[pos++]);
    v |= static_cast<std::uint32_t>(b & 0x7F) << (7 * k);
    if ((b & 0x80) == 0) {
      return true;
    }
  }
  return false;
}

} // namespace

packet_framer::packet_framer(std::int32_t threshold) : threshold_(threshold) {
  if (threshold_ >= 0) {
    compressor_ = libdeflate_alloc_compressor(compression_level);
    if (!compressor_) {
      throw std::bad_alloc();
    }
  }
}

packet_framer::~packet_framer() {
  libdeflate_free_compressor(compressor_);
}

packet_framer::packet_framer(packet_framer&& o) noexcept
    : threshold_(o.threshold_), compressor_(std::exchange(o.compressor_, nullptr)),
      scratch_(std::move(o.scratch_)), compressed_(o.compressed_) {}

bool packet_framer::append(std::string& out, std::string_view packet) {
  if (threshold_ < 0) {
    // render.md §5.6, compression off: length, packet.
    if (packet.size() > max_frame_length) {
      return false;
    }
    put_varint(out, static_cast<std::uint32_t>(packet.size()));
    out.append(packet);
    return true;
  }
  if (packet.size() < static_cast<std::size_t>(threshold_)) {
    // Below the threshold: length, data length 0, packet.
    if (packet.size() + 1 > max_frame_length) {
      return false;
    }
    put_varint(out, static_cast<std::uint32_t>(packet.size() + 1));
    out.push_back('\0');
    out.append(packet);
    return true;
  }
  if (packet.size() > max_packet_length) {
    return false;
  }
  // Length, data length (the uncompressed size), the zlib stream.
  const std::size_t bound = libdeflate_zlib_compress_bound(compressor_, packet.size());
  if (scratch_.size() < bound) {
    scratch_.resize(bound);
  }
  const std::size_t z =
      libdeflate_zlib_compress(compressor_, packet.data(), packet.size(), scratch_.data(), bound);
  const auto data_length = static_cast<std::int32_t>(packet.size());
  const std::size_t frame = varint_size(data_length) + z;
  if (z == 0 || frame > max_frame_length) {
    return false;
  }
  put_varint(out, static_cast<std::uint32_t>(frame));
  put_varint(out, static_cast<std::uint32_t>(data_length));
  out.append(scratch_.data(), z);
  ++compressed_;
  return true;
}

bool read_frame(std::string_view in, std::size_t& pos, std::int32_t threshold,
                std::string& packet) {
  std::size_t p = pos;
  std::uint32_t length = 0;
  if (!get_varint(in, p, 3, length) || in.size() - p < length) {
    return false;
  }
  const std::string_view frame = in.substr(p, length);
  packet.clear();
  if (threshold < 0) {
    packet.assign(frame);
  } else {
    std::size_t q = 0;
    std::uint32_t data_length = 0;
    if (!get_varint(frame, q, 5, data_length)) {
      return false;
    }
    const std::string_view body = frame.substr(q);
    if (data_length == 0) {
      // Vanilla rejects an uncompressed packet at or above the threshold.
      if (body.size() >= static_cast<std::size_t>(threshold)) {
        return false;
      }
      packet.assign(body);
    } else {
      if (data_length < static_cast<std::uint32_t>(threshold) || data_length > max_packet_length) {
        return false;
      }
      libdeflate_decompressor* d = libdeflate_alloc_decompressor();
      if (!d) {
        throw std::bad_alloc();
      }
      packet.resize(data_length);
      std::size_t actual = 0;
      const libdeflate_result r = libdeflate_zlib_decompress(d, body.data(), body.size(),
                                                             packet.data(), data_length, &actual);
      libdeflate_free_decompressor(d);
      if (r != LIBDEFLATE_SUCCESS || actual != data_length) {
        return false;
      }
    }
  }
  pos = p + length;
  return true;
}

} // namespace emote::render
