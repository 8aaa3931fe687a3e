#include "engine/json/value.hpp"

#include "engine/core/decimal.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace emote::json {

std::optional<std::int64_t> json_number::as_int64() const noexcept {
  switch (form) {
  case number_form::signed_integer:
    return static_cast<std::int64_t>(bits);
  case number_form::unsigned_integer:
    if (bits > static_cast<std::uint64_t>(INT64_MAX)) {
      return std::nullopt;
    }
    return static_cast<std::int64_t>(bits);
  case number_form::real:
    break;
  }
  // 2^63 is the first double out of range; every double below it in magnitude is exact.
  if (!(value >= -9223372036854775808.0 && value < 9223372036854775808.0) ||
      value != std::floor(value)) {
    return std::nullopt;
  }
  return static_cast<std::int64_t>(value);
}

json_number number_from_token(std::string_view token) {
  if (!token.empty() && token.find_first_of(".eE") == std::string_view::npos && token != "-0") {
    const char* first = token.data();
    const char* last = first + token.size();
    if (token.front() == '-') {
      std::int64_t i = 0;
      const auto r = std::from_chars(first, last, i);
      if (r.ec == std::errc() && r.ptr == last) {
        return json_number::signed_integer(i);
      }
    } else {
      std::uint64_t u = 0;
      const auto r = std::from_chars(first, last, u);
      if (r.ec == std::errc() && r.ptr == last) {
        return json_number::unsigned_integer(u);
      }
    }
  }
  return json_number::real(core::decimal_to_double(token));
}

const json_value* json_value::find(std::string_view key) const noexcept {
  if (!is_object()) {
    return nullptr;
  }
  for (const auto& m : as_object()) {
    if (m.key == key) {
      return &m.value;
    }
  }
  return nullptr;
}

bool json_equal(const json_value& a, const json_value& b) {
  if (a.kind() != b.kind()) {
    return false;
  }
  switch (a.kind()) {
  case json_kind::null_value:
    return true;
  case json_kind::boolean:
    return a.as_bool() == b.as_bool();
  case json_kind::number: {
    const double x = a.as_number();
    const double y = b.as_number();
    return x == y || (std::isnan(x) && std::isnan(y));
  }
  case json_kind::string:
    return a.as_string() == b.as_string();
  case json_kind::array: {
    const auto& x = a.as_array();
    const auto& y = b.as_array();
    if (x.size() != y.size()) {
      return false;
    }
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (!json_equal(x[i], y[i])) {
        return false;
      }
    }
    return true;
  }
  case json_kind::object: {
    const auto& x = a.as_object();
    const auto& y = b.as_object();
    if (x.size() != y.size()) {
      return false;
    }
    // Keys are unique, so equal key sets pair up after sorting (no quadratic lookups).
    std::vector<const json_member*> xs;
    std::vector<const json_member*> ys;
    xs.reserve(x.size());
    ys.reserve(y.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      xs.push_back(&x[i]);
      ys.push_back(&y[i]);
    }
    const auto by_key = [](const json_member* l, const json_member* r) { return l->key < r->key; };
    std::sort(xs.begin(), xs.end(), by_key);
    std::sort(ys.begin(), ys.end(), by_key);
    for (std::size_t i = 0; i < xs.size(); ++i) {
      if (xs[i]->key != ys[i]->key || !json_equal(xs[i]->value, ys[i]->value)) {
        return false;
      }
    }
    return true;
  }
  }
  return false;
}

namespace {

const json_value* walk(const json_value& v, std::string_view rest) noexcept {
  if (rest.empty()) {
    return &v;
  }
  if (rest.front() == '[' && v.is_array()) {
    const auto close = rest.find(']');
    if (close == std::string_view::npos || close == 1) {
      return nullptr;
    }
    std::size_t index = 0;
    for (std::size_t k = 1; k < close; ++k) {
      const char c = rest[k];
      if (c < '0' || c > '9' || index > v.as_array().size()) {
        return nullptr;
      }
      index = index * 10 + static_cast<std::size_t>(c - '0');
    }
    if (index >= v.as_array().size()) {
      return nullptr;
    }
    return walk(v.as_array()[index], rest.substr(close + 1));
  }
  if (rest.front() == '.' && v.is_object()) {
    // Keys are written as they are, so a key may itself hold '.' or '[': try every member whose
    // key the path continues with, the longest first.
    const std::string_view after = rest.substr(1);
    const json_value* best = nullptr;
    std::size_t best_len = 0;
    for (const auto& m : v.as_object()) {
      if (!after.starts_with(m.key) || (best != nullptr && m.key.size() <= best_len)) {
        continue;
      }
      const std::string_view tail = after.substr(m.key.size());
      if (!tail.empty() && tail.front() != '.' && tail.front() != '[') {
        continue;
      }
      if (const json_value* found = walk(m.value, tail)) {
        best = found;
        best_len = m.key.size();
      }
    }
    return best;
  }
  return nullptr;
}

} // namespace

const json_value* find_path(const json_value& root, std::string_view path) noexcept {
  if (!path.starts_with('$')) {
    return nullptr;
  }
  return walk(root, path.substr(1));
}

} // namespace emote::json
