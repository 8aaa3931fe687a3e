#pragma once
// Source text helpers for the Molang lexer: Java's Character.isDigit for BMP code points (the
// lexer's ident/number rule, molang.md §2.1). UTF-8 is decoded by engine/core/utf8.

#include <cstdint>

namespace emote::molang {

/// A decimal digit of Unicode category Nd in the BMP other than 0-9 (Java's isDigit quirk).
bool is_non_ascii_digit(char32_t c) noexcept;

} // namespace emote::molang
