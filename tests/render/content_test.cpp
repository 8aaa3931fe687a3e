// Display content encoding (render.md §5.4). Expected bytes are written out from the protocol
// facts each test names: NBT's wire form (type ids End 0, Byte 1, Short 2, Int 3, Long 4, Float 5,
// Double 6, Byte_Array 7, String 8, List 9, Compound 10, Int_Array 11, Long_Array 12; big-endian;
// strings as a u16 length and Java's modified UTF-8, DataOutput.writeUTF; the network form has
// no root name) and minecraft-data 3.119.0's protocol.json (Slot, SlotComponent).

#include "render/content.hpp"
#include "render/content_detail.hpp"

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

// Each side is evaluated once (the message must not re-run an encode that itself checks).
#define CHECK_BYTES(actual, expected)                                                              \
  do {                                                                                             \
    const std::string check_actual_ = (actual);                                                    \
    const std::string check_expected_ = (expected);                                                \
    CHECK_MESSAGE(check_actual_ == check_expected_, hex(check_actual_) << "\n  expected\n"         \
                                                                       << hex(check_expected_));   \
  } while (false)

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
  // Dropped siblings leave no empty extra behind.
  warn.clear();
  CHECK_BYTES(text(R"(["a",null])", 769, warn), string_nbt("a"));
  CHECK(warn.size() == 1);
  warn.clear();
  CHECK_BYTES(text(R"({"text":"a","extra":[null]})", 769, warn), string_nbt("a"));
  CHECK(warn.size() == 1);
  // Ill-formed UTF-8 becomes U+FFFD.
  warn.clear();
  CHECK_BYTES(text("\"a\xFF\"", 769, warn), bytes{}.u8(8).u16(4).raw("a\xEF\xBF\xBD").b);
  CHECK(has_warning(warn, "UTF-8"));
  // A lone surrogate escape is not JSON text here (the wire reader refuses it); an escaped NUL
  // is written as modified UTF-8's C0 80.
  warn.clear();
  CHECK_BYTES(text(R"("\udc00")", 769, warn), string_nbt(""));
  CHECK(has_warning(warn, "invalid text JSON"));
  CHECK_BYTES(text(R"("a\u0000")"), bytes{}.u8(8).u16(3).raw("a\xC0\x80").b);
  // Deeply nested SNBT is refused by the SNBT parser: an empty stack, a warning.
  warn.clear();
  {
    std::string deep_snbt = "{id:\"stone\",components:{custom_data:";
    for (int i = 0; i < 10000; ++i) {
      deep_snbt += "{a:";
    }
    deep_snbt += "1" + std::string(10000, '}') + "}}";
    std::string out;
    byte_writer w(out);
    write_item_stack(w, text_table(769), deep_snbt, nullptr, warn);
    CHECK(out == std::string(1, '\0'));
    CHECK(has_warning(warn, "invalid item SNBT"));
  }
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

// ---------------------------------------------------------------------------------------------
// Item stacks and block states against hand-made tables. The ids are minecraft-data 3.119.0's:
// 1.21.4 (769) items stone 1, player_head 1156, leather_helmet 887, diamond_sword 869; component
// type ids item_model 7, enchantments 10, custom_model_data 14, enchantment_glint_override 19,
// dyed_color 34, profile 57. 1.21.1 (767): player_head 1105, leather_helmet 856, diamond_sword
// 838; custom_model_data 13, enchantment_glint_override 18, dyed_color 24, profile 47, no
// item_model. 26.1 (775): player_head 1236, leather_helmet 955, diamond_sword 937; item_model 10,
// enchantments 13, custom_model_data 17, enchantment_glint_override 21, dyed_color 44, profile 70.
// Blocks: stone min = default = 1; oak_stairs (1.21.4) min 2929, default 2940, properties facing
// [north south west east], half [top bottom], shape [straight inner_left inner_right outer_left
// outer_right], waterlogged [true false].

