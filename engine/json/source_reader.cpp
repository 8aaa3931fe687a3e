#include "engine/json/source_reader.hpp"

#include "engine/core/decimal.hpp"
#include "engine/core/utf8.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace emote::json {

namespace {

constexpr std::string_view bom = "\xEF\xBB\xBF";
// Objects with more members than this get a hash index for duplicate detection, so that a huge
// object cannot make parsing quadratic.
constexpr std::size_t index_threshold = 16;

class parser {
public:
  parser(std::string_view text, source_dialect dialect, json_parse_result& out)
      : s_(text), dialect_(dialect), out_(out) {}

  void run() {
    path_ = "$";
    if (!skip_ws()) {
      return;
    }
    if (at_end()) {
      fail("empty input");
      return;
    }
    if (!value(out_.root, 0)) {
      return;
    }
    if (!skip_ws()) {
      return;
    }
    if (!at_end()) {
      fail("data after the value");
      return;
    }
    out_.ok = true;
  }

  void locate(std::size_t off, std::uint32_t& line, std::uint32_t& col) {
    if (off < pos_off_) {
      pos_off_ = 0;
      pos_line_ = 1;
      pos_col_ = 1;
    }
    for (std::size_t k = pos_off_; k < off && k < s_.size(); ++k) {
      const char c = s_[k];
      if (c == '\r') {
        ++pos_line_;
        pos_col_ = 1;
      } else if (c == '\n') {
        if (k == 0 || s_[k - 1] != '\r') {
          ++pos_line_;
          pos_col_ = 1;
        }
      } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
        ++pos_col_;
      }
    }
    pos_off_ = off;
    line = pos_line_;
    col = pos_col_;
  }

  void warn_at(std::size_t off, std::string_view path, std::string_view message) {
    json_notice n;
    locate(off, n.line, n.column);
    n.path.assign(path);
    n.message.assign(message);
    out_.warnings.push_back(std::move(n));
  }

private:
  [[nodiscard]] bool at_end() const noexcept { return i_ >= s_.size(); }
  [[nodiscard]] char peek() const noexcept { return s_[i_]; }

  bool fail(std::string_view detail) {
    if (failed_) {
      return false;
    }
    failed_ = true;
    out_.error.path = "$";
    out_.error.message = "invalid JSON: ";
    out_.error.message += detail;
    locate(i_, out_.error.line, out_.error.column);
    return false;
  }

  /// An error about the value at the current path (not about the JSON grammar).
  bool fail_at_path(std::string_view message) {
    if (failed_) {
      return false;
    }
    failed_ = true;
    out_.error.path = path_;
    out_.error.message.assign(message);
    locate(i_, out_.error.line, out_.error.column);
    return false;
  }

  bool fail_unexpected() {
    if (at_end()) {
      return fail("unexpected end of input");
    }
    const auto c = static_cast<unsigned char>(peek());
    if (c >= 0x20 && c < 0x7F) {
      return fail(std::string("unexpected character '") + static_cast<char>(c) + "'");
    }
    return fail("unexpected character");
  }

