#include "protocol/snbt.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace emote::protocol::snbt {
namespace {

bool bare_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
         c == '-' || c == '.' || c == '+';
}

bool digit(char c) {
  return c >= '0' && c <= '9';
}

// `[-+]?(0|[1-9][0-9]*)`: the whole of s.
bool integer_text(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
    ++i;
  }
  if (i >= s.size()) {
    return false;
  }
  if (s[i] == '0') {
    return i + 1 == s.size();
  }
  for (; i < s.size(); ++i) {
    if (!digit(s[i])) {
      return false;
    }
  }
  return true;
}

// `[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?`: the whole of s. `dotted` = has '.' or
// an exponent.
bool decimal_text(std::string_view s, bool& dotted) {
  std::size_t i = 0;
  dotted = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
    ++i;
  }
  std::size_t int_digits = 0;
  while (i < s.size() && digit(s[i])) {
    ++i;
    ++int_digits;
  }
  std::size_t frac_digits = 0;
  if (i < s.size() && s[i] == '.') {
    dotted = true;
    ++i;
    while (i < s.size() && digit(s[i])) {
      ++i;
      ++frac_digits;
    }
  }
  if (int_digits == 0 && frac_digits == 0) {
    return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    dotted = true;
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
      ++i;
    }
    std::size_t exp_digits = 0;
    while (i < s.size() && digit(s[i])) {
      ++i;
      ++exp_digits;
    }
    if (exp_digits == 0) {
      return false;
    }
  }
  return i == s.size();
}

bool fits_integer(std::string_view s, std::int64_t lo, std::int64_t hi) {
  if (!s.empty() && s[0] == '+') {
    s.remove_prefix(1);
  }
  std::int64_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && v >= lo && v <= hi;
}

bool finite_decimal(std::string_view s, bool as_float) {
  std::string copy(s);
  errno = 0;
  const double d = std::strtod(copy.c_str(), nullptr);
  if (!std::isfinite(d)) {
    return false;
  }
  return !as_float || std::isfinite(static_cast<float>(d));
}

// Types a bare token (formats.md §2.5 "Bare typing").
tag type_bare(std::string_view s) {
  if (s == "true" || s == "false") {
    return tag::byte_tag;
  }
  if (s.size() >= 2) {
    const char suffix = s.back();
    const std::string_view body = s.substr(0, s.size() - 1);
    switch (suffix) {
    case 'b':
    case 'B':
      if (integer_text(body)) {
        return fits_integer(body, -128, 127) ? tag::byte_tag : tag::string_tag;
      }
      break;
    case 's':
    case 'S':
      if (integer_text(body)) {
        return fits_integer(body, -32768, 32767) ? tag::short_tag : tag::string_tag;
      }
      break;
    case 'l':
    case 'L':
      if (integer_text(body)) {
        return fits_integer(body, std::numeric_limits<std::int64_t>::min(),
                            std::numeric_limits<std::int64_t>::max())
                   ? tag::long_tag
                   : tag::string_tag;
      }
      break;
    default:
      break;
    }
    bool dotted = false;
    if ((suffix == 'f' || suffix == 'F') && decimal_text(body, dotted)) {
      return finite_decimal(body, true) ? tag::float_tag : tag::string_tag;
    }
    if ((suffix == 'd' || suffix == 'D') && decimal_text(body, dotted)) {
      return finite_decimal(body, false) ? tag::double_tag : tag::string_tag;
    }
  }
  if (integer_text(s)) {
    return fits_integer(s, std::numeric_limits<std::int32_t>::min(),
                        std::numeric_limits<std::int32_t>::max())
               ? tag::int_tag
               : tag::string_tag;
  }
  bool dotted = false;
  if (decimal_text(s, dotted) && dotted) {
    return finite_decimal(s, false) ? tag::double_tag : tag::string_tag;
  }
  return tag::string_tag;
}

class parser {
public:
  explicit parser(std::string_view s) : s_(s) {}

