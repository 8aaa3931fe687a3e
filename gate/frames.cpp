#include "gate/frames.hpp"

#include <zlib.h>

#include <new>

namespace emote::gate {

std::string_view describe(frame_error e) noexcept {
  switch (e) {
  case frame_error::none:
    return "no error";
  case frame_error::bad_length:
    return "a frame length VarInt longer than 3 bytes";
  case frame_error::empty:
    return "a frame of length 0";
  case frame_error::too_long:
    return "a frame over the frame limit";
  }
  return "?";
}

std::optional<std::pair<std::int32_t, std::size_t>> read_varint(std::string_view s) noexcept {
  std::uint32_t v = 0;
  for (std::size_t k = 0; k < 5; ++k) {
    if (k >= s.size()) {
      return std::nullopt;
    }
    const auto b = static_cast<std::uint8_t>(s[k]);
    v |= static_cast<std::uint32_t>(b & 0x7F) << (7 * k);
    if ((b & 0x80) == 0) {
      return std::pair{static_cast<std::int32_t>(v), k + 1};
    }
  }
  return std::nullopt;
}

void frame_splitter::feed(std::string_view bytes) {
  if (pos_ > 0 && pos_ * 2 >= buf_.size()) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  buf_.append(bytes);
}

std::optional<frame> frame_splitter::next() {
  if (error_ != frame_error::none) {
    return std::nullopt;
  }
  const std::string_view in = std::string_view(buf_).substr(pos_);
  std::uint32_t length = 0;
  std::size_t k = 0;
  for (;; ++k) {
    if (k == 3) {
      error_ = frame_error::bad_length;
      return std::nullopt;
    }
    if (k >= in.size()) {
      return std::nullopt; // the prefix is not complete yet
    }
    const auto b = static_cast<std::uint8_t>(in[k]);
    length |= static_cast<std::uint32_t>(b & 0x7F) << (7 * k);
    if ((b & 0x80) == 0) {
      break;
    }
  }
  const std::size_t prefix = k + 1;
  if (length == 0) {
    error_ = frame_error::empty;
    return std::nullopt;
  }
  if (length > max_frame_) {
    error_ = frame_error::too_long;
    return std::nullopt;
  }
  if (in.size() - prefix < length) {
    return std::nullopt;
  }
  frame f{in.substr(0, prefix + length), in.substr(prefix, length)};
  pos_ += prefix + length;
  return f;
}

std::string frame_splitter::take_rest() {
  std::string rest = buf_.substr(pos_);
  buf_.clear();
  pos_ = 0;
  return rest;
}

struct packet_codec::zstate {
  z_stream s{};
  bool ready = false;
  zstate() {
    if (inflateInit(&s) != Z_OK) {
      throw std::bad_alloc();
    }
    ready = true;
  }
  ~zstate() {
    if (ready) {
      inflateEnd(&s);
    }
  }
  zstate(const zstate&) = delete;
  zstate& operator=(const zstate&) = delete;

  /// Inflate `in` into `out` (capacity `cap`); the bytes written, or nullopt on a zlib error.
  /// `whole`: the stream must end exactly at `cap` bytes.
  std::optional<std::size_t> inflate_into(std::string_view in, char* out, std::size_t cap,
                                          bool whole) {
    inflateReset(&s);
    s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    s.avail_in = static_cast<uInt>(in.size());
    s.next_out = reinterpret_cast<Bytef*>(out);
    s.avail_out = static_cast<uInt>(cap);
    const int r = ::inflate(&s, Z_FINISH);
    const std::size_t produced = cap - s.avail_out;
    if (whole) {
      if (r != Z_STREAM_END || produced != cap) {
        return std::nullopt;
      }
      return produced;
    }
    // A partial read: any progress that is not an error is fine (Z_BUF_ERROR = out is full).
    if (r != Z_STREAM_END && r != Z_OK && r != Z_BUF_ERROR) {
      return std::nullopt;
    }
    return produced;
  }
};

packet_codec::packet_codec() : z_(std::make_unique<zstate>()) {}
packet_codec::~packet_codec() = default;

std::optional<std::int32_t> packet_codec::peek_id(std::string_view body) {
  if (threshold_ < 0) {
    const auto id = read_varint(body);
    return id ? std::optional{id->first} : std::nullopt;
  }
  const auto data_length = read_varint(body);
  if (!data_length || data_length->first < 0) {
    return std::nullopt;
  }
  const std::string_view rest = body.substr(data_length->second);
  if (data_length->first == 0) {
    const auto id = read_varint(rest);
    return id ? std::optional{id->first} : std::nullopt;
  }
  // gate.md §3: at most 5 bytes inflated (a packet id VarInt is at most 5 bytes).
  char head[5];
  const std::size_t cap = std::min<std::size_t>(5, static_cast<std::size_t>(data_length->first));
  const auto n = z_->inflate_into(rest, head, cap, false);
  if (!n) {
    return std::nullopt;
  }
  const auto id = read_varint(std::string_view(head, *n));
  return id ? std::optional{id->first} : std::nullopt;
}

bool packet_codec::decode(std::string_view body, std::string& out) {
  out.clear();
  if (threshold_ < 0) {
    out.assign(body);
    return true;
  }
  const auto data_length = read_varint(body);
  if (!data_length || data_length->first < 0) {
    return false;
  }
  const std::string_view rest = body.substr(data_length->second);
  if (data_length->first == 0) {
    // Vanilla refuses an uncompressed packet at or over the threshold.
    if (rest.size() >= static_cast<std::size_t>(threshold_)) {
      return false;
    }
    out.assign(rest);
    return true;
  }
  const auto n = static_cast<std::size_t>(data_length->first);
  if (n < static_cast<std::size_t>(threshold_) || n > max_packet_bytes) {
    return false;
  }
  out.resize(n);
  if (!z_->inflate_into(rest, out.data(), n, true)) {
    out.clear();
    return false;
  }
  return true;
}

} // namespace emote::gate
