#pragma once
// Frames and compression on a gate connection (gate.md §2, §3).
//
// `frame_splitter` cuts a byte stream into frames by their VarInt length (at most 3 bytes, at most
// the configured limit), keeping each frame's raw bytes for forwarding unchanged.
// `packet_codec` reads packets out of frame bodies with the connection's compression threshold:
// `peek_id` inflates at most 5 bytes of a compressed body (a bounded partial inflate) to learn the
// packet id; `decode` inflates a whole packet, never beyond its declared length (at most 2^23,
// vanilla's limit). Writing uses render/framing's packet_framer with the same threshold.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace emote::gate {

/// The largest packet a vanilla client or server accepts uncompressed (2^23 bytes).
inline constexpr std::size_t max_packet_bytes = std::size_t{1} << 23;
/// The largest frame a Varint21 length can declare.
inline constexpr std::size_t max_frame_limit = (std::size_t{1} << 21) - 1;

enum class frame_error : std::uint8_t {
  none,
  bad_length, ///< the length VarInt runs past 3 bytes
  empty,      ///< a frame of length 0
  too_long,   ///< over the configured limit
};
std::string_view describe(frame_error e) noexcept;

struct frame {
  std::string_view raw;  ///< the whole frame, length prefix included (forwarded as it is)
  std::string_view body; ///< after the length prefix
};

class frame_splitter {
public:
  /// `max_frame`: the largest body length accepted (64..max_frame_limit).
  explicit frame_splitter(std::size_t max_frame) noexcept : max_frame_(max_frame) {}

  /// Append received bytes. Invalidates the views of frames returned so far.
  void feed(std::string_view bytes);
  /// The next complete frame; nullopt when none is complete yet or after an error.
  std::optional<frame> next();
  [[nodiscard]] frame_error error() const noexcept { return error_; }
  /// Bytes received and not yet returned in a frame.
  [[nodiscard]] std::size_t buffered() const noexcept { return buf_.size() - pos_; }
  /// Those bytes, removed (a pair that stops reading frames forwards them as they are).
  std::string take_rest();

private:
  std::size_t max_frame_;
  std::string buf_;
  std::size_t pos_ = 0;
  frame_error error_ = frame_error::none;
};

/// Reads packets out of frame bodies with a connection's compression threshold (< 0: off).
class packet_codec {
public:
  packet_codec();
  ~packet_codec();
  packet_codec(const packet_codec&) = delete;
  packet_codec& operator=(const packet_codec&) = delete;

  void set_threshold(std::int32_t threshold) noexcept { threshold_ = threshold; }
  [[nodiscard]] std::int32_t threshold() const noexcept { return threshold_; }

  /// The packet id of a frame body, inflating at most 5 bytes of a compressed one; nullopt when
  /// it cannot be read (malformed VarInts, a stream that does not inflate).
  std::optional<std::int32_t> peek_id(std::string_view body);
  /// The whole packet (id and fields) of a frame body into `out`; false when malformed: bad
  /// VarInts, a stream that does not inflate to exactly its declared length, a declared length
  /// below the threshold or over max_packet_bytes, an uncompressed body at or over the threshold.
  bool decode(std::string_view body, std::string& out);

private:
  std::int32_t threshold_ = -1;
  struct zstate;
  std::unique_ptr<zstate> z_;
};

/// The VarInt at the start of `s` and its size; nullopt when malformed or truncated.
std::optional<std::pair<std::int32_t, std::size_t>> read_varint(std::string_view s) noexcept;

} // namespace emote::gate