  core::result<value, std::string> run() {
    skip_ws();
    if (!at('{')) {
      return fail("expected '{'");
    }
    value v;
    if (!compound(v, 1)) {
      return core::failure{std::move(error_)};
    }
    skip_ws();
    if (pos_ != s_.size()) {
      return fail("trailing characters at " + std::to_string(pos_));
    }
    return v;
  }

private:
  core::failure<std::string> fail(std::string detail) {
    return core::failure{"invalid compound SNBT: " + std::move(detail)};
  }
  bool error(std::string detail) {
    if (error_.empty()) {
      error_ = "invalid compound SNBT: " + std::move(detail);
    }
    return false;
  }
  bool at(char c) const { return pos_ < s_.size() && s_[pos_] == c; }
  void skip_ws() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\r' || s_[pos_] == '\n')) {
      ++pos_;
    }
  }
  std::string where() const { return " at " + std::to_string(pos_); }

  bool quoted(std::string& out) {
    const char q = s_[pos_++];
    while (pos_ < s_.size()) {
      const char c = s_[pos_++];
      if (c == q) {
        return true;
      }
      if (c == '\\') {
        if (pos_ >= s_.size()) {
          break;
        }
        const char e = s_[pos_++];
        if (e != '\\' && e != '"' && e != '\'') {
          pos_ -= 2;
          return error("invalid escape" + where());
        }
        out.push_back(e);
      } else {
        out.push_back(c);
      }
    }
    return error("unterminated string");
  }

  bool bare(std::string& out) {
    const std::size_t start = pos_;
    while (pos_ < s_.size() && bare_char(s_[pos_])) {
      ++pos_;
    }
    if (pos_ == start) {
      return error("expected a value" + where());
    }
    out.assign(s_.substr(start, pos_ - start));
    return true;
  }

  bool key(std::string& out) {
    if (at('"') || at('\'')) {
      return quoted(out);
    }
    const std::size_t start = pos_;
    while (pos_ < s_.size() && bare_char(s_[pos_])) {
      ++pos_;
    }
    if (pos_ == start) {
      return error("expected a key" + where());
    }
    out.assign(s_.substr(start, pos_ - start));
    return true;
  }

  bool compound(value& v, int depth) {
    if (depth > max_depth) {
      return error("nested too deeply");
    }
    v.type = tag::compound_tag;
    ++pos_; // '{'
    skip_ws();
    if (at('}')) {
      ++pos_;
      return true;
    }
    for (;;) {
      std::string k;
      if (!key(k)) {
        return false;
      }
      skip_ws();
      if (!at(':')) {
        return error("expected ':'" + where());
      }
      ++pos_;
      skip_ws();
      value member;
      if (!any(member, depth)) {
        return false;
      }
      bool replaced = false;
      for (auto& m : v.members) {
        if (m.first == k) {
          m.second = std::move(member);
          replaced = true;
          break;
        }
      }
      if (!replaced) {
        v.members.emplace_back(std::move(k), std::move(member));
      }
      skip_ws();
      if (at('}')) {
        ++pos_;
        return true;
      }
      if (!at(',')) {
        return error("expected ',' or '}'" + where());
      }
      ++pos_;
      skip_ws();
      if (at('}')) { // one trailing comma
        ++pos_;
        return true;
      }
    }
  }

  bool typed_array(value& v, char kind) {
    v.type = kind == 'B' ? tag::byte_array : kind == 'I' ? tag::int_array : tag::long_array;
    skip_ws();
    if (at(']')) {
      ++pos_;
      return true;
    }
    for (;;) {
      std::string token;
      if (!bare(token)) {
        return false;
      }
      std::string_view body = token;
      const char last = token.back();
      if (kind == 'B' && (last == 'b' || last == 'B')) {
        body.remove_suffix(1);
      } else if (kind == 'L' && (last == 'l' || last == 'L')) {
        body.remove_suffix(1);
      }
      const bool ok = integer_text(body) &&
                      (kind == 'B'   ? fits_integer(body, -128, 127)
                       : kind == 'I' ? fits_integer(body, std::numeric_limits<std::int32_t>::min(),
                                                    std::numeric_limits<std::int32_t>::max())
                                     : fits_integer(body, std::numeric_limits<std::int64_t>::min(),
                                                    std::numeric_limits<std::int64_t>::max()));
      if (!ok) {
        return error("invalid array element '" + token + "'");
      }
      value e;
      e.type = kind == 'B' ? tag::byte_tag : kind == 'I' ? tag::int_tag : tag::long_tag;
      e.text.assign(body);
      v.items.push_back(std::move(e));
      skip_ws();
      if (at(']')) {
        ++pos_;
        return true;
      }
      if (!at(',')) {
        return error("expected ',' or ']'" + where());
      }
      ++pos_;
      skip_ws();
    }
  }

  bool list(value& v, int depth) {
    if (depth > max_depth) {
      return error("nested too deeply");
    }
    ++pos_; // '['
    skip_ws();
    if (pos_ < s_.size() && (s_[pos_] == 'B' || s_[pos_] == 'I' || s_[pos_] == 'L')) {
      std::size_t p = pos_ + 1;
      while (p < s_.size() && (s_[p] == ' ' || s_[p] == '\t' || s_[p] == '\r' || s_[p] == '\n')) {
        ++p;
      }
      if (p < s_.size() && s_[p] == ';') {
        const char kind = s_[pos_];
        pos_ = p + 1;
        return typed_array(v, kind);
      }
    }
    v.type = tag::list_tag;
    if (at(']')) {
      ++pos_;
      return true;
    }
    for (;;) {
      value e;
      if (!any(e, depth)) {
        return false;
      }
      if (!v.items.empty() && v.items.front().type != e.type) {
        return error("list elements must share one type" + where());
      }
      v.items.push_back(std::move(e));
      skip_ws();
      if (at(']')) {
        ++pos_;
        return true;
      }
      if (!at(',')) {
        return error("expected ',' or ']'" + where());
      }
      ++pos_;
      skip_ws();
    }
  }

  bool any(value& v, int depth) {
    if (pos_ >= s_.size()) {
      return error("unexpected end");
    }
    const char c = s_[pos_];
    if (c == '{') {
      return compound(v, depth + 1);
    }
    if (c == '[') {
      return list(v, depth + 1);
    }
    if (c == '"' || c == '\'') {
      v.type = tag::string_tag;
      return quoted(v.text);
    }
    if (!bare(v.text)) {
      return false;
    }
    v.type = type_bare(v.text);
    return true;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  std::string error_;
};

