#pragma once
// The one UTF-8 decoder (JSON readers and writer, Molang lexer, identifiers), with the Unicode
// "maximal subpart" rule, which fixes how many U+FFFD an ill-formed sequence becomes
// (formats.md §1.2).

#include <cstddef>
#include <string>
#include <string_view>

namespace emote::core {

struct utf8_decoded {
  char32_t code_point = 0; ///< U+FFFD when !valid
  std::size_t length = 1;  ///< bytes consumed (the maximal ill-formed subpart when !valid)
  bool valid = false;
};

/// Decode the sequence starting at s[i] (i < s.size()).
utf8_decoded decode_utf8(std::string_view s, std::size_t i) noexcept;

/// Replace each maximal ill-formed subsequence by U+FFFD. Returns the offset (in `out`) of the
/// first replacement, or npos when the input was well-formed (then `out` equals the input).
std::size_t sanitize_utf8(std::string_view in, std::string& out);

/// Append the UTF-8 form of `cp` (a scalar value).
void append_utf8(std::string& out, char32_t cp);

/// Number of UTF-16 code units of UTF-8 text (an ill-formed sequence counts as its U+FFFD).
std::size_t utf16_length(std::string_view utf8) noexcept;

} // namespace emote::core
