#include "engine/json/writer.hpp"

#include "engine/core/utf8.hpp"

#include <charconv>
#include <cmath>

namespace emote::json {
namespace {

constexpr char hex_digits[] = "0123456789abcdef";

} // namespace

void json_out::str(std::string_view s) {
  std::string& b = *b_;
  b.push_back('"');
  const auto* begin = reinterpret_cast<const unsigned char*>(s.data());
  const auto* p = begin;
  const auto* end = p + s.size();
  const auto* run = p; // start of the pending run of bytes copied verbatim
  while (p != end) {
    const unsigned c = *p;
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      ++p;
      continue;
    }
    if (c >= 0x80) {
      const auto d = core::decode_utf8(s, static_cast<std::size_t>(p - begin));
      if (d.valid) {
        p += d.length;
        continue;
      }
      b.append(reinterpret_cast<const char*>(run), static_cast<std::size_t>(p - run));
      b.append("\xEF\xBF\xBD");
      p += d.length;
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

void json_out::number(const json_number& n) {
  switch (n.form) {
  case number_form::signed_integer:
    i64(static_cast<std::int64_t>(n.bits));
    return;
  case number_form::unsigned_integer:
    u64(n.bits);
    return;
  case number_form::real:
    f64(n.value);
    return;
  }
}

void json_out::value(const json_value& v) {
  switch (v.kind()) {
  case json_kind::null_value:
    null();
    return;
  case json_kind::boolean:
    boolean(v.as_bool());
    return;
  case json_kind::number:
    number(v.number());
    return;
  case json_kind::string:
    str(v.as_string());
    return;
  case json_kind::array: {
    ch('[');
    bool first = true;
    for (const auto& e : v.as_array()) {
      if (!first) {
        ch(',');
      }
      first = false;
      value(e);
    }
    ch(']');
    return;
  }
  case json_kind::object: {
    ch('{');
    bool first = true;
    for (const auto& m : v.as_object()) {
      if (!first) {
        ch(',');
      }
      first = false;
      str(m.key);
      ch(':');
      value(m.value);
    }
    ch('}');
    return;
  }
  }
}

std::string to_json(const json_value& v) {
  std::string s;
  json_out(s).value(v);
  return s;
}

std::string to_json(const rapidjson::Value& v) {
  std::string s;
  json_out(s).value(v);
  return s;
}

} // namespace emote::json
