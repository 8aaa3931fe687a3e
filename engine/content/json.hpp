#pragma once
// The JSON dialect of emote files (formats.md §1.2): RFC 8259 plus comments, one trailing comma
// and non-finite literals (each warned once per file), duplicate keys (last value wins, first
// position kept, warned), U+FFFD for ill-formed UTF-8, a skipped BOM. Every value carries its
// 1-based line and column (columns in Unicode scalar values).
//
// The reader is the project's own: RapidJSON's reader cannot report per-value positions, rejects
// overflowing numbers (the dialect rounds them to infinity) and accepts `Inf`, which the dialect
// does not.

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace emote::content {

enum class json_kind : std::uint8_t { null_value, boolean, number, string, array, object };

struct json_member;

class json_value {
public:
  using array_type = std::vector<json_value>;
  using object_type = std::vector<json_member>;

  json_value() = default;

  [[nodiscard]] json_kind kind() const noexcept { return static_cast<json_kind>(v_.index()); }
  [[nodiscard]] bool is_null() const noexcept { return kind() == json_kind::null_value; }
  [[nodiscard]] bool is_bool() const noexcept { return kind() == json_kind::boolean; }
  [[nodiscard]] bool is_number() const noexcept { return kind() == json_kind::number; }
  [[nodiscard]] bool is_string() const noexcept { return kind() == json_kind::string; }
  [[nodiscard]] bool is_array() const noexcept { return kind() == json_kind::array; }
  [[nodiscard]] bool is_object() const noexcept { return kind() == json_kind::object; }

  [[nodiscard]] bool as_bool() const { return std::get<bool>(v_); }
  [[nodiscard]] double as_number() const { return std::get<double>(v_); }
  [[nodiscard]] const std::string& as_string() const { return std::get<std::string>(v_); }
  [[nodiscard]] const array_type& as_array() const { return std::get<array_type>(v_); }
  [[nodiscard]] const object_type& as_object() const { return std::get<object_type>(v_); }
  array_type& as_array() { return std::get<array_type>(v_); }
  object_type& as_object() { return std::get<object_type>(v_); }

  /// The member `key` of an object, or nullptr (also for non-objects).
  [[nodiscard]] const json_value* find(std::string_view key) const noexcept;

  // Defined after json_member: emplace destroys the old alternative, which needs it complete.
  void set_null();
  void set_bool(bool b);
  void set_number(double d);
  void set_string(std::string s);
  array_type& set_array();
  object_type& set_object();

  std::uint32_t line = 0;   ///< 1-based
  std::uint32_t column = 0; ///< 1-based, Unicode scalar values

private:
  std::variant<std::monostate, bool, double, std::string, array_type, object_type> v_;
};

struct json_member {
  std::string key;
  json_value value;
};

inline void json_value::set_null() { v_.emplace<0>(); }
inline void json_value::set_bool(bool b) { v_.emplace<1>(b); }
inline void json_value::set_number(double d) { v_.emplace<2>(d); }
inline void json_value::set_string(std::string s) { v_.emplace<3>(std::move(s)); }
inline json_value::array_type& json_value::set_array() { return v_.emplace<4>(); }
inline json_value::object_type& json_value::set_object() { return v_.emplace<5>(); }

/// A dialect warning or the parse error.
struct json_notice {
  std::uint32_t line = 1;
  std::uint32_t column = 1;
  std::string path;    ///< `$`, or the path of the value concerned
  std::string message; ///< complete message, e.g. "non-standard JSON: comment"
};

struct json_parse_result {
  bool ok = false;
  json_value root;
  std::vector<json_notice> warnings; ///< in generation order
  json_notice error;                 ///< when !ok: "invalid JSON: <detail>"
};

/// Deepest accepted nesting of arrays and objects; deeper input is invalid JSON.
inline constexpr int json_max_depth = 512;

json_parse_result parse_json(std::string_view bytes);

/// Compact JSON text: members in stored order, integral numbers up to 2^53 without a fraction,
/// other numbers in shortest round-trip form, non-finite numbers as null.
std::string to_json(const json_value& v);
void append_json_string(std::string& out, std::string_view s);

/// Equality for text components: objects by key set, arrays element-wise, numbers as doubles.
bool json_equal(const json_value& a, const json_value& b);

} // namespace emote::content