  bool skip_ws() {
    while (!at_end()) {
      const char c = peek();
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++i_;
        continue;
      }
      if (c == '/' && i_ + 1 < s_.size() && (s_[i_ + 1] == '/' || s_[i_ + 1] == '*')) {
        if (dialect_ == source_dialect::strict) {
          return fail("comments are not allowed");
        }
        if (!warned_comment_ && dialect_ == source_dialect::emote_file) {
          warned_comment_ = true;
          warn_at(i_, path_, "non-standard JSON: comment");
        }
        if (s_[i_ + 1] == '/') {
          i_ += 2;
          while (!at_end() && peek() != '\n' && peek() != '\r') {
            ++i_;
          }
        } else {
          const auto end = s_.find("*/", i_ + 2);
          if (end == std::string_view::npos) {
            i_ = s_.size();
            return fail("unterminated comment");
          }
          i_ = end + 2;
        }
        continue;
      }
      break;
    }
    return true;
  }

  bool literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) {
      return fail_unexpected();
    }
    i_ += word.size();
    return true;
  }

  bool non_finite(json_value& v, std::string_view word, double d, std::size_t start) {
    if (s_.substr(i_, word.size()) != word) {
      return fail_unexpected();
    }
    if (dialect_ != source_dialect::emote_file) {
      i_ = start;
      return fail("non-finite numbers are not allowed");
    }
    i_ += word.size();
    if (!warned_nonfinite_) {
      warned_nonfinite_ = true;
      warn_at(start, path_, "non-standard JSON: non-finite number");
    }
    v.set_number(d);
    return true;
  }

  static bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

  bool number(json_value& v) {
    const std::size_t start = i_;
    if (peek() == '-') {
      ++i_;
      if (!at_end() && peek() == 'I') {
        return non_finite(v, "Infinity", -std::numeric_limits<double>::infinity(), start);
      }
    }
    if (at_end() || !is_digit(peek())) {
      return fail("invalid number");
    }
    if (peek() == '0') {
      ++i_;
    } else {
      while (!at_end() && is_digit(peek())) {
        ++i_;
      }
    }
    if (!at_end() && peek() == '.') {
      ++i_;
      if (at_end() || !is_digit(peek())) {
        return fail("invalid number");
      }
      while (!at_end() && is_digit(peek())) {
        ++i_;
      }
    }
    if (!at_end() && (peek() == 'e' || peek() == 'E')) {
      ++i_;
      if (!at_end() && (peek() == '+' || peek() == '-')) {
        ++i_;
      }
      if (at_end() || !is_digit(peek())) {
        return fail("invalid number");
      }
      while (!at_end() && is_digit(peek())) {
        ++i_;
      }
    }
    v.set_number(number_from_token(s_.substr(start, i_ - start)));
    return true;
  }

  static int hex(char c) noexcept {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  }

  // Reads 4 hex digits after "\u" at s_[i_]; -1 when malformed.
  long hex4(std::size_t at) const noexcept {
    if (at + 4 > s_.size()) {
      return -1;
    }
    long v = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const int h = hex(s_[at + k]);
      if (h < 0) {
        return -1;
      }
      v = v * 16 + h;
    }
    return v;
  }

  bool string(std::string& out) {
    ++i_; // opening quote
    while (true) {
      const std::size_t run = i_;
      while (!at_end()) {
        const auto c = static_cast<unsigned char>(peek());
        if (c == '"' || c == '\\' || c < 0x20) {
          break;
        }
        ++i_;
      }
      out.append(s_.substr(run, i_ - run));
      if (at_end()) {
        return fail("unterminated string");
      }
      const char c = peek();
      if (c == '"') {
        ++i_;
        return true;
      }
      if (c != '\\') {
        return fail("control character in string");
      }
      ++i_;
      if (at_end()) {
        return fail("unterminated string");
      }
      const char e = peek();
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        ++i_;
        break;
      case 'b':
        out += '\b';
        ++i_;
        break;
      case 'f':
        out += '\f';
        ++i_;
        break;
      case 'n':
        out += '\n';
        ++i_;
        break;
      case 'r':
        out += '\r';
        ++i_;
        break;
      case 't':
        out += '\t';
        ++i_;
        break;
      case 'u': {
        const long cu = hex4(i_ + 1);
        if (cu < 0) {
          return fail("invalid \\u escape");
        }
        i_ += 5;
        char32_t cp = static_cast<char32_t>(cu);
        if (cu >= 0xD800 && cu <= 0xDBFF) {
          cp = 0xFFFD;
          if (i_ + 1 < s_.size() && s_[i_] == '\\' && s_[i_ + 1] == 'u') {
            const long lo = hex4(i_ + 2);
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
              cp = 0x10000 + ((static_cast<char32_t>(cu) - 0xD800) << 10) +
                   (static_cast<char32_t>(lo) - 0xDC00);
              i_ += 6;
            }
          }
        } else if (cu >= 0xDC00 && cu <= 0xDFFF) {
          cp = 0xFFFD;
        }
        if (cp == 0xFFFD && cu != 0xFFFD && dialect_ != source_dialect::emote_file) {
          return fail("lone surrogate in a \\u escape");
        }
        core::append_utf8(out, cp);
        break;
      }
      default:
        return fail("invalid escape sequence");
      }
    }
  }

  enum class after { more, closed, failed };

  /// What follows an array element or object member: `,` (a trailing one before `close` is
  /// tolerated with a warning) or `close`.
  after separator(char close) {
    if (!skip_ws()) {
      return after::failed;
    }
    if (at_end()) {
      fail("unexpected end of input");
      return after::failed;
    }
    if (peek() == ',') {
      const std::size_t comma = i_;
      ++i_;
      if (!skip_ws()) {
        return after::failed;
      }
      if (!at_end() && peek() == close) {
        if (dialect_ == source_dialect::strict) {
          i_ = comma;
          fail("trailing commas are not allowed");
          return after::failed;
        }
        trailing_comma(comma);
        ++i_;
        return after::closed;
      }
      return after::more;
    }
    if (peek() == close) {
      ++i_;
      return after::closed;
    }
    fail(close == ']' ? "expected ',' or ']'" : "expected ',' or '}'");
    return after::failed;
  }

  void trailing_comma(std::size_t comma) {
    if (!warned_trailing_ && dialect_ == source_dialect::emote_file) {
      warned_trailing_ = true;
      warn_at(comma, path_, "non-standard JSON: trailing comma");
    }
  }

  bool array(json_value& v, int depth) {
    ++i_; // '['
    auto& arr = v.set_array();
    if (!skip_ws()) {
      return false;
    }
    if (!at_end() && peek() == ']') {
      ++i_;
      return true;
    }
    const std::size_t base = path_.size();
    while (true) {
      char digits[24];
      const auto r = std::to_chars(digits, digits + sizeof digits, arr.size());
      path_ += '[';
      path_.append(digits, r.ptr);
      path_ += ']';
      arr.emplace_back();
      const bool ok = value(arr.back(), depth);
      path_.resize(base);
      if (!ok) {
        return false;
      }
      const after next = separator(']');
      if (next != after::more) {
        return next == after::closed;
      }
    }
  }

  bool object(json_value& v, int depth) {
    ++i_; // '{'
    auto& members = v.set_object();
    if (!skip_ws()) {
      return false;
    }
    if (!at_end() && peek() == '}') {
      ++i_;
      return true;
    }
    const std::size_t base = path_.size();
    std::unordered_map<std::string, std::size_t> index;
    while (true) {
      if (at_end() || peek() != '"') {
        return at_end() ? fail("unexpected end of input") : fail("expected a quoted member name");
      }
      const std::size_t key_at = i_;
      std::string key;
      if (!string(key) || !skip_ws()) {
        return false;
      }
      if (at_end() || peek() != ':') {
        return at_end() ? fail("unexpected end of input") : fail("expected ':'");
      }
      ++i_;
      if (!skip_ws()) {
        return false;
      }
      path_ += '.';
      path_ += key;
      // Find an earlier member with this key.
      std::size_t existing = members.size();
      if (members.size() <= index_threshold) {
        for (std::size_t k = 0; k < members.size(); ++k) {
          if (members[k].key == key) {
            existing = k;
            break;
          }
        }
      } else {
        if (index.empty()) {
          for (std::size_t k = 0; k < members.size(); ++k) {
            index.emplace(members[k].key, k);
          }
        }
        if (const auto it = index.find(key); it != index.end()) {
          existing = it->second;
        }
      }
      bool ok = false;
      if (existing == members.size()) {
        members.push_back(json_member{std::move(key), json_value()});
        ok = value(members.back().value, depth);
        if (!index.empty()) {
          index.emplace(members.back().key, members.size() - 1);
        }
      } else {
        json_value later;
        ok = value(later, depth);
        if (ok && dialect_ == source_dialect::relaxed) {
          i_ = key_at;
          return fail_at_path("duplicate key");
        }
        if (ok) {
          out_.warnings.push_back(
              json_notice{later.line, later.column, path_, "duplicate key; last value wins"});
          members[existing].value = std::move(later);
        }
      }
      path_.resize(base);
      if (!ok) {
        return false;
      }
      const after next = separator('}');
      if (next != after::more) {
        return next == after::closed;
      }
    }
  }

  bool value(json_value& v, int depth) {
    if (at_end()) {
      return fail("unexpected end of input");
    }
    locate(i_, v.line, v.column);
    const std::size_t start = i_;
    switch (peek()) {
    case '{':
      if (depth + 1 > max_depth) {
        return fail("nesting too deep");
      }
      return object(v, depth + 1);
    case '[':
      if (depth + 1 > max_depth) {
        return fail("nesting too deep");
      }
      return array(v, depth + 1);
    case '"': {
      std::string s;
      if (!string(s)) {
        return false;
      }
      v.set_string(std::move(s));
      return true;
    }
    case 't':
      v.set_bool(true);
      return literal("true");
    case 'f':
      v.set_bool(false);
      return literal("false");
    case 'n':
      v.set_null();
      return literal("null");
    case 'N':
      return non_finite(v, "NaN", std::numeric_limits<double>::quiet_NaN(), start);
    case 'I':
      return non_finite(v, "Infinity", std::numeric_limits<double>::infinity(), start);
    default:
      if (peek() == '-' || is_digit(peek())) {
        return number(v);
      }
      return fail_unexpected();
    }
  }

  std::string_view s_;
  source_dialect dialect_;
  json_parse_result& out_;
  std::size_t i_ = 0;
  std::string path_;
  bool failed_ = false;
  bool warned_comment_ = false;
  bool warned_trailing_ = false;
  bool warned_nonfinite_ = false;
  std::size_t pos_off_ = 0;
  std::uint32_t pos_line_ = 1;
  std::uint32_t pos_col_ = 1;
};

} // namespace

json_parse_result parse_source(std::string_view bytes, source_dialect dialect) {
  json_parse_result out;
  bool had_bom = false;
  if (dialect != source_dialect::strict && bytes.substr(0, bom.size()) == bom) {
    bytes.remove_prefix(bom.size());
    had_bom = true;
  }
  std::string text;
  const std::size_t replaced = core::sanitize_utf8(bytes, text);
  parser p(text, dialect, out);
  if (replaced != std::string::npos && dialect != source_dialect::emote_file) {
    // The position of the first ill-formed sequence (its U+FFFD in the sanitized text).
    out.error.path = "$";
    out.error.message = "invalid JSON: ill-formed UTF-8";
    p.locate(replaced, out.error.line, out.error.column);
    return out;
  }
  if (had_bom && dialect == source_dialect::emote_file) {
    out.warnings.push_back(json_notice{1, 1, "$", "byte order mark ignored"});
  }
  if (replaced != std::string::npos) {
    p.warn_at(replaced, "$", "invalid UTF-8 replaced");
  }
  p.run();
  return out;
}

} // namespace emote::json
