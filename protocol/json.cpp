#include "protocol/json.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace emote::protocol {
namespace {

// Forwards to the Document's own handler, converting numbers exactly and bounding the depth.
class checked_handler {
public:
  checked_handler(rapidjson::Document& doc, unsigned max_depth)
      : doc_(doc), max_depth_(max_depth) {}

  bool Null() { return doc_.Null(); }
  bool Bool(bool b) { return doc_.Bool(b); }
  bool Int(int i) { return doc_.Int(i); }
  bool Uint(unsigned u) { return doc_.Uint(u); }
  bool Int64(std::int64_t i) { return doc_.Int64(i); }
  bool Uint64(std::uint64_t u) { return doc_.Uint64(u); }
  bool Double(double d) { return doc_.Double(d); }
  bool String(const char* s, rapidjson::SizeType n, bool copy) { return doc_.String(s, n, copy); }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) { return doc_.Key(s, n, copy); }
  bool StartObject() { return enter() && doc_.StartObject(); }
  bool EndObject(rapidjson::SizeType n) {
    --depth_;
    return doc_.EndObject(n);
  }
  bool StartArray() { return enter() && doc_.StartArray(); }
  bool EndArray(rapidjson::SizeType n) {
    --depth_;
    return doc_.EndArray(n);
  }

  // The reader has validated the number grammar; only the conversion is ours.
  bool RawNumber(const char* s, rapidjson::SizeType n, bool /*copy*/) {
    const char* end = s + n;
    bool integer = true;
    for (const char* p = s; p != end; ++p) {
      if (*p == '.' || *p == 'e' || *p == 'E') {
        integer = false;
        break;
      }
    }
    if (integer) {
      if (n == 2 && s[0] == '-' && s[1] == '0') {
        return doc_.Double(-0.0); // keep the sign, as "-0.0" would
      }
      if (s[0] == '-') {
        std::int64_t v = 0;
        auto r = std::from_chars(s, end, v);
        if (r.ec == std::errc() && r.ptr == end) {
          return v >= std::numeric_limits<int>::min() ? doc_.Int(static_cast<int>(v))
                                                      : doc_.Int64(v);
        }
      } else {
        std::uint64_t v = 0;
        auto r = std::from_chars(s, end, v);
        if (r.ec == std::errc() && r.ptr == end) {
          return v <= std::numeric_limits<unsigned>::max() ? doc_.Uint(static_cast<unsigned>(v))
                                                           : doc_.Uint64(v);
        }
      }
      // Out of the 64-bit range: read it as a double below.
    }
    double d = 0;
    auto r = std::from_chars(s, end, d);
    if (r.ec == std::errc::result_out_of_range) {
      // Overflow to infinity, underflow to zero or a subnormal: strtod rounds correctly there.
      const std::string copy(s, n);
      d = std::strtod(copy.c_str(), nullptr);
    } else if (r.ec != std::errc() || r.ptr != end) {
      return false;
    }
    return doc_.Double(d);
  }

  [[nodiscard]] bool too_deep() const noexcept { return too_deep_; }

private:
  bool enter() {
    if (++depth_ > max_depth_) {
      too_deep_ = true;
      return false;
    }
    return true;
  }

  rapidjson::Document& doc_;
  unsigned max_depth_;
  unsigned depth_ = 0;
  bool too_deep_ = false;
};

