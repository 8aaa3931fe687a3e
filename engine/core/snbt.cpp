#include "engine/core/snbt.hpp"

#include "engine/core/decimal.hpp"
#include "engine/core/identifier.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace emote::core {

// ---------------------------------------------------------------------------------------------
// Compound and equality

const nbt_tag* nbt_compound::find(std::string_view key) const noexcept {
  for (const auto& e : entries) {
    if (e.key == key) {
      return &e.value;
    }
  }
  return nullptr;
}

nbt_tag* nbt_compound::find(std::string_view key) noexcept {
  for (auto& e : entries) {
    if (e.key == key) {
      return &e.value;
    }
  }
  return nullptr;
}

void nbt_compound::set(std::string key, nbt_tag value) {
  if (auto* existing = find(key)) {
    *existing = std::move(value);
    return;
  }
  entries.push_back(nbt_entry{std::move(key), std::move(value)});
}

namespace {

// Compounds above this size use sorting or hashing instead of linear key searches, so that huge
// compounds cannot make parsing, comparing or merging quadratic.
constexpr std::size_t small_compound = 16;

std::vector<const nbt_entry*> sorted_entries(const nbt_compound& c) {
  std::vector<const nbt_entry*> v;
  v.reserve(c.entries.size());
  for (const auto& e : c.entries) {
    v.push_back(&e);
  }
  std::sort(v.begin(), v.end(),
            [](const nbt_entry* x, const nbt_entry* y) { return x->key < y->key; });
  return v;
}

} // namespace

bool operator==(const nbt_compound& a, const nbt_compound& b) {
  if (a.entries.size() != b.entries.size()) {
    return false;
  }
  if (a.entries.size() <= small_compound) {
    for (const auto& e : a.entries) {
      const auto* other = b.find(e.key);
      if (other == nullptr || !(e.value == *other)) {
        return false;
      }
    }
    return true;
  }
  const auto x = sorted_entries(a);
  const auto y = sorted_entries(b);
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i]->key != y[i]->key || !(x[i]->value == y[i]->value)) {
      return false;
    }
  }
  return true;
}

bool operator==(const nbt_tag& a, const nbt_tag& b) {
  if (a.type != b.type) {
    return false;
  }
  switch (a.type) {
  case nbt_type::byte_tag:
  case nbt_type::short_tag:
  case nbt_type::int_tag:
  case nbt_type::long_tag:
    return a.integer == b.integer;
  case nbt_type::float_tag:
  case nbt_type::double_tag:
    return a.number == b.number;
  case nbt_type::string_tag:
    return a.string == b.string;
  case nbt_type::list_tag:
    return a.list == b.list;
  case nbt_type::compound_tag:
    return a.compound == b.compound;
  case nbt_type::byte_array:
  case nbt_type::int_array:
  case nbt_type::long_array:
    return a.array == b.array;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Parser

namespace {

constexpr int max_depth = 512;

bool bare_char(char c) noexcept {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
         c == '-' || c == '.' || c == '+';
}
bool digit(char c) noexcept {
  return c >= '0' && c <= '9';
}

// [-+]?(0|[1-9][0-9]*) ; returns the length matched from the start (0 = no match).
std::size_t match_integer(std::string_view s) noexcept {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
    ++i;
  }
  if (i >= s.size() || !digit(s[i])) {
    return 0;
  }
  if (s[i] == '0') {
    return i + 1;
  }
  while (i < s.size() && digit(s[i])) {
    ++i;
  }
  return i;
}

// [-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)? ; length matched, and whether a '.' or an
// exponent occurred.
std::size_t match_decimal(std::string_view s, bool& dot_or_exp) noexcept {
  dot_or_exp = false;
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
    ++i;
  }
  std::size_t int_digits = 0;
  while (i < s.size() && digit(s[i])) {
    ++i;
    ++int_digits;
  }
  if (int_digits > 0) {
    if (i < s.size() && s[i] == '.') {
      dot_or_exp = true;
      ++i;
      while (i < s.size() && digit(s[i])) {
        ++i;
      }
    }
  } else {
    if (i >= s.size() || s[i] != '.') {
      return 0;
    }
    ++i;
    std::size_t frac = 0;
    while (i < s.size() && digit(s[i])) {
      ++i;
      ++frac;
    }
    if (frac == 0) {
      return 0;
    }
    dot_or_exp = true;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < s.size() && (s[j] == '-' || s[j] == '+')) {
      ++j;
    }
    std::size_t exp_digits = 0;
    while (j < s.size() && digit(s[j])) {
      ++j;
      ++exp_digits;
    }
    if (exp_digits > 0) {
      dot_or_exp = true;
      i = j;
    }
  }
  return i;
}

