#include "engine/core/identifier.hpp"

#include "engine/core/utf8.hpp"

namespace emote::core {
namespace {

bool namespace_char(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}
bool path_char(char c) noexcept {
  return namespace_char(c) || c == '/';
}

bool valid_namespace(std::string_view s) noexcept {
  for (char c : s) {
    if (!namespace_char(c)) {
      return false;
    }
  }
  return true;
}
bool valid_path(std::string_view s) noexcept {
  for (char c : s) {
    if (!path_char(c)) {
      return false;
    }
  }
  return true;
}

} // namespace

identifier_error check_identifier(std::string_view s) noexcept {
  const auto c = s.find(':');
  if (c == std::string_view::npos || c == 0 || c + 1 == s.size()) {
    return identifier_error::format;
  }
  if (!valid_namespace(s.substr(0, c)) || !valid_path(s.substr(c + 1))) {
    return identifier_error::lowercase;
  }
  return identifier_error::none;
}

bool is_identifier(std::string_view s) noexcept {
  return check_identifier(s) == identifier_error::none;
}

std::string_view java_trim(std::string_view s) noexcept {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= 0x20) {
    s.remove_prefix(1);
  }
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= 0x20) {
    s.remove_suffix(1);
  }
  return s;
}

std::string_view identifier_error_message(identifier_error e) noexcept {
  switch (e) {
  case identifier_error::format:
    return "must use namespace:path format";
  case identifier_error::lowercase:
    return "must be a valid lowercase Minecraft identifier";
  case identifier_error::none:
    break;
  }
  return {};
}

std::optional<std::string> parse_resource_location(std::string_view s) {
  const auto c = s.find(':');
  std::string_view ns = "minecraft";
  std::string_view path = s;
  if (c != std::string_view::npos) {
    if (c != 0) {
      ns = s.substr(0, c);
    }
    path = s.substr(c + 1);
  }
  if (!valid_namespace(ns) || !valid_path(path)) {
    return std::nullopt;
  }
  std::string out;
  out.reserve(ns.size() + 1 + path.size());
  out += ns;
  out += ':';
  out += path;
  return out;
}

bool is_java_whitespace(char32_t c) noexcept {
  if ((c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20)) {
    return true;
  }
  switch (c) {
  case 0x1680:
  case 0x2028:
  case 0x2029:
  case 0x205F:
  case 0x3000:
    return true;
  default:
    break;
  }
  return (c >= 0x2000 && c <= 0x2006) || (c >= 0x2008 && c <= 0x200A);
}

bool is_blank(std::string_view utf8) noexcept {
  std::size_t i = 0;
  while (i < utf8.size()) {
    const auto d = decode_utf8(utf8, i);
    if (!d.valid || !is_java_whitespace(d.code_point)) {
      return false;
    }
    i += d.length;
  }
  return true;
}

std::optional<std::array<std::uint8_t, 16>> parse_uuid(std::string_view s) noexcept {
  const bool dashed = s.size() == 36;
  if (!dashed && s.size() != 32) {
    return std::nullopt;
  }
  std::array<std::uint8_t, 16> out{};
  std::size_t nibble = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (dashed && (i == 8 || i == 13 || i == 18 || i == 23)) {
      if (c != '-') {
        return std::nullopt;
      }
      continue;
    }
    int v = 0;
    if (c >= '0' && c <= '9') {
      v = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      v = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      v = c - 'A' + 10;
    } else {
      return std::nullopt;
    }
    out[nibble / 2] = static_cast<std::uint8_t>(out[nibble / 2] | (nibble % 2 == 0 ? v << 4 : v));
    ++nibble;
  }
  return out;
}

std::string uuid_text(const std::array<std::uint8_t, 16>& u) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (std::size_t i = 0; i < u.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) {
      out.push_back('-');
    }
    out.push_back(digits[u[i] >> 4]);
    out.push_back(digits[u[i] & 0xF]);
  }
  return out;
}

} // namespace emote::core