namespace {

constexpr item_entry items_767[] = {
    {"diamond_sword", 838}, {"leather_helmet", 856}, {"player_head", 1105}, {"stone", 1}};
constexpr item_entry items_769[] = {
    {"diamond_sword", 869}, {"leather_helmet", 887}, {"player_head", 1156}, {"stone", 1}};
constexpr item_entry items_775[] = {
    {"diamond_sword", 937}, {"leather_helmet", 955}, {"player_head", 1236}, {"stone", 1}};
constexpr std::string_view stair_values[] = {
    "north",      "south",       "west",       "east",        "top",  "bottom", "straight",
    "inner_left", "inner_right", "outer_left", "outer_right", "true", "false"};
constexpr block_property stair_properties[] = {
    {"facing", 0, 4}, {"half", 4, 2}, {"shape", 6, 5}, {"waterlogged", 11, 2}};
constexpr block_entry blocks_769[] = {
    {"air", 0, 0, 0, 0}, {"oak_stairs", 2929, 2940, 0, 4}, {"stone", 1, 1, 0, 0}};

// profile, item_model, custom_model_data, dyed_color, enchantment_glint_override, enchantments.
version_table table_767() {
  version_table v = text_table(767);
  v.component_ids = {47, -1, 13, 24, 18, 9};
  v.profile = profile_layout::game_profile;
  v.custom_model_data = custom_model_data_layout::varint;
  v.dyed_color = dyed_color_layout::with_tooltip;
  v.items = items_767;
  return v;
}
version_table table_768() {
  version_table v = text_table(768);
  v.component_ids = {57, 7, 14, 34, 19, 10};
  v.profile = profile_layout::game_profile;
  v.custom_model_data = custom_model_data_layout::dropped;
  v.dyed_color = dyed_color_layout::with_tooltip;
  v.items = items_769; // (1.21.3's ids differ; only the layout matters where this is used)
  return v;
}
version_table table_769() {
  version_table v = text_table(769);
  v.component_ids = {57, 7, 14, 34, 19, 10};
  v.profile = profile_layout::game_profile;
  v.custom_model_data = custom_model_data_layout::lists;
  v.dyed_color = dyed_color_layout::with_tooltip;
  v.items = items_769;
  v.blocks = blocks_769;
  v.properties = stair_properties;
  v.property_values = stair_values;
  return v;
}
version_table table_775() {
  version_table v = text_table(775);
  v.component_ids = {70, 10, 17, 44, 21, 13};
  v.profile = profile_layout::resolvable_partial;
  v.custom_model_data = custom_model_data_layout::lists;
  v.dyed_color = dyed_color_layout::plain;
  v.items = items_775;
  return v;
}

std::string stack(const version_table& v, std::string_view snbt, warnings& warn,
                  const skin_profile* skin = nullptr) {
  std::string out;
  byte_writer w(out);
  write_item_stack(w, v, snbt, skin, warn);
  return out;
}

std::string stack(const version_table& v, std::string_view snbt,
                  const skin_profile* skin = nullptr) {
  warnings warn;
  auto out = stack(v, snbt, warn, skin);
  CHECK_MESSAGE(warn.empty(), snbt << ": " << (warn.empty() ? "" : warn.front()));
  return out;
}

// A varint of values below 2^14 (the test ids).
bytes& varint(bytes& b, unsigned v) {
  if (v >= 0x80) {
    return b.u8(0x80 | (v & 0x7F)).u8(v >> 7);
  }
  return b.u8(v);
}
bytes slot_head(unsigned count, unsigned item, unsigned added) {
  bytes b;
  varint(b, count);
  varint(b, item);
  varint(b, added);
  return std::move(b.u8(0)); // removed components: 0
}
/// A protocol string: varint length, UTF-8 (test strings are below 128 bytes).
bytes& pstr(bytes& b, std::string_view s) {
  return b.u8(static_cast<unsigned>(s.size())).raw(s);
}

} // namespace

TEST_CASE("item stacks: the Slot layout (render.md §5.4)") {
  const auto v = table_769();
  // Empty text and count <= 0: count 0 only.
  CHECK_BYTES(stack(v, ""), std::string(1, '\0'));
  CHECK_BYTES(stack(v, "{id:\"minecraft:stone\",count:0}"), std::string(1, '\0'));
  CHECK_BYTES(stack(v, "{id:\"stone\",count:-3}"), std::string(1, '\0'));
  // count, item id (1156 = 0x84 0x09 as a varint), 0 added, 0 removed.
  CHECK_BYTES(stack(v, "{id:\"minecraft:player_head\"}"), slot_head(1, 1156, 0).b);
  CHECK_BYTES(stack(v, "{id:\"minecraft:player_head\",count:5b}"), slot_head(5, 1156, 0).b);
  CHECK_BYTES(stack(v, "{id:\"stone\",count:2L}"), slot_head(2, 1, 0).b);
  CHECK(slot_head(1, 1156, 0).b == std::string("\x01\x84\x09\x00\x00", 5));
}

