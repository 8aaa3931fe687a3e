#pragma once
// The one JSON writer. `json_out` appends to a caller-owned std::string (reused across frames, so
// steady-state encoding allocates nothing). Numbers are the shortest decimal that reads back to
// the same value (std::to_chars); binary32 quantities use the binary32 shortest form; negative
// zero is "-0.0"; non-finite values are null. See docs/guide/wire-format.md
// "Numbers the server writes".
// Strings: control characters, `"` and `\` escaped, ill-formed UTF-8 as U+FFFD.

#include "engine/json/value.hpp"

#include <rapidjson/document.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace emote::json {

/// Appends JSON to a std::string. The helpers write values; `separator` and `array` below write
/// the commas between items and members, so no caller places one by hand.
class json_out {
public:
  explicit json_out(std::string& buffer) noexcept : b_(&buffer) {}

  void raw(std::string_view s) { b_->append(s); }
  void ch(char c) { b_->push_back(c); }
  /// A quoted string. Control characters, `"` and `\` are escaped; ill-formed UTF-8 sequences
  /// become U+FFFD so the output is always valid JSON text.
  void str(std::string_view s);
  void i64(std::int64_t v);
  void u64(std::uint64_t v);
  /// binary32: the shortest decimal that reads back (as binary32) to `v`.
  void f32(float v);
  /// binary64: the shortest decimal that reads back (as binary64) to `v`.
  void f64(double v);
  void boolean(bool v) { raw(v ? std::string_view("true") : std::string_view("false")); }
  void null() { raw("null"); }
  /// A number of the source reader: exact integers as integers, the rest as f64.
  void number(const json_number& n);
  /// Any RapidJSON value, compact, members in stored order, numbers as above.
  void value(const rapidjson::Value& v);
  /// Any source-reader value, compact, members in stored order, numbers as above.
  void value(const json_value& v);

  [[nodiscard]] std::string& buffer() noexcept { return *b_; }

private:
  std::string* b_;
};

/// The separator of one array's items or one object's members: calling it writes nothing the
/// first time and ',' every later time. One per array or object being written.
class separator {
public:
  void operator()(json_out& o) {
    if (written_) {
      o.ch(',');
    }
    written_ = true;
  }
  /// No item was written yet.
  [[nodiscard]] bool empty() const noexcept { return !written_; }

private:
  bool written_ = false;
};

/// `[`, the items, `]`: `each(o, item)` writes one item, the separators are the writer's.
template <class Range, class Each>
void array(json_out& o, const Range& items, Each&& each) {
  o.ch('[');
  separator sep;
  for (const auto& item : items) {
    sep(o);
    each(o, item);
  }
  o.ch(']');
}

/// Compact text of a value (a convenience over json_out::value).
std::string to_json(const rapidjson::Value& v);
std::string to_json(const json_value& v);

} // namespace emote::json
