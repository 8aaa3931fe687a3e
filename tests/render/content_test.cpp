// Display content encoding (render.md §5.4). Expected bytes are written out from the protocol
// facts each test names: NBT's wire form (type ids End 0, Byte 1, Short 2, Int 3, Long 4, Float 5,
// Double 6, Byte_Array 7, String 8, List 9, Compound 10, Int_Array 11, Long_Array 12; big-endian;
// strings as a u16 length and Java's modified UTF-8, DataOutput.writeUTF; the network form has
// no root name) and minecraft-data 3.119.0's protocol.json (Slot, SlotComponent).

#include "render/content.hpp"
#include "render/nbt_network.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

using namespace emote;
using namespace emote::render;

namespace {

// Expected bytes, built field by field.
struct bytes {
  std::string b;
  bytes& u8(unsigned v) {
    b.push_back(static_cast<char>(v & 0xFF));
    return *this;
  }
  bytes& u16(unsigned v) { return u8(v >> 8).u8(v); }
  bytes& i32(std::uint32_t v) { return u16(v >> 16).u16(v & 0xFFFF); }
  bytes& raw(std::string_view s) {
    b.append(s);
    return *this;
  }
  /// An NBT string payload of ASCII (or already modified UTF-8) text: u16 length, bytes.
  bytes& str(std::string_view s) { return u16(static_cast<unsigned>(s.size())).raw(s); }
  /// A named entry's header inside a compound: type id, then the key.
  bytes& key(unsigned type, std::string_view k) { return u8(type).str(k); }
};

std::string hex(std::string_view s) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < s.size() && i < 400; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    out += digits[c >> 4];
    out += digits[c & 0xF];
    out += ' ';
  }
  return out;
}

#define CHECK_BYTES(actual, expected)                                                              \
  CHECK_MESSAGE((actual) == (expected), hex(actual) << "\n  expected\n" << hex(expected))

core::nbt_tag tag_of(std::string_view snbt_value) {
  auto r = core::parse_compound_snbt("{v:" + std::string(snbt_value) + "}");
  REQUIRE(r.ok());
  return r.value().find("v") != nullptr ? *r.value().find("v") : core::nbt_tag{};
}

std::string nbt(const core::nbt_tag& t) {
  std::string out;
  byte_writer w(out);
  write_network_nbt(w, t);
  return out;
}

// Version tables for the text tests: only `protocol` and `text_shadow_color` matter to text.
version_table text_table(std::int32_t protocol) {
  version_table v{};
  v.protocol = protocol;
  v.text_shadow_color = protocol >= 769;
  return v;
}

std::string text(std::string_view json, std::int32_t protocol, warnings& warn) {
  std::string out;
  byte_writer w(out);
  write_text_component(w, text_table(protocol), json, warn);
  return out;
}

std::string text(std::string_view json, std::int32_t protocol = 769) {
  warnings warn;
  auto out = text(json, protocol, warn);
  CHECK_MESSAGE(warn.empty(), json << ": " << (warn.empty() ? "" : warn.front()));
  return out;
}

bool has_warning(const warnings& warn, std::string_view part) {
  return std::any_of(warn.begin(), warn.end(),
                     [&](const std::string& m) { return m.find(part) != std::string::npos; });
}