bool namespace_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

} // namespace

const value* value::find(std::string_view key) const noexcept {
  for (const auto& m : members) {
    if (m.first == key) {
      return &m.second;
    }
  }
  return nullptr;
}

core::result<value, std::string> parse_compound(std::string_view text) {
  return parser(text).run();
}

std::optional<std::string> resource_location(std::string_view id) {
  const std::size_t colon = id.find(':');
  std::string_view ns = "minecraft";
  std::string_view path = id;
  if (colon != std::string_view::npos) {
    if (colon != 0) {
      ns = id.substr(0, colon);
    }
    path = id.substr(colon + 1);
  }
  for (char c : ns) {
    if (!namespace_char(c)) {
      return std::nullopt;
    }
  }
  for (char c : path) {
    if (!namespace_char(c) && c != '/') {
      return std::nullopt;
    }
  }
  std::string out;
  out.reserve(ns.size() + 1 + path.size());
  out.append(ns).push_back(':');
  out.append(path);
  return out;
}

core::result<api::item_stack, std::string> parse_item(std::string_view text) {
  api::item_stack stack;
  std::size_t first = 0;
  while (first < text.size() && (text[first] == ' ' || text[first] == '\t' || text[first] == '\r' ||
                                 text[first] == '\n')) {
    ++first;
  }
  if (first == text.size()) {
    return stack; // empty (also all-whitespace)
  }
  if (text[first] != '{') {
    auto id = resource_location(text);
    if (!id || id->size() == std::string_view("minecraft:").size()) {
      return core::failure{std::string("must be an item id or an item stack SNBT compound")};
    }
    if (*id == "minecraft:air") {
      return stack;
    }
    stack.snbt = "{id:\"" + *id + "\",count:1}";
    stack.id = std::move(*id);
    return stack;
  }
  auto parsed = parse_compound(text);
  if (!parsed) {
    return core::failure{std::move(parsed.error())};
  }
  const value* id = parsed->find("id");
  if (id == nullptr || id->type != tag::string_tag) {
    return core::failure{std::string("invalid item stack: needs a string id")};
  }
  auto location = resource_location(id->text);
  if (!location) {
    return core::failure{"invalid item stack: id is not a resource location: " + id->text};
  }
  if (*location == "minecraft:air") {
    return stack;
  }
  stack.snbt.assign(text);
  stack.id = std::move(*location);
  if (const value* components = parsed->find("components");
      components != nullptr && components->type == tag::compound_tag) {
    if (const value* charged = components->find("minecraft:charged_projectiles");
        charged != nullptr && charged->type == tag::list_tag && !charged->items.empty()) {
      stack.charged = true;
    }
  }
  return stack;
}

} // namespace emote::protocol::snbt
