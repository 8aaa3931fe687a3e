#pragma once
// The JSON tree of the source reader: every value carries its 1-based line and column, numbers
// keep the exact integer a token spelled when it fits 64 bits (the wire reader does the same),
// object members stay in file order.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace emote::json {

/// Deepest accepted nesting of arrays and objects, for both readers (source_reader.hpp,
/// wire_reader.hpp); deeper input is invalid, so no text can exhaust the stack of code that walks
/// a tree.
inline constexpr int max_depth = 512;

enum class json_kind : std::uint8_t { null_value, boolean, number, string, array, object };

/// How a number token was read: an integer token that fits int64 (negative) or uint64
/// (non-negative) keeps its exact value; everything else ("1.5", "1e3", "-0", integers beyond 64
/// bits, non-finite literals) is the nearest binary64.
enum class number_form : std::uint8_t { real, signed_integer, unsigned_integer };

struct json_number {
  double value = 0; ///< always the nearest binary64, whatever the form
  std::uint64_t bits = 0;
  number_form form = number_form::real;

  static json_number real(double d) noexcept { return {d, 0, number_form::real}; }
  static json_number signed_integer(std::int64_t i) noexcept {
    return {static_cast<double>(i), static_cast<std::uint64_t>(i), number_form::signed_integer};
  }
  static json_number unsigned_integer(std::uint64_t u) noexcept {
    return {static_cast<double>(u), u, number_form::unsigned_integer};
  }
  /// The value as int64 when it is integral and in range (`4`, `4.0`, `40e-1`).
  [[nodiscard]] std::optional<std::int64_t> as_int64() const noexcept;
};

/// The value of a number token of the JSON grammar
/// (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, already checked by the caller): the exact
/// integer when the token is one that fits 64 bits, else the nearest binary64
/// (core::decimal_to_double). Both readers convert numbers here.
json_number number_from_token(std::string_view token);

struct json_member;

class json_value {
public:
  using array_type = std::vector<json_value>;
  using object_type = std::vector<json_member>;

  json_value() = default;

  [[nodiscard]] json_kind kind() const noexcept;
  [[nodiscard]] bool is_null() const noexcept { return kind() == json_kind::null_value; }
  [[nodiscard]] bool is_bool() const noexcept { return kind() == json_kind::boolean; }
  [[nodiscard]] bool is_number() const noexcept { return kind() == json_kind::number; }
  [[nodiscard]] bool is_string() const noexcept { return kind() == json_kind::string; }
  [[nodiscard]] bool is_array() const noexcept { return kind() == json_kind::array; }
  [[nodiscard]] bool is_object() const noexcept { return kind() == json_kind::object; }

  [[nodiscard]] bool as_bool() const;
  [[nodiscard]] double as_number() const;
  [[nodiscard]] const json_number& number() const;
  [[nodiscard]] const std::string& as_string() const;
  [[nodiscard]] const array_type& as_array() const;
  [[nodiscard]] const object_type& as_object() const;
  array_type& as_array();
  object_type& as_object();

  /// The member `key` of an object, or nullptr (also for non-objects).
  [[nodiscard]] const json_value* find(std::string_view key) const noexcept;

  void set_null();
  void set_bool(bool b);
  void set_number(double d);
  void set_number(json_number n);
  void set_string(std::string s);
  array_type& set_array();
  object_type& set_object();

  std::uint32_t line = 0;   ///< 1-based
  std::uint32_t column = 0; ///< 1-based, Unicode scalar values

private:
  std::variant<std::monostate, bool, json_number, std::string, array_type, object_type> v_;
};

struct json_member {
  std::string key;
  json_value value;
};

// Defined here, where json_member is complete.
inline json_kind json_value::kind() const noexcept {
  return static_cast<json_kind>(v_.index());
}
inline bool json_value::as_bool() const {
  return std::get<bool>(v_);
}
inline double json_value::as_number() const {
  return std::get<json_number>(v_).value;
}
inline const json_number& json_value::number() const {
  return std::get<json_number>(v_);
}
inline const std::string& json_value::as_string() const {
  return std::get<std::string>(v_);
}
inline const json_value::array_type& json_value::as_array() const {
  return std::get<array_type>(v_);
}
inline const json_value::object_type& json_value::as_object() const {
  return std::get<object_type>(v_);
}
inline json_value::array_type& json_value::as_array() {
  return std::get<array_type>(v_);
}
inline json_value::object_type& json_value::as_object() {
  return std::get<object_type>(v_);
}
inline void json_value::set_null() {
  v_.emplace<0>();
}
inline void json_value::set_bool(bool b) {
  v_.emplace<1>(b);
}
inline void json_value::set_number(double d) {
  v_.emplace<2>(json_number::real(d));
}
inline void json_value::set_number(json_number n) {
  v_.emplace<2>(n);
}
inline void json_value::set_string(std::string s) {
  v_.emplace<3>(std::move(s));
}
inline json_value::array_type& json_value::set_array() {
  return v_.emplace<4>();
}
inline json_value::object_type& json_value::set_object() {
  return v_.emplace<5>();
}

/// Equality for text components: objects by key set, arrays element-wise, numbers as doubles.
bool json_equal(const json_value& a, const json_value& b);

/// The value a JSON path of the readers' form (`$`, `.key`, `[i]`, keys as written) names, or
/// nullptr. Used to give a path found by a later check its line and column.
const json_value* find_path(const json_value& root, std::string_view path) noexcept;

} // namespace emote::json