std::string_view strip_plus(std::string_view s) noexcept {
  return !s.empty() && s.front() == '+' ? s.substr(1) : s;
}

bool parse_int64(std::string_view s, std::int64_t& out) noexcept {
  s = strip_plus(s);
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

nbt_tag string_tag(std::string_view s) {
  nbt_tag t;
  t.type = nbt_type::string_tag;
  t.string.assign(s);
  return t;
}

// Types a bare token (formats.md §2.5).
nbt_tag type_bare(std::string_view s) {
  nbt_tag t;
  if (s == "true" || s == "false") {
    t.type = nbt_type::byte_tag;
    t.integer = s == "true" ? 1 : 0;
    return t;
  }
  if (const auto n = match_integer(s); n > 0) {
    const auto rest = s.substr(n);
    if (rest.size() <= 1) {
      const char suffix = rest.empty() ? '\0' : rest.front();
      nbt_type type = nbt_type::int_tag;
      std::int64_t lo = std::numeric_limits<std::int32_t>::min();
      std::int64_t hi = std::numeric_limits<std::int32_t>::max();
      bool known = true;
      switch (suffix) {
      case '\0':
        break;
      case 'b':
      case 'B':
        type = nbt_type::byte_tag;
        lo = -128;
        hi = 127;
        break;
      case 's':
      case 'S':
        type = nbt_type::short_tag;
        lo = -32768;
        hi = 32767;
        break;
      case 'l':
      case 'L':
        type = nbt_type::long_tag;
        lo = std::numeric_limits<std::int64_t>::min();
        hi = std::numeric_limits<std::int64_t>::max();
        break;
      default:
        known = false;
        break;
      }
      if (known) {
        std::int64_t v = 0;
        if (parse_int64(s.substr(0, n), v) && v >= lo && v <= hi) {
          t.type = type;
          t.integer = v;
          return t;
        }
        return string_tag(s); // out of range
      }
    }
  }
  bool dot_or_exp = false;
  if (const auto n = match_decimal(s, dot_or_exp); n > 0) {
    const auto rest = s.substr(n);
    const auto digits = strip_plus(s.substr(0, n));
    if (rest.size() == 1 && (rest.front() == 'f' || rest.front() == 'F')) {
      const float f = decimal_to_float(digits);
      if (std::isfinite(f)) {
        t.type = nbt_type::float_tag;
        t.number = static_cast<double>(f);
        return t;
      }
      return string_tag(s);
    }
    if ((rest.size() == 1 && (rest.front() == 'd' || rest.front() == 'D')) ||
        (rest.empty() && dot_or_exp)) {
      const double d = decimal_to_double(digits);
      if (std::isfinite(d)) {
        t.type = nbt_type::double_tag;
        t.number = d;
        return t;
      }
      return string_tag(s);
    }
  }
  return string_tag(s);
}

class parser {
public:
  explicit parser(std::string_view s) : s_(s) {}

  bool parse(nbt_compound& out) {
    ws();
    if (at_end() || peek() != '{') {
      return fail("expected '{'");
    }
    if (!compound(out, 1)) {
      return false;
    }
    ws();
    if (!at_end()) {
      return fail("unexpected trailing data");
    }
    return true;
  }

  std::string error() const { return error_; }

private:
  [[nodiscard]] bool at_end() const noexcept { return i_ >= s_.size(); }
  [[nodiscard]] char peek() const noexcept { return s_[i_]; }
  void ws() noexcept {
    while (i_ < s_.size() &&
           (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\r' || s_[i_] == '\n')) {
      ++i_;
    }
  }

  enum class after { more, closed, failed };

  /// What follows an element: `,` or `close` (compounds also accept `,` right before `}`).
  after separator(char close, bool trailing_comma_ok) {
    ws();
    if (!at_end() && peek() == ',') {
      ++i_;
      if (trailing_comma_ok) {
        ws();
        if (!at_end() && peek() == close) {
          ++i_;
          return after::closed;
        }
      }
      return after::more;
    }
    if (!at_end() && peek() == close) {
      ++i_;
      return after::closed;
    }
    fail(close == ']' ? "expected ',' or ']'" : "expected ',' or '}'");
    return after::failed;
  }

  bool fail(std::string_view what) {
    // Position as a 1-based character (scalar value) index into the string.
    std::size_t chars = 0;
    for (std::size_t k = 0; k < i_ && k < s_.size(); ++k) {
      if ((static_cast<unsigned char>(s_[k]) & 0xC0) != 0x80) {
        ++chars;
      }
    }
    error_.assign(what);
    error_ += at_end() ? " at end of input" : " at position " + std::to_string(chars + 1);
    return false;
  }

  bool quoted(std::string& out) {
    const char q = peek();
    ++i_;
    while (true) {
      if (at_end()) {
        return fail("unterminated quoted string");
      }
      const char c = peek();
      if (c == q) {
        ++i_;
        return true;
      }
      if (c == '\\') {
        ++i_;
        if (at_end()) {
          return fail("unterminated quoted string");
        }
        const char e = peek();
        if (e != '\\' && e != '"' && e != '\'') {
          return fail("invalid escape sequence");
        }
        out += e;
        ++i_;
        continue;
      }
      out += c;
      ++i_;
    }
  }

  std::string_view bare() {
    const std::size_t b = i_;
    while (i_ < s_.size() && bare_char(s_[i_])) {
      ++i_;
    }
    return s_.substr(b, i_ - b);
  }

  bool key(std::string& out) {
    if (at_end()) {
      return fail("expected a key");
    }
    if (peek() == '"' || peek() == '\'') {
      return quoted(out);
    }
    const auto k = bare();
    if (k.empty()) {
      return fail("expected a key");
    }
    out.assign(k);
    return true;
  }

  static void insert(nbt_compound& out, std::unordered_map<std::string, std::size_t>& index,
                     std::string k, nbt_tag v) {
    if (out.entries.size() < small_compound) {
      out.set(std::move(k), std::move(v));
      return;
    }
    if (index.empty()) {
      for (std::size_t n = 0; n < out.entries.size(); ++n) {
        index.emplace(out.entries[n].key, n);
      }
    }
    if (const auto it = index.find(k); it != index.end()) {
      out.entries[it->second].value = std::move(v);
      return;
    }
    index.emplace(k, out.entries.size());
    out.entries.push_back(nbt_entry{std::move(k), std::move(v)});
  }

  bool compound(nbt_compound& out, int depth) {
    if (depth > max_depth) {
      return fail("nesting too deep");
    }
    ++i_; // '{'
    ws();
    if (!at_end() && peek() == '}') {
      ++i_;
      return true;
    }
    std::unordered_map<std::string, std::size_t> index;
    while (true) {
      std::string k;
      if (!key(k)) {
        return false;
      }
      ws();
      if (at_end() || peek() != ':') {
        return fail("expected ':'");
      }
      ++i_;
      ws();
      nbt_tag v;
      if (!value(v, depth)) {
        return false;
      }
      insert(out, index, std::move(k), std::move(v));
      const after next = separator('}', /*trailing_comma_ok=*/true);
      if (next != after::more) {
        return next == after::closed;
      }
    }
  }

  // After '[': is this `B;`, `I;` or `L;` (whitespace allowed around the tokens)?
  bool typed_array_ahead(char& kind) const noexcept {
    std::size_t j = i_ + 1;
    auto skip = [&] {
      while (j < s_.size() && (s_[j] == ' ' || s_[j] == '\t' || s_[j] == '\r' || s_[j] == '\n')) {
        ++j;
      }
    };
    skip();
    if (j >= s_.size() || (s_[j] != 'B' && s_[j] != 'I' && s_[j] != 'L')) {
      return false;
    }
    kind = s_[j];
    ++j;
    skip();
    return j < s_.size() && s_[j] == ';';
  }

  bool typed_array(nbt_tag& out, char kind) {
    // Skip to just after ';'.
    while (peek() != ';') {
      ++i_;
    }
    ++i_;
    out.type = kind == 'B'   ? nbt_type::byte_array
               : kind == 'I' ? nbt_type::int_array
                             : nbt_type::long_array;
    ws();
    if (!at_end() && peek() == ']') {
      ++i_;
      return true;
    }
    while (true) {
      ws();
      const auto tok = bare();
      if (tok.empty()) {
        return fail("expected an array element");
      }
      const auto n = match_integer(tok);
      const auto suffix = n > 0 ? tok.substr(n) : std::string_view();
      bool suffix_ok = false;
      std::int64_t lo = 0;
      std::int64_t hi = 0;
      if (kind == 'B') {
        suffix_ok = suffix.empty() || suffix == "b" || suffix == "B";
        lo = -128;
        hi = 127;
      } else if (kind == 'I') {
        suffix_ok = suffix.empty();
        lo = std::numeric_limits<std::int32_t>::min();
        hi = std::numeric_limits<std::int32_t>::max();
      } else {
        suffix_ok = suffix.empty() || suffix == "l" || suffix == "L";
        lo = std::numeric_limits<std::int64_t>::min();
        hi = std::numeric_limits<std::int64_t>::max();
      }
      std::int64_t v = 0;
      if (n == 0 || !suffix_ok || !parse_int64(tok.substr(0, n), v) || v < lo || v > hi) {
        i_ -= tok.size();
        return fail("invalid array element '" + std::string(tok) + "'");
      }
      out.array.push_back(v);
      const after next = separator(']', /*trailing_comma_ok=*/false);
      if (next != after::more) {
        return next == after::closed;
      }
    }
  }

  bool list(nbt_tag& out, int depth) {
    if (depth > max_depth) {
      return fail("nesting too deep");
    }
    char kind = 0;
    if (typed_array_ahead(kind)) {
      ++i_; // '['
      return typed_array(out, kind);
    }
    ++i_; // '['
    out.type = nbt_type::list_tag;
    ws();
    if (!at_end() && peek() == ']') {
      ++i_;
      return true;
    }
    while (true) {
      ws();
      const std::size_t at = i_;
      nbt_tag v;
      if (!value(v, depth)) {
        return false;
      }
      if (!out.list.empty() && out.list.front().type != v.type) {
        i_ = at;
        return fail("list elements must share one type");
      }
      out.list.push_back(std::move(v));
      const after next = separator(']', /*trailing_comma_ok=*/false);
      if (next != after::more) {
        return next == after::closed;
      }
    }
  }

  bool value(nbt_tag& out, int depth) {
    if (at_end()) {
      return fail("expected a value");
    }
    const char c = peek();
    if (c == '{') {
      out.type = nbt_type::compound_tag;
      return compound(out.compound, depth + 1);
    }
    if (c == '[') {
      return list(out, depth + 1);
    }
    if (c == '"' || c == '\'') {
      out.type = nbt_type::string_tag;
      return quoted(out.string);
    }
    const auto tok = bare();
    if (tok.empty()) {
      return fail("expected a value");
    }
    out = type_bare(tok);
    return true;
  }

  std::string_view s_;
  std::size_t i_ = 0;
  std::string error_;
};

// ---------------------------------------------------------------------------------------------
// Writer

bool bare_key(std::string_view k) noexcept {
  if (k.empty()) {
    return false;
  }
  for (char c : k) {
    if (!bare_char(c)) {
      return false;
    }
  }
  return true;
}

void write_quoted(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
    }
    out += c;
  }
  out += '"';
}

