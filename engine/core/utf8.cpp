#include "engine/core/utf8.hpp"

namespace emote::core {

utf8_decoded decode_utf8(std::string_view s, std::size_t i) noexcept {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    return {b0, 1, true};
  }
  int need = 0;
  char32_t cp = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
    cp = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2;
    cp = b0 & 0x0F;
    if (b0 == 0xE0) {
      lo = 0xA0;
    } else if (b0 == 0xED) {
      hi = 0x9F;
    }
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3;
    cp = b0 & 0x07;
    if (b0 == 0xF0) {
      lo = 0x90;
    } else if (b0 == 0xF4) {
      hi = 0x8F;
    }
  } else {
    return {0xFFFD, 1, false};
  }
  std::size_t len = 1;
  for (int k = 0; k < need; ++k) {
    if (i + len >= s.size()) {
      return {0xFFFD, len, false};
    }
    const auto b = static_cast<unsigned char>(s[i + len]);
    if (b < lo || b > hi) {
      return {0xFFFD, len, false};
    }
    cp = (cp << 6) | (b & 0x3F);
    lo = 0x80;
    hi = 0xBF;
    ++len;
  }
  return {cp, len, true};
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::size_t sanitize_utf8(std::string_view in, std::string& out) {
  out.clear();
  std::size_t first = std::string::npos;
  std::size_t i = 0;
  std::size_t clean_from = 0;
  while (i < in.size()) {
    if (static_cast<unsigned char>(in[i]) < 0x80) {
      ++i;
      continue;
    }
    const auto d = decode_utf8(in, i);
    if (d.valid) {
      i += d.length;
      continue;
    }
    if (first == std::string::npos) {
      out.reserve(in.size() + 16);
    }
    out.append(in.substr(clean_from, i - clean_from));
    if (first == std::string::npos) {
      first = out.size();
    }
    append_utf8(out, 0xFFFD);
    i += d.length;
    clean_from = i;
  }
  if (first == std::string::npos) {
    out.assign(in);
  } else {
    out.append(in.substr(clean_from));
  }
  return first;
}

std::size_t utf16_length(std::string_view utf8) noexcept {
  std::size_t n = 0;
  for (std::size_t i = 0; i < utf8.size();) {
    if (static_cast<unsigned char>(utf8[i]) < 0x80) {
      ++n;
      ++i;
      continue;
    }
    // An ill-formed sequence counts as the one U+FFFD it reads as.
    const auto d = decode_utf8(utf8, i);
    n += d.code_point >= 0x10000 ? 2 : 1;
    i += d.length;
  }
  return n;
}

} // namespace emote::core