template <unsigned flags>
std::optional<json_parse_error> parse_with(std::string_view text, rapidjson::Document& doc) {
  rapidjson::MemoryStream stream(text.data(), text.size());
  rapidjson::Reader reader;
  rapidjson::ParseResult result;
  bool too_deep = false;
  auto generate = [&](rapidjson::Document& target) {
    checked_handler handler(target, max_json_depth);
    result = reader.Parse<flags>(stream, handler);
    too_deep = handler.too_deep();
    return !result.IsError();
  };
  doc.SetNull();
  doc.Populate(generate);
  if (result.IsError()) {
    json_parse_error e;
    e.offset = result.Offset();
    if (too_deep) {
      e.message = "JSON nested deeper than " + std::to_string(max_json_depth) +
                  " levels at offset " + std::to_string(e.offset);
    } else {
      e.message = "invalid JSON at offset " + std::to_string(e.offset) + ": " +
                  rapidjson::GetParseError_En(result.Code());
    }
    doc.SetNull();
    return e;
  }
  // The reader stops at a NUL byte as if the text ended there.
  if (stream.Tell() != text.size()) {
    json_parse_error e;
    e.offset = stream.Tell();
    e.message = "invalid JSON at offset " + std::to_string(e.offset) + ": unexpected NUL byte";
    doc.SetNull();
    return e;
  }
  return std::nullopt;
}

constexpr unsigned strict_flags = rapidjson::kParseValidateEncodingFlag |
                                  rapidjson::kParseNumbersAsStringsFlag |
                                  rapidjson::kParseIterativeFlag;
constexpr unsigned relaxed_flags =
    strict_flags | rapidjson::kParseCommentsFlag | rapidjson::kParseTrailingCommasFlag;

constexpr char hex_digits[] = "0123456789abcdef";

// Length of the well-formed UTF-8 sequence at p (1..4), or 0 when ill-formed; `bad` then receives
// the length of the maximal ill-formed prefix to replace with one U+FFFD (at least 1).
std::size_t utf8_sequence(const unsigned char* p, const unsigned char* end, std::size_t& bad) {
  const unsigned c = p[0];
  std::size_t need = 0;
  unsigned lo = 0x80;
  unsigned hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    need = 1;
  } else if (c == 0xE0) {
    need = 2;
    lo = 0xA0;
  } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
    need = 2;
  } else if (c == 0xED) {
    need = 2;
    hi = 0x9F;
  } else if (c == 0xF0) {
    need = 3;
    lo = 0x90;
  } else if (c >= 0xF1 && c <= 0xF3) {
    need = 3;
  } else if (c == 0xF4) {
    need = 3;
    hi = 0x8F;
  } else {
    bad = 1;
    return 0;
  }
  std::size_t i = 1;
  for (; i <= need; ++i) {
    if (p + i >= end) {
      bad = i;
      return 0;
    }
    const unsigned b = p[i];
    const unsigned l = i == 1 ? lo : 0x80;
    const unsigned h = i == 1 ? hi : 0xBF;
    if (b < l || b > h) {
      bad = i;
      return 0;
    }
  }
  return need + 1;
}

} // namespace

std::optional<json_parse_error> parse_json(std::string_view text, rapidjson::Document& doc,
                                           json_dialect dialect) {
  return dialect == json_dialect::strict ? parse_with<strict_flags>(text, doc)
                                         : parse_with<relaxed_flags>(text, doc);
}

void json_out::str(std::string_view s) {
  std::string& b = *b_;
  b.push_back('"');
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  const auto* run = p; // start of the pending run of bytes copied verbatim
  while (p != end) {
    const unsigned c = *p;
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      ++p;
      continue;
    }
    if (c >= 0x80) {
      std::size_t bad = 0;
      const std::size_t n = utf8_sequence(p, end, bad);
      if (n != 0) {
        p += n;
        continue;
      }
      b.append(reinterpret_cast<const char*>(run), static_cast<std::size_t>(p - run));
      b.append("\xEF\xBF\xBD");
      p += bad;
      run = p;
      continue;
    }
    b.append(reinterpret_cast<const char*>(run), static_cast<std::size_t>(p - run));
    switch (c) {
    case '"':
      b.append("\\\"");
      break;
    case '\\':
      b.append("\\\\");
      break;
    case '\n':
      b.append("\\n");
      break;
    case '\r':
      b.append("\\r");
      break;
    case '\t':
      b.append("\\t");
      break;
    case '\b':
      b.append("\\b");
      break;
    case '\f':
      b.append("\\f");
      break;
    default: {
      const char esc[6] = {'\\', 'u', '0', '0', hex_digits[c >> 4], hex_digits[c & 15]};
      b.append(esc, 6);
    }
    }
    ++p;
    run = p;
  }
  b.append(reinterpret_cast<const char*>(run), static_cast<std::size_t>(p - run));
  b.push_back('"');
}