TEST_CASE("item stacks: enchantments become the glint override (render.md §5.4, K21)") {
  const auto v = table_769();
  // K21: {sharpness:5} on 769: glint override (19) true, no enchantments component (10).
  auto expected = slot_head(1, 869, 1);
  varint(expected, 19).u8(1);
  CHECK_BYTES(
      stack(
          v,
          R"({id:"minecraft:diamond_sword",components:{"minecraft:enchantments":{"minecraft:sharpness":5}}})"),
      expected.b);
  // The stack's own override wins.
  auto off = slot_head(1, 869, 1);
  varint(off, 19).u8(0);
  CHECK_BYTES(
      stack(
          v,
          R"({id:"diamond_sword",components:{enchantments:{sharpness:5},enchantment_glint_override:false}})"),
      off.b);
  // No enchantments: nothing.
  CHECK_BYTES(stack(v, R"({id:"diamond_sword",components:{"minecraft:enchantments":{}}})"),
              slot_head(1, 869, 0).b);
  // On 775 the glint override is type 21.
  auto on775 = slot_head(1, 937, 1);
  varint(on775, 21).u8(1);
  CHECK_BYTES(stack(table_775(), R"({id:"diamond_sword",components:{enchantments:{sharpness:1}}})"),
              on775.b);
}

TEST_CASE("item stacks: components in ascending type id (render.md §5.4)") {
  const auto v = table_769();
  // item_model 7 (string), custom_model_data 14 (lists), glint 19 (bool), dyed_color 34
  // (i32 + show_in_tooltip true on 769), whatever order the SNBT has.
  auto expected = slot_head(1, 887, 4);
  pstr(varint(expected, 7), "minecraft:custom/hat");
  varint(expected, 14)
      .u8(2)
      .i32(0x3F800000) // 1.0f
      .i32(0x40000000) // 2.0f
      .u8(1)
      .u8(1) // flags [true]
      .u8(1);
  pstr(expected, "a");
  expected.u8(1).i32(0xFF0000); // colors [16711680]
  varint(expected, 19).u8(1);
  varint(expected, 34).i32(0x00FF00).u8(1);
  CHECK_BYTES(
      stack(
          v,
          R"({id:"leather_helmet",components:{"minecraft:dyed_color":65280,enchantment_glint_override:1b,"minecraft:custom_model_data":{floats:[1.0f,2.0f],flags:[true],strings:["a"],colors:[I;16711680]},item_model:"custom/hat"}})"),
      expected.b);
  // 775: dyed_color (44) is the plain i32; item_model 10.
  auto plain = slot_head(1, 955, 2);
  pstr(varint(plain, 10), "minecraft:x");
  varint(plain, 44).i32(0x123456);
  CHECK_BYTES(
      stack(table_775(), R"({id:"leather_helmet",components:{dyed_color:1193046,item_model:"x"}})"),
      plain.b);
}

TEST_CASE("item stacks: custom_model_data per version (render.md §5.4)") {
  // 767: a varint, (int) floats[0].
  auto v767 = slot_head(1, 838, 1);
  varint(v767, 13).u8(7);
  CHECK_BYTES(
      stack(table_767(), R"({id:"diamond_sword",components:{custom_model_data:{floats:[7.9f]}}})"),
      v767.b);
  warnings warn;
  CHECK_BYTES(stack(table_767(),
                    R"({id:"diamond_sword",components:{custom_model_data:{strings:["a"]}}})", warn),
              slot_head(1, 838, 0).b);
  CHECK(has_warning(warn, "custom_model_data"));
  // 768: dropped with a warning.
  warn.clear();
  CHECK_BYTES(stack(table_768(),
                    R"({id:"diamond_sword",components:{custom_model_data:{floats:[1.0f]}}})", warn),
              slot_head(1, 869, 0).b);
  CHECK(has_warning(warn, "custom_model_data"));
  // 769: empty lists when absent.
  auto empty_lists = slot_head(1, 869, 1);
  varint(empty_lists, 14).u8(0).u8(0).u8(0).u8(0);
  CHECK_BYTES(stack(table_769(), R"({id:"diamond_sword",components:{custom_model_data:{}}})"),
              empty_lists.b);
}

