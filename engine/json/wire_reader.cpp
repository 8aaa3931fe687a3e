#include "engine/json/wire_reader.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace emote::json {
namespace {

/// Number tokens of a masked text (see parse_wire): where each starts and its original text.
struct masked_number {
  std::size_t offset = 0;
  std::string_view token;
};

// Forwards to the Document's own handler, converting numbers exactly and bounding the depth.
class checked_handler {
public:
  checked_handler(rapidjson::Document& doc, const rapidjson::MemoryStream& stream,
                  const std::vector<masked_number>* masked)
      : doc_(doc), stream_(stream), masked_(masked) {}

  bool Null() { return doc_.Null(); }
  bool Bool(bool b) { return doc_.Bool(b); }
  bool Int(int i) { return doc_.Int(i); }
  bool Uint(unsigned u) { return doc_.Uint(u); }
  bool Int64(std::int64_t i) { return doc_.Int64(i); }
  bool Uint64(std::uint64_t u) { return doc_.Uint64(u); }
  bool Double(double d) { return doc_.Double(d); }
  bool String(const char* s, rapidjson::SizeType n, bool copy) {
    return well_formed(s, n) && doc_.String(s, n, copy);
  }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) {
    return well_formed(s, n) && doc_.Key(s, n, copy);
  }
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
    std::string_view token(s, n);
    if (masked_ != nullptr) {
      // The stream stands just after the token (RapidJSON reads a MemoryStream in place).
      const std::size_t start = stream_.Tell() - n;
      const auto it =
          std::lower_bound(masked_->begin(), masked_->end(), start,
                           [](const masked_number& m, std::size_t off) { return m.offset < off; });
      if (it != masked_->end() && it->offset == start) {
        token = it->token;
      }
    }
    const json_number v = number_from_token(token);
    switch (v.form) {
    case number_form::signed_integer: {
      const auto i = static_cast<std::int64_t>(v.bits);
      return i >= INT32_MIN ? doc_.Int(static_cast<int>(i)) : doc_.Int64(i);
    }
    case number_form::unsigned_integer:
      return v.bits <= UINT32_MAX ? doc_.Uint(static_cast<unsigned>(v.bits)) : doc_.Uint64(v.bits);
    case number_form::real:
      break;
    }
    return doc_.Double(v.value);
  }

  [[nodiscard]] bool too_deep() const noexcept { return too_deep_; }
  [[nodiscard]] bool lone_surrogate() const noexcept { return lone_surrogate_; }

private:
  // RapidJSON refuses a lone high surrogate escape but writes a lone low one (`\uDC00`) into the
  // string as ill-formed UTF-8 (ED B0 80). The raw text is validated, so a byte ED followed by
  // A0..BF can only come from such an escape.
  bool well_formed(const char* s, rapidjson::SizeType n) {
    const char* end = s + n;
    for (const char* p = s;
         (p = static_cast<const char*>(std::memchr(p, 0xED, static_cast<std::size_t>(end - p))));) {
      if (p + 1 < end && static_cast<unsigned char>(p[1]) >= 0xA0) {
        lone_surrogate_ = true;
        return false;
      }
      ++p;
    }
    return true;
  }

  bool enter() {
    if (++depth_ > static_cast<unsigned>(max_depth)) {
      too_deep_ = true;
      return false;
    }
    return true;
  }

  rapidjson::Document& doc_;
  const rapidjson::MemoryStream& stream_;
  const std::vector<masked_number>* masked_;
  unsigned depth_ = 0;
  bool too_deep_ = false;
  bool lone_surrogate_ = false;
};

constexpr unsigned parse_flags = rapidjson::kParseValidateEncodingFlag |
                                 rapidjson::kParseNumbersAsStringsFlag |
                                 rapidjson::kParseIterativeFlag;

