#pragma once
// Details shared by the content encoders (render.md §5.4): Java's modified UTF-8, which NBT
// strings use on the wire (DataOutput.writeUTF: a u16 byte length, NUL as 0xC0 0x80, a
// supplementary character as its UTF-16 surrogate pair, each half in 3 bytes), and the bounded
// warning list of one encode.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace emote::render::detail {

/// The most bytes the modified UTF-8 form of one NBT string (or compound key) may take.
inline constexpr std::size_t max_nbt_string_bytes = 65535;

/// The length of the modified UTF-8 form of UTF-8 text; an ill-formed sequence counts as the
/// U+FFFD it is written as.
std::size_t modified_utf8_length(std::string_view utf8) noexcept;

/// The byte length of the longest prefix of `utf8`, cut between scalar values (an ill-formed
/// subsequence counts as one), whose modified UTF-8 form takes at most `max_bytes`.
std::size_t modified_utf8_prefix(std::string_view utf8, std::size_t max_bytes) noexcept;

/// The warnings of one encode: each message once, at most `limit` of them, then one saying that
/// further ones were left out, so that no input can make the list large.
class warning_sink {
public:
  static constexpr std::size_t limit = 32;

  explicit warning_sink(std::vector<std::string>& out) noexcept : out_(out) {}
  void operator()(std::string message);

private:
  std::vector<std::string>& out_;
  std::vector<std::string> given_;
};

/// A name or value quoted in a warning, cut to a few dozen bytes (between characters).
std::string short_text(std::string_view s);

} // namespace emote::render::detail