void json_out::i64(std::int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  b_->append(buf, r.ptr);
}

void json_out::u64(std::uint64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  b_->append(buf, r.ptr);
}

namespace {

// Shortest round-trip text of a finite float or double; "-0.0" keeps the sign of negative zero,
// non-finite values are null.
template <typename F>
void write_float(json_out& out, F v) {
  if (!std::isfinite(v)) {
    out.null();
    return;
  }
  if (v == 0) {
    out.raw(std::signbit(v) ? std::string_view("-0.0") : std::string_view("0"));
    return;
  }
  // Integral values below 10^4 in magnitude: to_chars would print them as plain integers too
  // (an exponent form needs at least five characters), and integer formatting is much cheaper.
  if (v > F(-10000) && v < F(10000) && v == static_cast<F>(static_cast<int>(v))) {
    out.i64(static_cast<int>(v));
    return;
  }
  char buf[40];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.raw(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
}

} // namespace

void json_out::f32(float v) {
  write_float(*this, v);
}

void json_out::f64(double v) {
  write_float(*this, v);
}

void json_out::value(const rapidjson::Value& v) {
  switch (v.GetType()) {
  case rapidjson::kNullType:
    null();
    break;
  case rapidjson::kFalseType:
    raw("false");
    break;
  case rapidjson::kTrueType:
    raw("true");
    break;
  case rapidjson::kStringType:
    str(std::string_view(v.GetString(), v.GetStringLength()));
    break;
  case rapidjson::kNumberType:
    if (v.IsInt64()) {
      i64(v.GetInt64());
    } else if (v.IsUint64()) {
      u64(v.GetUint64());
    } else {
      f64(v.GetDouble());
    }
    break;
  case rapidjson::kArrayType: {
    ch('[');
    bool first = true;
    for (const auto& e : v.GetArray()) {
      if (!first) {
        ch(',');
      }
      first = false;
      value(e);
    }
    ch(']');
    break;
  }
  case rapidjson::kObjectType: {
    ch('{');
    bool first = true;
    for (const auto& m : v.GetObject()) {
      if (!first) {
        ch(',');
      }
      first = false;
      str(std::string_view(m.name.GetString(), m.name.GetStringLength()));
      ch(':');
      value(m.value);
    }
    ch('}');
    break;
  }
  }
}

std::string to_json(const rapidjson::Value& v) {
  std::string s;
  json_out(s).value(v);
  return s;
}

const rapidjson::Value* find_member(const rapidjson::Value& obj, std::string_view key) noexcept {
  if (!obj.IsObject()) {
    return nullptr;
  }
  // Indexed walk: comparing RapidJSON member iterators is ambiguous under C++20 rewritten
  // operators.
  auto m = obj.MemberBegin();
  for (rapidjson::SizeType i = 0; i < obj.MemberCount(); ++i, ++m) {
    if (std::string_view(m->name.GetString(), m->name.GetStringLength()) == key) {
      return &m->value;
    }
  }
  return nullptr;
}

bool is_integral(const rapidjson::Value& v) noexcept {
  return as_int64(v).has_value();
}

std::optional<std::int64_t> as_int64(const rapidjson::Value& v) noexcept {
  if (!v.IsNumber()) {
    return std::nullopt;
  }
  if (v.IsInt64()) {
    return v.GetInt64();
  }
  if (v.IsUint64()) {
    return std::nullopt; // above INT64_MAX
  }
  const double d = v.GetDouble();
  // 2^63 is the first double out of range; every double below it in magnitude is exact.
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0) || d != std::floor(d)) {
    return std::nullopt;
  }
  return static_cast<std::int64_t>(d);
}

} // namespace emote::protocol
