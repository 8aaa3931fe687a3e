#include "engine/content/checker.hpp"

#include "engine/core/suggest.hpp"

#include "engine/core/identifier.hpp"
#include "engine/core/time_string.hpp"

#include <cmath>

namespace emote::content::detail {

bool checker::fail(location loc, std::string_view message) {
  return fail_path(path_, loc, message);
}

bool checker::fail_path(std::string path, location loc, std::string_view message) {
  recorded_ = errors_.empty() || go_on();
  if (recorded_) {
    core::diagnostic d;
    d.file = file_;
    d.line = static_cast<int>(loc.line);
    d.column = static_cast<int>(loc.column);
    d.path = std::move(path);
    d.message.assign(message);
    d.severity = core::severity::error;
    errors_.push_back(std::move(d));
  }
  return false;
}

void checker::warn(location loc, std::string_view message) {
  warn_path(path_, loc, message);
}

void checker::warn_path(std::string path, location loc, std::string_view message) {
  core::diagnostic d;
  d.file = file_;
  d.line = static_cast<int>(loc.line);
  d.column = static_cast<int>(loc.column);
  d.path = std::move(path);
  d.message.assign(message);
  d.severity = core::severity::warning;
  warnings_.push_back(std::move(d));
}

void checker::unknown_keys(const json_value& obj, std::span<const std::string_view> allowed) {
  if (!obj.is_object()) {
    return;
  }
  for (const auto& m : obj.as_object()) {
    bool known = false;
    for (auto k : allowed) {
      if (m.key == k) {
        known = true;
        break;
      }
    }
    if (!known) {
      auto s = at(m.key);
      warn(location_of(m.value), "unknown key ignored");
      warnings_.back().suggestion = core::did_you_mean(m.key, allowed);
    }
  }
}

bool checker::missing(const json_value& obj, std::string_view key) {
  fail(location_of(obj), "is required");
  if (!recorded_) {
    return false;
  }
  // A key of the object that is a misspelling of the one required.
  if (obj.is_object()) {
    const std::string_view wanted[] = {key};
    for (const auto& m : obj.as_object()) {
      if (m.key != key && !core::closest_word(m.key, wanted).empty()) {
        return suggest("did you mean `" + std::string(key) + "` (not `" + m.key + "`)?");
      }
    }
  }
  return false;
}

bool checker::require(const json_value& obj, std::string_view key, const json_value*& out) {
  out = present(obj, key);
  if (out == nullptr) {
    return missing(obj, key);
  }
  return true;
}

bool checker::as_string(const json_value& v, std::string& out) {
  if (!v.is_string()) {
    return fail(v, "must be a string");
  }
  out = v.as_string();
  return true;
}

bool checker::as_int32(const json_value& v, std::int32_t& out) {
  if (!v.is_number()) {
    return fail(v, "must be an integer");
  }
  const double d = v.as_number();
  // NaN fails both comparisons' complement, so it lands here too.
  if (!(d >= -2147483648.0 && d <= 2147483647.0) || d != std::trunc(d)) {
    return fail(v, "must be a 32-bit integer");
  }
  out = static_cast<std::int32_t>(d);
  return true;
}

bool checker::as_finite(const json_value& v, double& out) {
  if (!v.is_number()) {
    return fail(v, "must be a number");
  }
  if (!std::isfinite(v.as_number())) {
    return fail(v, "must be finite");
  }
  out = v.as_number();
  return true;
}

bool checker::as_time(const json_value& v, std::int32_t minimum, ticks& out) {
  if (!v.is_string()) {
    return fail(v, "must be a string");
  }
  const auto r = core::parse_time(v.as_string(), minimum);
  if (!r.ok()) {
    std::string msg = "must be a valid Minecraft time: ";
    msg += core::time_error_detail(r.error());
    return fail(v, msg);
  }
  out = ticks(r.value());
  return true;
}

bool checker::identifier(const json_value& v, std::string& out) {
  if (!as_string(v, out)) {
    return false;
  }
  const auto e = core::check_identifier(out);
  if (e != core::identifier_error::none) {
    return fail(v, core::identifier_error_message(e));
  }
  return true;
}

bool checker::string(const json_value& obj, std::string_view key, std::string& out, bool required) {
  auto s = at(key);
  const auto* v = present(obj, key);
  if (v == nullptr) {
    return required ? missing(obj, key) : true;
  }
  return as_string(*v, out);
}

bool checker::nonblank_string(const json_value& obj, std::string_view key, std::string& out) {
  auto s = at(key);
  const json_value* v = nullptr;
  if (!require(obj, key, v) || !as_string(*v, out)) {
    return false;
  }
  if (core::is_blank(out)) {
    return fail(*v, "must not be blank");
  }
  return true;
}

bool checker::boolean(const json_value& obj, std::string_view key, bool& out, bool required) {
  auto s = at(key);
  const auto* v = present(obj, key);
  if (v == nullptr) {
    return required ? missing(obj, key) : true;
  }
  if (!v->is_bool()) {
    return fail(*v, "must be a boolean");
  }
  out = v->as_bool();
  return true;
}

bool checker::finite(const json_value& obj, std::string_view key, double& out, bool required) {
  auto s = at(key);
  const auto* v = present(obj, key);
  if (v == nullptr) {
    return required ? missing(obj, key) : true;
  }
  return as_finite(*v, out);
}

bool checker::int32(const json_value& obj, std::string_view key, std::int32_t& out, bool required) {
  auto s = at(key);
  const auto* v = present(obj, key);
  if (v == nullptr) {
    return required ? missing(obj, key) : true;
  }
  return as_int32(*v, out);
}

bool checker::time(const json_value& obj, std::string_view key, std::int32_t minimum, ticks& out,
                   bool required) {
  auto s = at(key);
  const auto* v = present(obj, key);
  if (v == nullptr) {
    return required ? missing(obj, key) : true;
  }
  return as_time(*v, minimum, out);
}

bool checker::object(const json_value& obj, std::string_view key, const json_value*& out,
                     bool required) {
  auto s = at(key);
  out = present(obj, key);
  if (out == nullptr) {
    return required ? missing(obj, key) : true;
  }
  if (!out->is_object()) {
    return fail(*out, "must be an object");
  }
  return true;
}

bool checker::array(const json_value& obj, std::string_view key, const json_value*& out,
                    bool required) {
  auto s = at(key);
  out = present(obj, key);
  if (out == nullptr) {
    return required ? missing(obj, key) : true;
  }
  if (!out->is_array()) {
    return fail(*out, "must be an array");
  }
  return true;
}

bool checker::vec3(const json_value& obj, std::string_view key, std::array<double, 3>& out,
                   bool required) {
  const json_value* arr = nullptr;
  if (!array(obj, key, arr, required)) {
    return false;
  }
  if (arr == nullptr) {
    return true;
  }
  auto s = at(key);
  const auto& a = arr->as_array();
  if (a.size() != 3) {
    return fail(*arr, "must contain 3 values");
  }
  for (std::size_t k = 0; k < 3; ++k) {
    auto sk = at(k);
    if (!as_finite(a[k], out[k])) {
      return false;
    }
  }
  return true;
}

} // namespace emote::content::detail