template <class F>
void write_real(std::string& out, F value, char suffix) {
  if (value == 0) {
    value = 0; // canonical: -0 prints as 0 (they compare equal)
  }
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, value);
  const std::string_view text(buf, static_cast<std::size_t>(r.ptr - buf));
  out += text;
  if (text.find_first_of(".e") == std::string_view::npos) {
    out += ".0";
  }
  out += suffix;
}

void write_tag(std::string& out, const nbt_tag& t);

void write_compound(std::string& out, const nbt_compound& c) {
  std::vector<const nbt_entry*> sorted;
  sorted.reserve(c.entries.size());
  for (const auto& e : c.entries) {
    sorted.push_back(&e);
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const nbt_entry* a, const nbt_entry* b) { return a->key < b->key; });
  out += '{';
  bool first = true;
  for (const auto* e : sorted) {
    if (!first) {
      out += ',';
    }
    first = false;
    if (bare_key(e->key)) {
      out += e->key;
    } else {
      write_quoted(out, e->key);
    }
    out += ':';
    write_tag(out, e->value);
  }
  out += '}';
}

void write_tag(std::string& out, const nbt_tag& t) {
  switch (t.type) {
  case nbt_type::byte_tag:
    out += std::to_string(t.integer);
    out += 'b';
    return;
  case nbt_type::short_tag:
    out += std::to_string(t.integer);
    out += 's';
    return;
  case nbt_type::int_tag:
    out += std::to_string(t.integer);
    return;
  case nbt_type::long_tag:
    out += std::to_string(t.integer);
    out += 'L';
    return;
  case nbt_type::float_tag:
    write_real(out, static_cast<float>(t.number), 'f');
    return;
  case nbt_type::double_tag:
    write_real(out, t.number, 'd');
    return;
  case nbt_type::string_tag:
    write_quoted(out, t.string);
    return;
  case nbt_type::list_tag: {
    out += '[';
    for (std::size_t i = 0; i < t.list.size(); ++i) {
      if (i > 0) {
        out += ',';
      }
      write_tag(out, t.list[i]);
    }
    out += ']';
    return;
  }
  case nbt_type::compound_tag:
    write_compound(out, t.compound);
    return;
  case nbt_type::byte_array:
  case nbt_type::int_array:
  case nbt_type::long_array: {
    const char* head = t.type == nbt_type::byte_array  ? "[B;"
                       : t.type == nbt_type::int_array ? "[I;"
                                                       : "[L;";
    const char* suffix = t.type == nbt_type::byte_array  ? "b"
                         : t.type == nbt_type::int_array ? ""
                                                         : "L";
    out += head;
    for (std::size_t i = 0; i < t.array.size(); ++i) {
      if (i > 0) {
        out += ',';
      }
      out += std::to_string(t.array[i]);
      out += suffix;
    }
    out += ']';
    return;
  }
  }
}

} // namespace

