#include "engine/core/coordinates.hpp"

#include "engine/core/time_string.hpp"

namespace emote::core {
namespace {

constexpr std::string_view invalid_prefix = "invalid Minecraft coordinates: ";

bool number_char(char c) noexcept { return (c >= '0' && c <= '9') || c == '.' || c == '-'; }
bool digit(char c) noexcept { return c >= '0' && c <= '9'; }

// -?([0-9]+(\.[0-9]*)?|\.[0-9]+)
bool matches_number(std::string_view s) noexcept {
  std::size_t i = 0;
  if (i < s.size() && s[i] == '-') {
    ++i;
  }
  std::size_t int_digits = 0;
  while (i < s.size() && digit(s[i])) {
    ++i;
    ++int_digits;
  }
  if (i == s.size()) {
    return int_digits > 0;
  }
  if (s[i] != '.') {
    return false;
  }
  ++i;
  std::size_t frac = 0;
  while (i < s.size() && digit(s[i])) {
    ++i;
    ++frac;
  }
  return i == s.size() && (int_digits > 0 || frac > 0);
}

class reader {
public:
  explicit reader(std::string_view s) : s_(s) {}

  [[nodiscard]] bool at_end() const noexcept { return i_ == s_.size(); }
  [[nodiscard]] char peek() const noexcept { return s_[i_]; }
  [[nodiscard]] bool rest_empty() const noexcept { return at_end(); }

  // A number (or 0 when at the end or at a space).
  bool number_or_zero(double& out, std::string& err) {
    if (at_end() || peek() == ' ') {
      out = 0;
      return true;
    }
    const std::size_t begin = i_;
    while (i_ < s_.size() && number_char(s_[i_])) {
      ++i_;
    }
    const auto text = s_.substr(begin, i_ - begin);
    if (text.empty()) {
      err = "expected a number";
      return false;
    }
    if (!matches_number(text)) {
      err = "invalid number '" + std::string(text) + "'";
      return false;
    }
    out = decimal_to_double(text);
    return true;
  }

  bool world(coordinate& c, std::string& err) {
    if (at_end()) {
      err = "expected a coordinate";
      return false;
    }
    if (peek() == '^') {
      err = "cannot mix world and local coordinates";
      return false;
    }
    c.relative = false;
    if (peek() == '~') {
      c.relative = true;
      ++i_;
    }
    return number_or_zero(c.value, err);
  }

  bool local(coordinate& c, std::string& err) {
    if (at_end() || peek() != '^') {
      err = "cannot mix world and local coordinates";
      return false;
    }
    ++i_;
    c.relative = true;
    return number_or_zero(c.value, err);
  }

  bool separator(std::string& err) {
    if (at_end() || peek() != ' ') {
      err = "expected a space between coordinates";
      return false;
    }
    ++i_;
    return true;
  }

private:
  std::string_view s_;
  std::size_t i_ = 0;
};

} // namespace

result<position_coordinates, std::string> parse_position(std::string_view s) {
  position_coordinates p;
  p.local = !s.empty() && s.front() == '^';
  reader r(s);
  std::string err;
  for (std::size_t k = 0; k < 3; ++k) {
    if (k > 0 && !r.separator(err)) {
      return failure{std::string(invalid_prefix) + err};
    }
    const bool ok = p.local ? r.local(p.components[k], err) : r.world(p.components[k], err);
    if (!ok) {
      return failure{std::string(invalid_prefix) + err};
    }
  }
  if (!r.rest_empty()) {
    return failure{std::string("contains trailing input")};
  }
  if (!p.local) {
    for (const auto& c : p.components) {
      if (!c.relative) {
        return failure{std::string("must use only relative ~ or local ^ coordinates")};
      }
    }
  }
  return p;
}

result<rotation_coordinates, std::string> parse_rotation(std::string_view s) {
  rotation_coordinates rot;
  reader r(s);
  std::string err;
  if (!r.world(rot.yaw, err) || !r.separator(err) || !r.world(rot.pitch, err)) {
    return failure{std::string(invalid_prefix) + err};
  }
  if (!r.rest_empty()) {
    return failure{std::string("contains trailing input")};
  }
  return rot;
}

} // namespace emote::core
