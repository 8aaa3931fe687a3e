#pragma once
// The validation context shared by the Animation and Sequence checks: the current JSON path,
// the errors (loading keeps the first; `check` collects every one, formats.md §1.3), pending
// warnings, and readers that apply the value rules of formats.md §2.1 with the stated gists.

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

/// How far checking a file goes (formats.md §1.3). `first_error`: stop at the first failing check
/// (loading). `all_errors`: after a failing check, go on with the checks that do not depend on the
/// value it rejected (`check`); the first error found is the one `first_error` finds.
enum class error_mode : std::uint8_t { first_error, all_errors };

class checker {
public:
  explicit checker(std::string file, error_mode mode = error_mode::first_error)
      : file_(std::move(file)), path_(1, '$'), mode_(mode) {
    path_.reserve(256);
  }

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

  // Errors: the first one is kept (`all_errors`: every one, in the order found); every call
  // returns false so checks can `return c.fail(...)`.
  bool fail(location loc, std::string_view message);
  bool fail(const json_value& at, std::string_view message) {
    return fail(location_of(at), message);
  }
  bool fail_path(std::string path, location loc, std::string_view message);
  [[nodiscard]] bool failed() const noexcept { return !errors_.empty(); }
  /// Attaches a suggestion (core/suggest.hpp) to the error the last fail() recorded (none when it
  /// recorded nothing); returns false like fail().
  bool suggest(std::string suggestion) {
    if (recorded_) {
      errors_.back().suggestion = std::move(suggestion);
    }
    return false;
  }
  /// The first error, if any.
  [[nodiscard]] std::optional<core::diagnostic> error() const {
    return errors_.empty() ? std::nullopt : std::optional<core::diagnostic>(errors_.front());
  }
  /// Every error recorded, first first (at most one in `first_error` mode).
  core::diagnostics take_errors() { return std::move(errors_); }

  /// After a failed check: whether to go on with the checks that do not depend on it.
  [[nodiscard]] bool go_on() const noexcept { return mode_ == error_mode::all_errors; }
  /// Folds a check's result into `ok`; returns whether to go on (it passed, or `all_errors`).
  bool next(bool& ok, bool passed) const noexcept {
    ok = ok && passed;
    return passed || go_on();
  }
  /// Runs independent checks in order, like `a() && b() && ...` when loading; in `all_errors`
  /// mode every one runs. True when all passed.
  template <class... Checks>
  bool each(Checks&&... checks) {
    bool ok = true;
    ((ok = ((ok || go_on()) && checks()) && ok), ...);
    return ok;
  }

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
  error_mode mode_;
  bool recorded_ = false; ///< whether the last fail() recorded an error
  core::diagnostics errors_;
  core::diagnostics warnings_;
};

} // namespace emote::content::detail