result<nbt_compound, std::string> parse_compound_snbt(std::string_view text) {
  parser p(text);
  nbt_compound c;
  if (!p.parse(c)) {
    return failure{p.error()};
  }
  return c;
}

std::string to_snbt(const nbt_compound& c) {
  std::string out;
  write_compound(out, c);
  return out;
}

std::string to_snbt(const nbt_tag& t) {
  std::string out;
  write_tag(out, t);
  return out;
}

void merge_into(nbt_compound& target, const nbt_compound& source) {
  if (target.entries.size() + source.entries.size() <= small_compound) {
    for (const auto& e : source.entries) {
      auto* existing = target.find(e.key);
      if (existing != nullptr && existing->type == nbt_type::compound_tag &&
          e.value.type == nbt_type::compound_tag) {
        merge_into(existing->compound, e.value.compound);
      } else if (existing != nullptr) {
        *existing = e.value;
      } else {
        target.entries.push_back(nbt_entry{e.key, e.value});
      }
    }
    return;
  }
  // Reserving first keeps every key's storage in place, so the index may hold views of them.
  target.entries.reserve(target.entries.size() + source.entries.size());
  std::unordered_map<std::string_view, std::size_t> index;
  for (std::size_t n = 0; n < target.entries.size(); ++n) {
    index.emplace(target.entries[n].key, n);
  }
  for (const auto& e : source.entries) {
    const auto it = index.find(e.key);
    if (it == index.end()) {
      target.entries.push_back(nbt_entry{e.key, e.value});
      index.emplace(target.entries.back().key, target.entries.size() - 1);
      continue;
    }
    auto& existing = target.entries[it->second].value;
    if (existing.type == nbt_type::compound_tag && e.value.type == nbt_type::compound_tag) {
      merge_into(existing.compound, e.value.compound);
    } else {
      existing = e.value;
    }
  }
}

std::string check_item_stack(const nbt_compound& c, std::string* normalized_id) {
  const auto* id = c.find("id");
  if (id == nullptr) {
    return "item stack needs an id";
  }
  if (id->type != nbt_type::string_tag) {
    return "item id must be a string";
  }
  auto rl = parse_resource_location(id->string);
  if (!rl) {
    return "invalid item id: " + id->string;
  }
  if (normalized_id != nullptr) {
    *normalized_id = std::move(*rl);
  }
  return {};
}

std::string check_block_state(const nbt_compound& c) {
  const auto* name = c.find("Name");
  if (name == nullptr) {
    return "block state needs a Name";
  }
  if (name->type != nbt_type::string_tag) {
    return "block Name must be a string";
  }
  if (!parse_resource_location(name->string)) {
    return "invalid block Name: " + name->string;
  }
  if (const auto* props = c.find("Properties")) {
    if (props->type != nbt_type::compound_tag) {
      return "block Properties must be a compound";
    }
    for (const auto& e : props->compound.entries) {
      if (e.value.type != nbt_type::string_tag) {
        return "block property " + e.key + " must be a string";
      }
    }
  }
  return {};
}

} // namespace emote::core