// A string tag as a whole anonymous NBT value.
std::string string_nbt(std::string_view s) {
  return bytes{}.u8(8).str(s).b;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Network NBT

TEST_CASE("network NBT: scalars, big-endian, no root name (render.md §5.4)") {
  CHECK_BYTES(nbt(tag_of("1b")), bytes{}.u8(1).u8(1).b);
  CHECK_BYTES(nbt(tag_of("-2b")), bytes{}.u8(1).u8(0xFE).b);
  CHECK_BYTES(nbt(tag_of("258s")), bytes{}.u8(2).u16(0x0102).b);
  CHECK_BYTES(nbt(tag_of("-1")), bytes{}.u8(3).i32(0xFFFFFFFF).b);
  CHECK_BYTES(nbt(tag_of("1L")), bytes{}.u8(4).i32(0).i32(1).b);
  // 1.5f = 0x3FC00000; 1.5d = 0x3FF8000000000000.
  CHECK_BYTES(nbt(tag_of("1.5f")), bytes{}.u8(5).i32(0x3FC00000).b);
  CHECK_BYTES(nbt(tag_of("1.5d")), bytes{}.u8(6).i32(0x3FF80000).i32(0).b);
  CHECK_BYTES(nbt(tag_of("[B;1b,-1b]")), bytes{}.u8(7).i32(2).u8(1).u8(0xFF).b);
  CHECK_BYTES(nbt(tag_of("[I;1,-1]")), bytes{}.u8(11).i32(2).i32(1).i32(0xFFFFFFFF).b);
  CHECK_BYTES(nbt(tag_of("[L;2L]")), bytes{}.u8(12).i32(1).i32(0).i32(2).b);
  CHECK_BYTES(nbt(tag_of("\"hi\"")), string_nbt("hi"));
}

TEST_CASE("network NBT: lists and compounds (render.md §5.4)") {
  // A list: element type, i32 count, payloads. An empty list has element type End.
  CHECK_BYTES(nbt(tag_of("[1,2]")), bytes{}.u8(9).u8(3).i32(2).i32(1).i32(2).b);
  CHECK_BYTES(nbt(tag_of("[]")), bytes{}.u8(9).u8(0).i32(0).b);
  CHECK_BYTES(nbt(tag_of("[[],[1b]]")),
              bytes{}.u8(9).u8(9).i32(2).u8(0).i32(0).u8(1).i32(1).u8(1).b);
  // A compound: entries (type, key, payload) in stored order, then End.
  CHECK_BYTES(nbt(tag_of("{a:1b,b:{},c:\"x\"}")),
              bytes{}.u8(10).key(1, "a").u8(1).key(10, "b").u8(0).key(8, "c").str("x").u8(0).b);
  CHECK_BYTES(nbt(tag_of("[{a:1b},{}]")),
              bytes{}.u8(9).u8(10).i32(2).key(1, "a").u8(1).u8(0).u8(0).b);
}

TEST_CASE("network NBT: modified UTF-8 (render.md §5.4)") {
  // NUL is 0xC0 0x80; U+00E9 and U+20AC as in UTF-8; U+1F600 as the surrogates D83D DE00, each
  // in three bytes (ED A0 BD, ED B8 80).
  core::nbt_tag t;
  t.type = core::nbt_type::string_tag;
  t.string = std::string("a\0b", 3);
  CHECK_BYTES(nbt(t), bytes{}
                          .u8(8)
                          .u16(4)
                          .raw("a\xC0\x80"
                               "b")
                          .b);
  t.string = "\xC3\xA9\xE2\x82\xAC";
  CHECK_BYTES(nbt(t), bytes{}.u8(8).u16(5).raw("\xC3\xA9\xE2\x82\xAC").b);
  t.string = "\xF0\x9F\x98\x80";
  CHECK_BYTES(nbt(t), bytes{}.u8(8).u16(6).raw("\xED\xA0\xBD\xED\xB8\x80").b);
  // An ill-formed byte is written as U+FFFD (EF BF BD).
  t.string = "\xFF";
  CHECK_BYTES(nbt(t), bytes{}.u8(8).u16(3).raw("\xEF\xBF\xBD").b);
  // Keys use the same form.
  auto c = tag_of("{\"\xC3\xA9\":1b}");
  CHECK_BYTES(nbt(c), bytes{}.u8(10).u8(1).u16(2).raw("\xC3\xA9").u8(1).u8(0).b);
  CHECK(detail::modified_utf8_length(std::string("\0\xF0\x9F\x98\x80", 5)) == 8);
}

TEST_CASE("network NBT: a string over 65535 modified UTF-8 bytes is cut between characters") {
  core::nbt_tag t;
  t.type = core::nbt_type::string_tag;
  t.string.assign(70000, 'a');
  auto out = nbt(t);
  REQUIRE(out.size() == 3 + 65535);
  CHECK(out.substr(0, 3) == "\x08\xFF\xFF");
  // 65534 bytes, then a 2-byte character that would make 65536: cut before it.
  t.string.assign(65534, 'a');
  t.string += "\xC3\xA9";
  out = nbt(t);
  CHECK(out.size() == 3 + 65534);
  CHECK(out.substr(0, 3) == "\x08\xFF\xFE");
  // A supplementary character (6 bytes) that does not fit whole is left out whole.
  t.string.assign(65530, 'a');
  t.string += "\xF0\x9F\x98\x80";
  out = nbt(t);
  CHECK(out.size() == 3 + 65530);
}

TEST_CASE("network NBT: deep trees and mixed lists do not break the writer") {
  // 5,000 nested compounds: the writer keeps its own stack.
  core::nbt_tag root;
  core::nbt_tag* at = &root;
  constexpr int depth = 5000;
  for (int i = 0; i < depth; ++i) {
    at->compound.entries.push_back({"k", core::nbt_tag{}});
    at = &at->compound.entries.back().value;
  }
  const auto out = nbt(root);
  // Per level: type 10, key "k" (2 + 1); then the innermost End and one End per level.
  CHECK(out.size() == 1 + depth * 4 + (depth + 1));
  // A list built by code with elements of two types: only the first element's type is written.
  core::nbt_tag list;
  list.type = core::nbt_type::list_tag;
  list.list = {tag_of("1b"), tag_of("\"x\""), tag_of("2b")};
  CHECK_BYTES(nbt(list), bytes{}.u8(9).u8(1).i32(2).u8(1).u8(2).b);
}

// ---------------------------------------------------------------------------------------------
// Text components

TEST_CASE("text: plain literals are string tags (render.md §5.4)") {
  CHECK_BYTES(text(""), string_nbt(""));
  CHECK_BYTES(text("\"hi\""), string_nbt("hi"));
  CHECK_BYTES(text(R"({"text":"hi"})"), string_nbt("hi"));
  CHECK_BYTES(text(R"(["hi"])"), string_nbt("hi"));
  CHECK_BYTES(text(R"({"text":"hi","extra":[]})"), string_nbt("hi"));
  CHECK_BYTES(text(R"({"type":"text","text":"hi"})"), string_nbt("hi"));
  // Numbers and booleans are literal text.
  CHECK_BYTES(text("5"), string_nbt("5"));
  CHECK_BYTES(text("true"), string_nbt("true"));
  CHECK_BYTES(text(R"({"text":7})"), string_nbt("7"));
}

TEST_CASE("text: styled compounds in the canonical key order (render.md §5.4)") {
  // text, extra, color, bold, italic, underlined, strikethrough, obfuscated, font.
  const auto expected = bytes{}
                            .u8(10)
                            .key(8, "text")
                            .str("x")
                            .key(9, "extra")
                            .u8(10)
                            .i32(1)
                            .key(8, "text")
                            .str("y")
                            .u8(0)
                            .key(8, "color")
                            .str("red")
                            .key(1, "bold")
                            .u8(1)
                            .key(1, "italic")
                            .u8(0)
                            .key(1, "underlined")
                            .u8(1)
                            .key(1, "strikethrough")
                            .u8(0)
                            .key(1, "obfuscated")
                            .u8(1)
                            .key(8, "font")
                            .str("minecraft:uniform")
                            .u8(0)
                            .b;
  CHECK_BYTES(
      text(
          R"({"font":"uniform","obfuscated":1,"strikethrough":false,"underlined":true,"italic":false,"bold":true,"color":"red","extra":["y"],"text":"x"})"),
      expected);
}

TEST_CASE("text: arrays append to the first element's siblings (render.md §5.4)") {
  // ["a", "b"] = {text:a, extra:[{text:b}]}.
  CHECK_BYTES(text(R"(["a","b"])"), bytes{}
                                        .u8(10)
                                        .key(8, "text")
                                        .str("a")
                                        .key(9, "extra")
                                        .u8(10)
                                        .i32(1)
                                        .key(8, "text")
                                        .str("b")
                                        .u8(0)
                                        .u8(0)
                                        .b);
  // The first element's own siblings come first; extra stays before the style keys.
  CHECK_BYTES(text(R"([{"text":"a","bold":true,"extra":[{"text":"x"}]},2])"), bytes{}
                                                                                  .u8(10)
                                                                                  .key(8, "text")
                                                                                  .str("a")
                                                                                  .key(9, "extra")
                                                                                  .u8(10)
                                                                                  .i32(2)
                                                                                  .key(8, "text")
                                                                                  .str("x")
                                                                                  .u8(0)
                                                                                  .key(8, "text")
                                                                                  .str("2")
                                                                                  .u8(0)
                                                                                  .key(1, "bold")
                                                                                  .u8(1)
                                                                                  .u8(0)
                                                                                  .b);
  CHECK_BYTES(text(R"([{"text":"a","color":"blue"},"b"])"), bytes{}
                                                                .u8(10)
                                                                .key(8, "text")
                                                                .str("a")
                                                                .key(9, "extra")
                                                                .u8(10)
                                                                .i32(1)
                                                                .key(8, "text")
                                                                .str("b")
                                                                .u8(0)
                                                                .key(8, "color")
                                                                .str("blue")
                                                                .u8(0)
                                                                .b);
}

TEST_CASE("text: translate with arguments, keybind (render.md §5.4)") {
  CHECK_BYTES(
      text(R"({"translate":"chat.type.text","with":["Steve",{"text":"hi","italic":true},3]})"),
      bytes{}
          .u8(10)
          .key(8, "translate")
          .str("chat.type.text")
          .key(9, "with")
          .u8(10)
          .i32(3)
          .key(8, "text")
          .str("Steve")
          .u8(0)
          .key(8, "text")
          .str("hi")
          .key(1, "italic")
          .u8(1)
          .u8(0)
          .key(8, "text")
          .str("3")
          .u8(0)
          .u8(0)
          .b);
  CHECK_BYTES(text(R"({"translate":"k","with":[]})"),
              bytes{}.u8(10).key(8, "translate").str("k").u8(0).b);
  CHECK_BYTES(text(R"({"keybind":"key.jump"})"),
              bytes{}.u8(10).key(8, "keybind").str("key.jump").u8(0).b);
  // `text` wins over `translate` when both are present (vanilla's matching order).
  warnings warn;
  CHECK_BYTES(text(R"({"translate":"k","text":"t"})", 769, warn), string_nbt("t"));
  CHECK(has_warning(warn, "translate"));
}

TEST_CASE("text: colours as vanilla's TextColor writes them (render.md §5.4)") {
  auto colored = [](std::string_view c) {
    return bytes{}.u8(10).key(8, "text").str("a").key(8, "color").str(c).u8(0).b;
  };
  CHECK_BYTES(text(R"({"text":"a","color":"#ff00aa"})"), colored("#FF00AA"));
  CHECK_BYTES(text(R"({"text":"a","color":"#fff"})"), colored("#000FFF"));
  CHECK_BYTES(text(R"({"text":"a","color":"light_purple"})"), colored("light_purple"));
  for (const auto* bad : {"#1000000", "Red", "#", "#xyz", "#-1", "purple"}) {
    warnings warn;
    CHECK_BYTES(text(R"({"text":"a","color":")" + std::string(bad) + "\"}", 769, warn),
                string_nbt("a"));
    CHECK(has_warning(warn, "color"));
  }
}

TEST_CASE("text: shadow_color only from 769 on (render.md §5.4)") {
  // An int as given; [r,g,b,a] floats as ARGB.colorFromFloat (floor(x * 255) per channel).
  CHECK_BYTES(
      text(R"({"text":"a","shadow_color":-16777216})", 769),
      bytes{}.u8(10).key(8, "text").str("a").key(3, "shadow_color").i32(0xFF000000).u8(0).b);
  CHECK_BYTES(
      text(R"({"text":"a","shadow_color":4278190335})", 775),
      bytes{}.u8(10).key(8, "text").str("a").key(3, "shadow_color").i32(0xFF0000FF).u8(0).b);
  CHECK_BYTES(
      text(R"({"text":"a","shadow_color":[1.0,0.5,0.0,1.0]})", 769),
      bytes{}.u8(10).key(8, "text").str("a").key(3, "shadow_color").i32(0xFFFF7F00).u8(0).b);
  warnings warn;
  CHECK_BYTES(text(R"({"text":"a","shadow_color":-16777216})", 768, warn), string_nbt("a"));
  CHECK(has_warning(warn, "shadow_color"));
}

TEST_CASE("text: events, other contents and unknown keys are dropped with a warning") {
  warnings warn;
  CHECK_BYTES(
      text(
          R"({"text":"a","click_event":{"action":"run_command","command":"/x"},"hover_event":{},"insertion":"i","clickEvent":{},"zzz":1})",
          769, warn),
      string_nbt("a"));
  CHECK(has_warning(warn, "click_event"));
  CHECK(has_warning(warn, "hover_event"));
  CHECK(has_warning(warn, "clickEvent"));
  CHECK(has_warning(warn, "insertion"));
  CHECK(has_warning(warn, "zzz"));
  CHECK(warn.size() == 5);
  // A score keeps its style and siblings with empty text.
  warn.clear();
  CHECK_BYTES(text(R"({"score":{"name":"@p","objective":"o"},"bold":true})", 769, warn),
              bytes{}.u8(10).key(8, "text").str("").key(1, "bold").u8(1).u8(0).b);
  CHECK(has_warning(warn, "score content"));
  CHECK(warn.size() == 1);
  warn.clear();
  CHECK_BYTES(text(R"({"selector":"@a","separator":", "})", 769, warn), string_nbt(""));
  CHECK(warn.size() == 1);
  warn.clear();
  CHECK_BYTES(text(R"({"translate":"k","fallback":"f"})", 769, warn),
              bytes{}.u8(10).key(8, "translate").str("k").u8(0).b);
  CHECK(has_warning(warn, "fallback"));
  warn.clear();
  CHECK_BYTES(text(R"({"color":"red"})", 769, warn),
              bytes{}.u8(10).key(8, "text").str("").key(8, "color").str("red").u8(0).b);
  CHECK(has_warning(warn, "without content"));
}

TEST_CASE("text: hostile input gives warnings and bounded output") {
  warnings warn;
  // Not JSON; null; an empty array.
  CHECK_BYTES(text("{", 769, warn), string_nbt(""));
  CHECK(has_warning(warn, "invalid text JSON"));
  warn.clear();
  CHECK_BYTES(text("null", 769, warn), string_nbt(""));
  CHECK(warn.size() == 1);
  warn.clear();
  CHECK_BYTES(text("[]", 769, warn), string_nbt(""));
  CHECK(warn.size() == 1);
  // Ill-formed UTF-8 becomes U+FFFD.
  warn.clear();
  CHECK_BYTES(text("\"a\xFF\"", 769, warn), bytes{}.u8(8).u16(4).raw("a\xEF\xBF\xBD").b);
  CHECK(has_warning(warn, "UTF-8"));
  // A 1 MB string: cut to 65535 bytes.
  warn.clear();
  const std::string big = "\"" + std::string(1 << 20, 'x') + "\"";
  auto out = text(big, 769, warn);
  CHECK(out.size() == 3 + 65535);
  CHECK(has_warning(warn, "65535"));
  // 10,000-deep nesting, as arrays and as extra: beyond the JSON reader's depth.
  warn.clear();
  const std::string deep_arrays = std::string(10000, '[') + "\"a\"" + std::string(10000, ']');
  CHECK_BYTES(text(deep_arrays, 769, warn), string_nbt(""));
  CHECK(has_warning(warn, "invalid text JSON"));
  warn.clear();
  std::string deep_extra;
  for (int i = 0; i < 10000; ++i) {
    deep_extra += R"({"text":"a","extra":[)";
  }
  deep_extra += "\"z\"";
  for (int i = 0; i < 10000; ++i) {
    deep_extra += "]}";
  }
  CHECK_BYTES(text(deep_extra, 769, warn), string_nbt(""));
  CHECK(!warn.empty());
  // 200 levels of extra (within the reader's depth): cut at 128 component levels.
  warn.clear();
  std::string nested;
  for (int i = 0; i < 200; ++i) {
    nested += R"({"text":"a","extra":[)";
  }
  nested += "\"z\"";
  for (int i = 0; i < 200; ++i) {
    nested += "]}";
  }
  out = text(nested, 769, warn);
  CHECK(has_warning(warn, "nested deeper than 128"));
  // Levels 0..128 are written: the root's type byte; levels 0..127 with a text entry (10 bytes),
  // an extra header of one compound (13) and End; level 128 with its text and End only.
  CHECK(out.size() == 1 + 128 * (10 + 13 + 1) + (10 + 1));
  // 100,000 siblings: cut at 4,096 components.
  warn.clear();
  std::string many = "[";
  for (int i = 0; i < 100000; ++i) {
    many += i == 0 ? "\"x\"" : ",\"x\"";
  }
  many += "]";
  out = text(many, 769, warn);
  CHECK(has_warning(warn, "4096 components"));
  // The root (type byte, its text entry, the extra header, End) and 4,095 siblings {text:"x"}
  // (entry 1 + 2 + 4 + 2 + 1, End 1).
  CHECK(out.size() == 1 + (1 + 2 + 4 + 2 + 1) + (1 + 2 + 5 + 1 + 4) + 4095 * 11 + 1);
  // Many long strings: the whole text stays within its byte budget.
  warn.clear();
  std::string wide = "[";
  for (int i = 0; i < 20; ++i) {
    wide += (i == 0 ? "\"" : ",\"") + std::string(60000, 'y') + "\"";
  }
  wide += "]";
  out = text(wide, 769, warn);
  CHECK(has_warning(warn, "262144 bytes"));
  CHECK(out.size() < 262144 + 1000);
  // Warnings stay few, however many problems.
  warn.clear();
  std::string keys = "{\"text\":\"a\"";
  for (int i = 0; i < 1000; ++i) {
    keys += ",\"k" + std::to_string(i) + "\":1";
  }
  keys += "}";
  CHECK_BYTES(text(keys, 769, warn), string_nbt("a"));
  CHECK(warn.size() == 33);
}

TEST_CASE("profile names (render.md §5.4, K26)") {
  CHECK(valid_profile_name("Steve"));
  CHECK(valid_profile_name("a_b_0123456789AB"));
  CHECK_FALSE(valid_profile_name(""));
  CHECK_FALSE(valid_profile_name("a_b_0123456789ABC"));
  CHECK_FALSE(valid_profile_name("0f8a1b2c-3d4e-4f5a-8b6c-7d8e9f0a1b2c"));
  CHECK_FALSE(valid_profile_name("na me"));
  CHECK_FALSE(valid_profile_name("n\xC3\xA9"));
}
