#include "engine/molang/lexer.hpp"

#include "engine/core/decimal.hpp"
#include "engine/core/utf8.hpp"
#include "engine/molang/text.hpp"

#include <charconv>
#include <limits>

namespace emote::molang {

namespace {

bool is_letter(char32_t c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_ascii_digit(char32_t c) noexcept {
  return c >= '0' && c <= '9';
}

char lower(char c) noexcept {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool equals_lower(std::string_view word, std::string_view keyword) noexcept {
  if (word.size() != keyword.size()) {
    return false;
  }
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (lower(word[i]) != keyword[i]) {
      return false;
    }
  }
  return true;
}

class lexer {
public:
  explicit lexer(std::string_view src) : src_(src) {}

  lex_result run() {
    lex_result out;
    while (true) {
      skip_space();
      token t = start_token();
      if (at_ >= src_.size()) {
        t.kind = token_kind::end;
        t.end = t.begin;
        out.tokens.push_back(t);
        return out;
      }
      const auto c = peek();
      if (is_ascii_digit(c.code_point) || is_non_ascii_digit(c.code_point)) {
        lex_number(t, out);
      } else if (is_letter(c.code_point)) {
        lex_word(t);
      } else if (c.code_point == '\'') {
        if (!lex_string(t)) {
          out.error = "unterminated string";
          t.kind = token_kind::error;
        }
      } else {
        lex_punct(t, out);
      }
      t.end = static_cast<std::uint32_t>(at_);
      out.tokens.push_back(t);
      if (t.kind == token_kind::error) {
        return out;
      }
    }
  }

private:
  core::utf8_decoded peek() const noexcept { return core::decode_utf8(src_, at_); }

  void advance() noexcept {
    const auto c = peek();
    at_ += c.length;
    if (c.code_point == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
  }

  bool at_char(char32_t c) const noexcept { return at_ < src_.size() && peek().code_point == c; }

  void skip_space() noexcept {
    while (at_ < src_.size()) {
      const char c = src_[at_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      advance();
    }
  }

  token start_token() const noexcept {
    token t;
    t.begin = static_cast<std::uint32_t>(at_);
    t.line = line_;
    t.column = column_;
    return t;
  }

  void lex_number(token& t, lex_result& out) {
    bool foreign = false;
    const auto digits = [&] {
      while (at_ < src_.size()) {
        const auto c = peek();
        if (is_ascii_digit(c.code_point)) {
          advance();
        } else if (is_non_ascii_digit(c.code_point)) {
          foreign = true;
          advance();
        } else {
          return;
        }
      }
    };
    digits();
    if (at_char('.')) {
      advance();
      digits();
    }
    if (foreign) {
      t.kind = token_kind::error;
      out.error = "number contains a non-ASCII digit";
      return;
    }
    t.kind = token_kind::number;
    // Digits with an optional fraction (`1.` included), correctly rounded: the one decimal
    // reader (too large a value is +inf).
    t.number = core::decimal_to_double(src_.substr(t.begin, at_ - t.begin));
  }

  void lex_word(token& t) {
    while (at_ < src_.size()) {
      const auto c = peek();
      if (is_letter(c.code_point) || is_ascii_digit(c.code_point)) {
        advance();
      } else if (is_non_ascii_digit(c.code_point)) {
        t.non_ascii_digit = true;
        advance();
      } else {
        break;
      }
    }
    const auto word = src_.substr(t.begin, at_ - t.begin);
    t.kind = token_kind::ident;
    if (equals_lower(word, "break")) {
      t.kind = token_kind::kw_break;
    } else if (equals_lower(word, "continue")) {
      t.kind = token_kind::kw_continue;
    } else if (equals_lower(word, "return")) {
      t.kind = token_kind::kw_return;
    } else if (equals_lower(word, "true")) {
      t.kind = token_kind::kw_true;
    } else if (equals_lower(word, "false")) {
      t.kind = token_kind::kw_false;
    }
  }

  bool lex_string(token& t) {
    advance(); // opening quote
    while (at_ < src_.size()) {
      if (src_[at_] == '\'') {
        advance();
        t.kind = token_kind::string;
        return true;
      }
      advance();
    }
    return false;
  }

  void lex_punct(token& t, lex_result& out) {
    const auto c = peek();
    advance();
    const auto two = [&](char32_t second, token_kind pair, token_kind single) {
      if (at_char(second)) {
        advance();
        t.kind = pair;
      } else {
        t.kind = single;
      }
    };
    switch (c.code_point) {
    case '!':
      two('=', token_kind::bang_eq, token_kind::bang);
      return;
    case '<':
      two('=', token_kind::less_eq, token_kind::less);
      return;
    case '>':
      two('=', token_kind::greater_eq, token_kind::greater);
      return;
    case '=':
      two('=', token_kind::eq_eq, token_kind::eq);
      return;
    case '-':
      two('>', token_kind::arrow, token_kind::minus);
      return;
    case '?':
      two('?', token_kind::ques_ques, token_kind::ques);
      return;
    case '&':
      two('&', token_kind::amp_amp, token_kind::error);
      if (t.kind == token_kind::error) {
        out.error = "unexpected '&' (no bitwise operators; use '&&')";
      }
      return;
    case '|':
      two('|', token_kind::bar_bar, token_kind::error);
      if (t.kind == token_kind::error) {
        out.error = "unexpected '|' (no bitwise operators; use '||')";
      }
      return;
    case '+':
      t.kind = token_kind::plus;
      return;
    case '*':
      t.kind = token_kind::star;
      return;
    case '/':
      t.kind = token_kind::slash;
      return;
    case ',':
      t.kind = token_kind::comma;
      return;
    case '.':
      t.kind = token_kind::dot;
      return;
    case '(':
      t.kind = token_kind::lparen;
      return;
    case ')':
      t.kind = token_kind::rparen;
      return;
    case '{':
      t.kind = token_kind::lbrace;
      return;
    case '}':
      t.kind = token_kind::rbrace;
      return;
    case '[':
      t.kind = token_kind::lbracket;
      return;
    case ']':
      t.kind = token_kind::rbracket;
      return;
    case ':':
      t.kind = token_kind::colon;
      return;
    case ';':
      t.kind = token_kind::semicolon;
      return;
    case '"':
      t.kind = token_kind::error;
      out.error = "unexpected '\"' (strings use single quotes)";
      return;
    default:
      break;
    }
    t.kind = token_kind::error;
    if (c.code_point >= 0x20 && c.code_point < 0x7F) {
      out.error = "unexpected character '";
      out.error += static_cast<char>(c.code_point);
      out.error += '\'';
    } else {
      static constexpr char hex[] = "0123456789ABCDEF";
      out.error = "unexpected character U+";
      const int width = c.code_point > 0xFFFF ? 6 : 4;
      for (int i = width - 1; i >= 0; --i) {
        out.error += hex[(c.code_point >> (4 * i)) & 0xF];
      }
    }
  }

  std::string_view src_;
  std::size_t at_ = 0;
  std::uint32_t line_ = 1;
  std::uint32_t column_ = 1;
};

} // namespace

lex_result lex(std::string_view source) {
  return lexer(source).run();
}

std::string_view describe(token_kind kind) noexcept {
  switch (kind) {
  case token_kind::number:
    return "number";
  case token_kind::string:
    return "string";
  case token_kind::ident:
    return "identifier";
  case token_kind::kw_true:
    return "'true'";
  case token_kind::kw_false:
    return "'false'";
  case token_kind::kw_break:
    return "'break'";
  case token_kind::kw_continue:
    return "'continue'";
  case token_kind::kw_return:
    return "'return'";
  case token_kind::bang_eq:
    return "'!='";
  case token_kind::bang:
    return "'!'";
  case token_kind::amp_amp:
    return "'&&'";
  case token_kind::bar_bar:
    return "'||'";
  case token_kind::less_eq:
    return "'<='";
  case token_kind::less:
    return "'<'";
  case token_kind::greater_eq:
    return "'>='";
  case token_kind::greater:
    return "'>'";
  case token_kind::eq_eq:
    return "'=='";
  case token_kind::eq:
    return "'='";
  case token_kind::arrow:
    return "'->'";
  case token_kind::minus:
    return "'-'";
  case token_kind::ques_ques:
    return "'?"
           "?'";
  case token_kind::ques:
    return "'?'";
  case token_kind::plus:
    return "'+'";
  case token_kind::star:
    return "'*'";
  case token_kind::slash:
    return "'/'";
  case token_kind::comma:
    return "','";
  case token_kind::dot:
    return "'.'";
  case token_kind::lparen:
    return "'('";
  case token_kind::rparen:
    return "')'";
  case token_kind::lbrace:
    return "'{'";
  case token_kind::rbrace:
    return "'}'";
  case token_kind::lbracket:
    return "'['";
  case token_kind::rbracket:
    return "']'";
  case token_kind::colon:
    return "':'";
  case token_kind::semicolon:
    return "';'";
  case token_kind::end:
    return "end of input";
  case token_kind::error:
    return "invalid token";
  }
  return "token";
}

} // namespace emote::molang
