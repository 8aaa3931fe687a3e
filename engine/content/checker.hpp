#pragma once
// The validation context shared by the Animation and Sequence checks: the current JSON path,
// the first error (first error wins), pending warnings, and readers that apply the value rules of
// formats.md §2.1 with the stated gists.

#include "engine/content/model.hpp"
#include "engine/core/diagnostic.hpp"
#include "engine/json/source_reader.hpp"
#include "engine/json/writer.hpp"

#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace emote::content {
// The tree of the line/column reader (engine/json), by its short names.
using json::json_kind;
using json::json_member;
using json::json_notice;
using json::json_parse_result;
using json::json_value;
} // namespace emote::content

namespace emote::content::detail {

struct location {
  std::uint32_t line = 1;
  std::uint32_t column = 1;
};

inline location location_of(const json_value& v) noexcept {
  return {v.line, v.column};
}

/// The member `key` when present and not null (null = absent, formats.md §2.1).
inline const json_value* present(const json_value& obj, std::string_view key) noexcept {
  const auto* v = obj.find(key);
  return v != nullptr && !v->is_null() ? v : nullptr;
}
/// Key present, whatever its value.
inline bool has_key(const json_value& obj, std::string_view key) noexcept {
  return obj.find(key) != nullptr;
}

class checker {
public:
  explicit checker(std::string file) : file_(std::move(file)), path_(1, '$') { path_.reserve(256); }

  /// Appends `.key` or `[index]` to the path until destroyed.
  class scope {
  public:
    scope(checker& c, std::string_view key) : c_(c), n_(c.path_.size()) {
      c.path_ += '.';
      c.path_ += key;
    }
    scope(checker& c, std::size_t index) : c_(c), n_(c.path_.size()) {
      char digits[24];
      const auto r = std::to_chars(digits, digits + sizeof digits, index);
      c.path_ += '[';
      c.path_.append(digits, r.ptr);
      c.path_ += ']';
    }
    ~scope() { c_.path_.resize(n_); }
    scope(const scope&) = delete;
    scope& operator=(const scope&) = delete;

  private:
    checker& c_;
    std::size_t n_;
  };

  [[nodiscard]] scope at(std::string_view key) { return scope(*this, key); }
  [[nodiscard]] scope at(std::size_t index) { return scope(*this, index); }
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  [[nodiscard]] const std::string& file() const noexcept { return file_; }

  // Errors: the first one is kept; every call returns false so checks can `return c.fail(...)`.
  bool fail(location loc, std::string_view message);
  bool fail(const json_value& at, std::string_view message) {
    return fail(location_of(at), message);
  }
  bool fail_path(std::string path, location loc, std::string_view message);
  [[nodiscard]] bool failed() const noexcept { return error_.has_value(); }
  /// Attaches a suggestion (core/suggest.hpp) to the error; returns false like fail().
  bool suggest(std::string suggestion) {
    if (error_) {
      error_->suggestion = std::move(suggestion);
    }
    return false;
  }
  [[nodiscard]] const std::optional<core::diagnostic>& error() const noexcept { return error_; }

  void warn(location loc, std::string_view message);
  void warn_path(std::string path, location loc, std::string_view message);
  /// "unknown key ignored" for each member of `obj` not in `allowed`.
  void unknown_keys(const json_value& obj, std::span<const std::string_view> allowed);
  core::diagnostics take_warnings() { return std::move(warnings_); }

  // Readers. Each reads member `key` of the object `obj` with the path extended by `.key`;
  // `required` decides whether absence fails with "is required" (located at obj's '{').
  bool string(const json_value& obj, std::string_view key, std::string& out, bool required = true);
  bool nonblank_string(const json_value& obj, std::string_view key, std::string& out);
  bool boolean(const json_value& obj, std::string_view key, bool& out, bool required = true);
  bool finite(const json_value& obj, std::string_view key, double& out, bool required = true);
  bool int32(const json_value& obj, std::string_view key, std::int32_t& out, bool required = true);
  bool time(const json_value& obj, std::string_view key, std::int32_t minimum, ticks& out,
            bool required = true);
  bool object(const json_value& obj, std::string_view key, const json_value*& out,
              bool required = true);
  bool array(const json_value& obj, std::string_view key, const json_value*& out,
             bool required = true);

  /// "is required" for `key` of `obj` (at obj's '{'), with a suggestion when obj has a key that
  /// looks like a misspelling of it. Returns false.
  bool missing(const json_value& obj, std::string_view key);

  // Value-level checks at the current path.
  bool require(const json_value& obj, std::string_view key, const json_value*& out);
  bool as_string(const json_value& v, std::string& out);
  bool as_int32(const json_value& v, std::int32_t& out);
  bool as_finite(const json_value& v, double& out);
  bool as_time(const json_value& v, std::int32_t minimum, ticks& out);
  bool identifier(const json_value& v, std::string& out);
  /// Three finite numbers ("must contain 3 values"; elements "must be a number"/"must be finite").
  bool vec3(const json_value& obj, std::string_view key, std::array<double, 3>& out,
            bool required = true);

private:
  std::string file_;
  std::string path_;
  std::optional<core::diagnostic> error_;
  core::diagnostics warnings_;
};

} // namespace emote::content::detail