std::optional<json_parse_error> parse_text(std::string_view text, rapidjson::Document& doc,
                                           const std::vector<masked_number>* masked,
                                           rapidjson::ParseErrorCode& code) {
  rapidjson::MemoryStream stream(text.data(), text.size());
  rapidjson::Reader reader;
  rapidjson::ParseResult result;
  bool too_deep = false;
  bool lone_surrogate = false;
  auto generate = [&](rapidjson::Document& target) {
    checked_handler handler(target, stream, masked);
    result = reader.Parse<parse_flags>(stream, handler);
    too_deep = handler.too_deep();
    lone_surrogate = handler.lone_surrogate();
    return !result.IsError();
  };
  doc.SetNull();
  doc.Populate(generate);
  code = result.Code();
  if (result.IsError()) {
    json_parse_error e;
    e.offset = result.Offset();
    if (too_deep) {
      e.message = "JSON nested deeper than " + std::to_string(max_depth) + " levels at offset " +
                  std::to_string(e.offset);
    } else if (lone_surrogate) {
      e.message =
          "invalid JSON at offset " + std::to_string(e.offset) + ": lone surrogate in a \\u escape";
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

bool digit(char c) noexcept {
  return c >= '0' && c <= '9';
}

// The end of the number token of the JSON grammar starting at text[i], or i when there is none.
std::size_t number_end(std::string_view text, std::size_t i) noexcept {
  std::size_t k = i;
  if (k < text.size() && text[k] == '-') {
    ++k;
  }
  if (k >= text.size() || !digit(text[k])) {
    return i;
  }
  if (text[k] == '0') {
    ++k;
  } else {
    while (k < text.size() && digit(text[k])) {
      ++k;
    }
  }
  if (k + 1 < text.size() && text[k] == '.' && digit(text[k + 1])) {
    k += 2;
    while (k < text.size() && digit(text[k])) {
      ++k;
    }
  }
  if (k < text.size() && (text[k] == 'e' || text[k] == 'E')) {
    std::size_t e = k + 1;
    if (e < text.size() && (text[e] == '+' || text[e] == '-')) {
      ++e;
    }
    if (e < text.size() && digit(text[e])) {
      while (e < text.size() && digit(text[e])) {
        ++e;
      }
      k = e;
    }
  }
  return k;
}

bool number_char(char c) noexcept {
  return digit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

// A copy of `text` with every number token outside strings replaced by "0" and spaces (same
// length, so offsets hold), and the tokens it replaced, in order. Only a whole run of number
// characters that is one valid token is replaced; any other run stays as it is, so the reader
// refuses it as before (masking never makes an invalid text valid).
std::string mask_numbers(std::string_view text, std::vector<masked_number>& tokens) {
  std::string out(text);
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"') {
      ++i;
      while (i < text.size() && text[i] != '"') {
        i += text[i] == '\\' ? 2 : 1;
      }
      ++i;
      continue;
    }
    if (!number_char(c)) {
      ++i;
      continue;
    }
    std::size_t run = i;
    while (run < text.size() && number_char(text[run])) {
      ++run;
    }
    if (number_end(text, i) == run) {
      tokens.push_back({i, text.substr(i, run - i)});
      out[i] = '0';
      std::fill(out.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                out.begin() + static_cast<std::ptrdiff_t>(run), ' ');
    }
    i = run;
  }
  return out;
}

} // namespace

std::optional<json_parse_error> parse_wire(std::string_view text, rapidjson::Document& doc) {
  rapidjson::ParseErrorCode code = rapidjson::kParseErrorNone;
  auto err = parse_text(text, doc, nullptr, code);
  if (!err || code != rapidjson::kParseErrorNumberTooBig) {
    return err;
  }
  // RapidJSON refuses a number its own conversion cannot hold (beyond binary64, or 0e400) even
  // when it hands numbers over as text. Such a number is valid JSON, and the decoders refuse it
  // with its path, so read the text again with every number masked; the handler converts the
  // original tokens. Only texts holding such a number take this path.
  std::vector<masked_number> tokens;
  const std::string masked = mask_numbers(text, tokens);
  return parse_text(masked, doc, &tokens, code);
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
  return json_number::real(v.GetDouble()).as_int64();
}

void to_rapidjson(const json_value& v, rapidjson::Value& out,
                  rapidjson::Document::AllocatorType& alloc) {
  switch (v.kind()) {
  case json_kind::null_value:
    out.SetNull();
    return;
  case json_kind::boolean:
    out.SetBool(v.as_bool());
    return;
  case json_kind::number: {
    const json_number& n = v.number();
    switch (n.form) {
    case number_form::signed_integer:
      out.SetInt64(static_cast<std::int64_t>(n.bits));
      return;
    case number_form::unsigned_integer:
      out.SetUint64(n.bits);
      return;
    case number_form::real:
      out.SetDouble(n.value);
      return;
    }
    return;
  }
  case json_kind::string:
    out.SetString(v.as_string().data(), static_cast<rapidjson::SizeType>(v.as_string().size()),
                  alloc);
    return;
  case json_kind::array:
    out.SetArray();
    out.Reserve(static_cast<rapidjson::SizeType>(v.as_array().size()), alloc);
    for (const auto& e : v.as_array()) {
      rapidjson::Value x;
      to_rapidjson(e, x, alloc);
      out.PushBack(x, alloc);
    }
    return;
  case json_kind::object:
    out.SetObject();
    for (const auto& m : v.as_object()) {
      rapidjson::Value key(m.key.data(), static_cast<rapidjson::SizeType>(m.key.size()), alloc);
      rapidjson::Value x;
      to_rapidjson(m.value, x, alloc);
      out.AddMember(key, x, alloc);
    }
    return;
  }
}

} // namespace emote::json