TEST_CASE("item stacks: a component the version lacks, or an unsupported one, is dropped") {
  warnings warn;
  CHECK_BYTES(stack(table_767(), R"({id:"diamond_sword",components:{item_model:"x"}})", warn),
              slot_head(1, 838, 0).b);
  CHECK(has_warning(warn, "minecraft:item_model"));
  warn.clear();
  CHECK_BYTES(
      stack(
          table_769(),
          R"({id:"diamond_sword",components:{"minecraft:lore":["a"],"!minecraft:damage":{},"mod:thing":1,damage:3}})",
          warn),
      slot_head(1, 869, 0).b);
  CHECK(has_warning(warn, "minecraft:lore"));
  CHECK(has_warning(warn, "!minecraft:damage"));
  CHECK(has_warning(warn, "mod:thing"));
  CHECK(has_warning(warn, "minecraft:damage"));
}

TEST_CASE("item stacks: profiles (render.md §5.4, K26)") {
  const api::uuid id = {0x0f, 0x8a, 1, 2, 3, 4, 0x45, 6, 0x87, 8, 9, 10, 11, 12, 13, 14};
  const api::skin_texture tex{"dGV4", std::string("c2ln")};
  // 769 (game profile): option name, option uuid, properties [{textures, value, signature}].
  skin_profile skin{&tex, &id, "Alex_1"};
  auto expected = slot_head(1, 1156, 1);
  varint(expected, 57).u8(1);
  pstr(expected, "Alex_1").u8(1).raw(std::string(reinterpret_cast<const char*>(id.data()), 16));
  expected.u8(1);
  pstr(expected, "textures");
  pstr(expected, "dGV4").u8(1);
  pstr(expected, "c2ln");
  CHECK_BYTES(stack(table_769(), R"({id:"player_head"})", &skin), expected.b);
  // K26: a 36-character UUID-like name is not put in the profile (with a warning).
  skin_profile uuid_named{&tex, &id, "0f8a0102-0304-4506-8708-090a0b0c0d0e"};
  auto unnamed = slot_head(1, 1156, 1);
  varint(unnamed, 57).u8(0).u8(1).raw(std::string(reinterpret_cast<const char*>(id.data()), 16));
  unnamed.u8(1);
  pstr(unnamed, "textures");
  pstr(unnamed, "dGV4").u8(1);
  pstr(unnamed, "c2ln");
  warnings warn;
  CHECK_BYTES(stack(table_769(), R"({id:"player_head"})", warn, &uuid_named), unnamed.b);
  CHECK(has_warning(warn, "not a valid player name"));
  // 775 (resolvable profile): 0 = partial, the same fields, then four absent skin patch options.
  auto partial = slot_head(1, 1236, 1);
  varint(partial, 70).u8(0).u8(1);
  pstr(partial, "Alex_1").u8(1).raw(std::string(reinterpret_cast<const char*>(id.data()), 16));
  partial.u8(1);
  pstr(partial, "textures");
  pstr(partial, "dGV4").u8(1);
  pstr(partial, "c2ln").u8(0).u8(0).u8(0).u8(0);
  CHECK_BYTES(stack(table_775(), R"({id:"player_head"})", &skin), partial.b);
  // The skin replaces the stack's own profile.
  CHECK_BYTES(stack(table_775(), R"({id:"player_head",components:{profile:"Notch"}})", &skin),
              partial.b);
  // The stack's own profile: a name; {name, id, properties}.
  auto notch = slot_head(1, 1156, 1);
  varint(notch, 57).u8(1);
  pstr(notch, "Notch").u8(0).u8(0);
  CHECK_BYTES(stack(table_769(), R"({id:"player_head",components:{"minecraft:profile":"Notch"}})"),
              notch.b);
  auto full = slot_head(1, 1156, 1);
  varint(full, 57).u8(0).u8(1).i32(1).i32(2).i32(3).i32(0xFFFFFFFF).u8(1);
  pstr(full, "textures");
  pstr(full, "v").u8(0);
  CHECK_BYTES(
      stack(
          table_769(),
          R"({id:"player_head",components:{profile:{id:[I;1,2,3,-1],properties:[{name:"textures",value:"v"}]}}})"),
      full.b);
  // Nothing usable: the component is dropped with a warning.
  warn.clear();
  skin_profile nobody{nullptr, nullptr, "not valid!"};
  CHECK_BYTES(stack(table_769(), R"({id:"player_head"})", warn, &nobody), slot_head(1, 1156, 0).b);
  CHECK(has_warning(warn, "minecraft:profile"));
  warn.clear();
  CHECK_BYTES(stack(table_775(), R"({id:"player_head",components:{profile:{texture:"x"}}})", warn),
              slot_head(1, 1236, 0).b);
  CHECK(has_warning(warn, "skin patch texture"));
}

