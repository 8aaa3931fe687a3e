#pragma once
// Source text helpers for the Molang lexer: UTF-8 decoding, UTF-16 length, and Java's
// Character.isDigit for BMP code points (the lexer's ident/number rule, molang.md §2.1).

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace emote::molang {

/// One decoded code point and its length in bytes. Ill-formed bytes decode one at a time as
/// U+FFFD so that every input makes progress.
struct decoded_char {
  char32_t code = 0;
  std::size_t bytes = 1;
};

decoded_char decode_utf8(std::string_view text, std::size_t at) noexcept;

/// Length in UTF-16 code units (formats.md D14): supplementary code points count twice.
std::size_t utf16_length(std::string_view text) noexcept;

/// A decimal digit of Unicode category Nd in the BMP other than 0-9 (Java's isDigit quirk).
bool is_non_ascii_digit(char32_t c) noexcept;

} // namespace emote::molang
