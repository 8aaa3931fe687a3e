// libFuzzer target: the number writer (engine/json json_out) round-trips.
// The input is read as binary64 and binary32 bit patterns. Invariants:
//  * every finite binary64 written by f64 reads back (fast reader, line/column reader and
//    core::decimal_to_double) to the same bits, -0.0 included; non-finite values are `null`;
//  * every finite binary32 written by f32 reads back to the same bits: as the nearest binary64
//    then rounded to binary32 (how the decoders read binary32 fields) and with
//    core::decimal_to_float;
//  * the text is the shortest form std::to_chars gives (integral values below 10^4 as integers,
//    zero as "0", negative zero as "-0.0").
#include "engine/core/decimal.hpp"
#include "engine/json/source_reader.hpp"
#include "engine/json/wire_reader.hpp"
#include "engine/json/writer.hpp"

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace {

namespace json = emote::json;

void require(bool ok) {
  if (!ok) {
    std::abort();
  }
}

template <typename F>
bool same_bits(F a, F b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

template <typename F>
std::string shortest(F v) {
  if (v == 0) {
    return std::signbit(v) ? "-0.0" : "0";
  }
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

// The value of `text` as both readers read it, which must agree.
double read_back(const std::string& text) {
  rapidjson::Document d;
  require(!json::parse_wire(text, d));
  require(d.IsNumber());
  const auto s = json::parse_source(text, json::source_dialect::strict);
  require(s.ok && s.root.is_number());
  const double v = d.GetDouble();
  require(same_bits(v, s.root.as_number()));
  return v;
}

void check_f64(double v) {
  std::string out;
  json::json_out(out).f64(v);
  if (!std::isfinite(v)) {
    require(out == "null");
    return;
  }
  require(out == shortest(v));
  require(same_bits(read_back(out), v));
  require(same_bits(emote::core::decimal_to_double(out), v));
}

void check_f32(float v) {
  std::string out;
  json::json_out(out).f32(v);
  if (!std::isfinite(v)) {
    require(out == "null");
    return;
  }
  require(out == shortest(v));
  require(same_bits(static_cast<float>(read_back(out)), v));
  require(same_bits(emote::core::decimal_to_float(out), v));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  for (std::size_t i = 0; i + 8 <= size; i += 8) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, data + i, 8);
    double d = 0;
    std::memcpy(&d, &bits, 8);
    check_f64(d);
    std::uint32_t lo = 0;
    std::memcpy(&lo, data + i, 4);
    float f = 0;
    std::memcpy(&f, &lo, 4);
    check_f32(f);
  }
  if (size % 8 >= 4) {
    std::uint32_t b = 0;
    std::memcpy(&b, data + size - size % 8, 4);
    float f = 0;
    std::memcpy(&f, &b, 4);
    check_f32(f);
  }
  return 0;
}