TEST_CASE("item stacks: hostile input gives an empty stack and a warning") {
  const auto v = table_769();
  for (const auto* bad : {"{", "not snbt", "{id:3}", "{count:1}", "{id:\"Bad Id\"}",
                          "{id:\"minecraft:nope\"}", "{id:\"mod:stone\"}"}) {
    warnings warn;
    CHECK_BYTES(stack(v, bad, warn), std::string(1, '\0'));
    CHECK_MESSAGE(warn.size() == 1, bad);
  }
  warnings warn;
  stack(v, "{id:\"minecraft:nope\"}", warn);
  CHECK(has_warning(warn, "unknown item minecraft:nope"));
  // Ill-formed UTF-8 in a string is replaced; an over-long one is dropped.
  warn.clear();
  CHECK_BYTES(stack(v, "{id:\"stone\",components:{item_model:\"a\xFF\"}}", warn),
              slot_head(1, 1, 0).b);
  CHECK(has_warning(warn, "item_model"));
  warn.clear();
  const std::string long_model =
      "{id:\"stone\",components:{item_model:\"" + std::string(40000, 'a') + "\"}}";
  CHECK_BYTES(stack(v, long_model, warn), slot_head(1, 1, 0).b);
  CHECK(has_warning(warn, "32767"));
  // Very many components: the warnings stay bounded.
  warn.clear();
  std::string many = "{id:\"stone\",components:{";
  for (int i = 0; i < 10000; ++i) {
    many += (i == 0 ? "" : ",") + std::string("c") + std::to_string(i) + ":1";
  }
  many += "}}";
  CHECK_BYTES(stack(v, many, warn), slot_head(1, 1, 0).b);
  CHECK(warn.size() == detail::warning_sink::limit + 1);
}

TEST_CASE("block states (render.md §5.4)") {
  const auto v = table_769();
  warnings warn;
  CHECK(block_state_id(v, "{Name:\"minecraft:stone\"}", warn) == 1);
  CHECK(block_state_id(v, "{Name:\"stone\"}", warn) == 1);
  // All defaults: 2940. facing east (3), half top (0), shape outer_left (3), waterlogged true (0):
  // 2929 + ((3 * 2 + 0) * 5 + 3) * 2 + 0 = 2995.
  CHECK(block_state_id(v, "{Name:\"minecraft:oak_stairs\"}", warn) == 2940);
  CHECK(
      block_state_id(
          v,
          R"({Name:"oak_stairs",Properties:{facing:"east",half:"top",shape:"outer_left",waterlogged:"true"}})",
          warn) == 2995);
  // Missing properties take the default's digits (half bottom, shape straight, not waterlogged).
  CHECK(block_state_id(v, R"({Name:"oak_stairs",Properties:{facing:"west"}})", warn) ==
        2929 + ((2 * 2 + 1) * 5 + 0) * 2 + 1);
  CHECK(warn.empty());
  // Unknown block, value, namespace; bad SNBT: air with a warning.
  for (const auto* bad : {"{Name:\"minecraft:nope\"}", "{Name:\"mod:stone\"}",
                          R"({Name:"oak_stairs",Properties:{facing:"up"}})", "{", "{Name:1}",
                          R"({Name:"oak_stairs",Properties:{facing:1}})"}) {
    warnings w;
    CHECK_MESSAGE(block_state_id(v, bad, w) == 0, bad);
    CHECK_MESSAGE(w.size() == 1, bad);
  }
  // An unknown property is ignored, with a warning.
  warn.clear();
  CHECK(block_state_id(v, R"({Name:"oak_stairs",Properties:{color:"red"}})", warn) == 2940);
  CHECK(warn.size() == 1);
}

// ---------------------------------------------------------------------------------------------
// Against the generated tables (ids as listed above, from minecraft-data 3.119.0).

namespace {

const version_table& real(std::int32_t protocol) {
  const auto* v = find_version(protocol);
  REQUIRE(v != nullptr);
  return *v;
}

} // namespace

