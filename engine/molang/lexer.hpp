#pragma once
// The Molang lexer (molang.md §2.1): mocha's token rules, reproduced on UTF-8 input.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace emote::molang {

enum class token_kind : std::uint8_t {
  number,
  string,
  ident,
  kw_true,
  kw_false,
  kw_break,
  kw_continue,
  kw_return,
  bang_eq,
  bang,
  amp_amp,
  bar_bar,
  less_eq,
  less,
  greater_eq,
  greater,
  eq_eq,
  eq,
  arrow,
  minus,
  ques_ques,
  ques,
  plus,
  star,
  slash,
  comma,
  dot,
  lparen,
  rparen,
  lbrace,
  rbrace,
  lbracket,
  rbracket,
  colon,
  semicolon,
  end,   ///< end of input
  error, ///< a lexical error; the lexer stops after it
};

struct token {
  token_kind kind = token_kind::end;
  std::uint32_t begin = 0; ///< byte offsets into the source
  std::uint32_t end = 0;
  std::uint32_t line = 1;   ///< 1-based
  std::uint32_t column = 1; ///< 1-based, in Unicode scalar values
  double number = 0;        ///< number tokens: the correctly rounded value (+inf when too large)
  bool non_ascii_digit = false; ///< ident tokens containing an Nd digit other than 0-9
};

struct lex_result {
  std::vector<token> tokens; ///< ends with `end` or `error`
  std::string error;         ///< detail of the `error` token
};

lex_result lex(std::string_view source);

/// Human-readable token description for syntax error details.
std::string_view describe(token_kind kind) noexcept;

} // namespace emote::molang
