#pragma once
// JSON text in and out for the protocol layer.
//
// Reading: RapidJSON's reader with a wrapper handler that (a) converts every number from its
// decimal text with std::from_chars, so a number reads as the nearest binary64 (ties to even),
// (b) bounds the nesting depth, so no line can exhaust the stack of code that walks the tree, and
// (c) rejects anything after the root value, NUL bytes included.
//
// Writing: `json_out` appends to a caller-owned std::string (reused across frames, so steady-state
// encoding allocates nothing). Numbers are the shortest decimal that reads back to the same value
// (std::to_chars); binary32 quantities use the binary32 shortest form. See docs/protocol-format.md
// "Numbers" for the rules, including negative zero ("-0.0") and non-finite values (null).

#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace emote::protocol {

struct json_parse_error {
  std::size_t offset = 0; ///< byte offset where parsing failed
  std::string message;    ///< "<what> at offset <n>"
};

enum class json_dialect : std::uint8_t {
  strict,  ///< RFC 8259: client lines, recordings, output lines
  relaxed, ///< plus comments and trailing commas: hand-written scenario files
};

/// Deepest nesting of arrays and objects a parsed text may have.
inline constexpr unsigned max_json_depth = 256;

/// Parse exactly one JSON value into `doc` (which is reset). Invalid UTF-8 is an error.
std::optional<json_parse_error> parse_json(std::string_view text, rapidjson::Document& doc,
                                           json_dialect dialect = json_dialect::strict);

/// Appends JSON to a std::string. The caller writes separators; the helpers write values.
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
  /// Any RapidJSON value, compact, members in stored order, numbers as above.
  void value(const rapidjson::Value& v);

  [[nodiscard]] std::string& buffer() noexcept { return *b_; }

private:
  std::string* b_;
};

/// Compact text of a value (a convenience over json_out::value).
std::string to_json(const rapidjson::Value& v);

/// The member `key` of an object; nullptr when absent or when `obj` is not an object.
[[nodiscard]] const rapidjson::Value* find_member(const rapidjson::Value& obj,
                                                  std::string_view key) noexcept;

/// Helpers used by decoders.
[[nodiscard]] bool is_integral(const rapidjson::Value& v) noexcept;
/// The value as int64 when it is a number with an integral value in range.
[[nodiscard]] std::optional<std::int64_t> as_int64(const rapidjson::Value& v) noexcept;

} // namespace emote::protocol