TEST_CASE("block states on the real tables (render.md §10 K11)") {
  REQUIRE(!versions().empty());
  for (const auto* v : versions()) {
    warnings warn;
    CHECK_MESSAGE(block_state_id(*v, "{Name:\"minecraft:stone\"}", warn) == 1, v->protocol);
    CHECK(warn.empty());
    CHECK(block_state_id(*v, "{Name:\"minecraft:air\"}", warn) == 0);
  }
  warnings warn;
  CHECK(block_state_id(real(769), "{Name:\"minecraft:oak_stairs\"}", warn) == 2940);
  CHECK(
      block_state_id(
          real(769),
          R"({Name:"oak_stairs",Properties:{facing:"east",half:"top",shape:"outer_left",waterlogged:"true"}})",
          warn) == 2995);
  // 26.1: oak_stairs min 3907, default 3918.
  CHECK(block_state_id(real(775), "{Name:\"oak_stairs\"}", warn) == 3918);
  CHECK(
      block_state_id(
          real(775),
          R"({Name:"oak_stairs",Properties:{facing:"north",half:"top",shape:"straight",waterlogged:"true"}})",
          warn) == 3907);
  CHECK(warn.empty());
  CHECK(block_state_id(real(775), "{Name:\"minecraft:nope\"}", warn) == 0);
  CHECK(has_warning(warn, "unknown block minecraft:nope"));
}

TEST_CASE("item stacks on the real tables (render.md §5.4, §10 K21)") {
  // K21 on 769.
  auto k21 = slot_head(1, 869, 1);
  varint(k21, 19).u8(1);
  CHECK_BYTES(
      stack(
          real(769),
          R"({id:"minecraft:diamond_sword",count:1,components:{"minecraft:enchantments":{"minecraft:sharpness":5}}})"),
      k21.b);
  // 767: custom_model_data 13 as a varint; dyed_color 24 with show_in_tooltip.
  auto v767 = slot_head(1, 856, 2);
  varint(v767, 13).u8(3);
  varint(v767, 24).i32(0xFF).u8(1);
  CHECK_BYTES(
      stack(
          real(767),
          R"({id:"leather_helmet",components:{dyed_color:255,custom_model_data:{floats:[3.0f]}}})"),
      v767.b);
  // 770: dyed_color 35 is the plain i32, the glint 18.
  auto v770 = slot_head(1, 896, 2);
  varint(v770, 18).u8(1);
  varint(v770, 35).i32(0xFF);
  CHECK_BYTES(
      stack(real(770),
            R"({id:"leather_helmet",components:{dyed_color:255,enchantments:{protection:1}}})"),
      v770.b);
  // Skin profiles: 772 game profile (61), 773 resolvable partial (61), 775 (70).
  const api::skin_texture tex{"dA==", std::nullopt};
  skin_profile skin{&tex, nullptr, ""};
  const auto head772 = item_id(real(772), "player_head");
  REQUIRE(head772.has_value());
  auto v772 = slot_head(1, static_cast<unsigned>(*head772), 1);
  varint(v772, 61).u8(0).u8(0).u8(1);
  pstr(v772, "textures");
  pstr(v772, "dA==").u8(0);
  CHECK_BYTES(stack(real(772), "{id:\"player_head\"}", &skin), v772.b);
  auto v773 = slot_head(1, 1231, 1);
  varint(v773, 61).u8(0).u8(0).u8(0).u8(1);
  pstr(v773, "textures");
  pstr(v773, "dA==").u8(0).u8(0).u8(0).u8(0).u8(0);
  CHECK_BYTES(stack(real(773), "{id:\"player_head\"}", &skin), v773.b);
  auto v775 = slot_head(1, 1236, 1);
  varint(v775, 70).u8(0).u8(0).u8(0).u8(1);
  pstr(v775, "textures");
  pstr(v775, "dA==").u8(0).u8(0).u8(0).u8(0).u8(0);
  CHECK_BYTES(stack(real(775), "{id:\"player_head\"}", &skin), v775.b);
  // 768: custom_model_data dropped with a warning; item_model (7) kept.
  warnings warn;
  auto v768 = slot_head(1, 1, 1);
  pstr(varint(v768, 7), "minecraft:a");
  CHECK_BYTES(stack(real(768),
                    R"({id:"stone",components:{item_model:"a",custom_model_data:{floats:[1.0f]}}})",
                    warn),
              v768.b);
  CHECK(has_warning(warn, "custom_model_data"));
  // An unknown item on every version.
  for (const auto* v : versions()) {
    warnings w;
    CHECK_BYTES(stack(*v, "{id:\"minecraft:nope\"}", w), std::string(1, '\0'));
    CHECK(has_warning(w, "unknown item minecraft:nope"));
  }
}
