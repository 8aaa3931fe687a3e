#include "engine/core/snbt.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace emote::core;

namespace {

nbt_compound parse(const std::string& s) {
  auto r = parse_compound_snbt(s);
  REQUIRE_MESSAGE(r.ok(), s << " -> " << (r.ok() ? "" : r.error()));
  return std::move(r).value();
}
bool rejects(const std::string& s) {
  return !parse_compound_snbt(s).ok();
}
nbt_type type_of(const std::string& value) {
  const auto c = parse("{v:" + value + "}");
  return c.find("v")->type;
}

} // namespace

TEST_CASE("SNBT: bare value typing (formats.md §2.5)") {
  CHECK(type_of("true") == nbt_type::byte_tag);
  CHECK(parse("{v:true}").find("v")->integer == 1);
  CHECK(parse("{v:false}").find("v")->integer == 0);
  CHECK(type_of("1") == nbt_type::int_tag);
  CHECK(type_of("-1") == nbt_type::int_tag);
  CHECK(type_of("+1") == nbt_type::int_tag);
  CHECK(type_of("1b") == nbt_type::byte_tag);
  CHECK(type_of("1B") == nbt_type::byte_tag);
  CHECK(type_of("1s") == nbt_type::short_tag);
  CHECK(type_of("1l") == nbt_type::long_tag);
  CHECK(type_of("1L") == nbt_type::long_tag);
  CHECK(type_of("1f") == nbt_type::float_tag);
  CHECK(type_of("1.5f") == nbt_type::float_tag);
  CHECK(type_of("1d") == nbt_type::double_tag);
  CHECK(type_of("1.5") == nbt_type::double_tag);
  CHECK(type_of("1e3") == nbt_type::double_tag);
  CHECK(type_of(".5") == nbt_type::double_tag);
  CHECK(type_of("1.") == nbt_type::double_tag);
  CHECK(type_of("007") == nbt_type::string_tag);  // leading zeros are not an integer
  CHECK(type_of("128b") == nbt_type::string_tag); // out of range
  CHECK(type_of("2147483648") == nbt_type::string_tag);
  CHECK(type_of("9223372036854775807L") == nbt_type::long_tag);
  CHECK(type_of("9223372036854775808L") == nbt_type::string_tag);
  CHECK(type_of("1e39f") == nbt_type::string_tag);
  CHECK(type_of("1e999") == nbt_type::string_tag);
  CHECK(type_of("1.5b") == nbt_type::string_tag);
  CHECK(type_of("abc") == nbt_type::string_tag);
  CHECK(rejects("{v:minecraft:stone}")); // ':' is not a bare character
}

TEST_CASE("SNBT: structure") {
  const auto c = parse(" {id:\"minecraft:stone\", count:1 , 'q':'it\"s', nested:{a:[1,2,3]},} ");
  CHECK(c.size() == 4);
  CHECK(c.find("id")->string == "minecraft:stone");
  CHECK(c.find("nested")->compound.find("a")->list.size() == 3);
  CHECK(parse("{}").empty());
  CHECK(parse("{a:\"x\\\"y\\\\z\\'\"}").find("a")->string == "x\"y\\z'");
  CHECK(parse("{a:[B;1b,2B,3],b:[I;1,-2],c:[L;1L,2]}").find("a")->array.size() == 3);
  CHECK(parse("{a:[ B ; 1b ]}").find("a")->type == nbt_type::byte_array);
  CHECK(parse("{a:[B]}").find("a")->type == nbt_type::list_tag);
  CHECK(parse("{a:[]}").find("a")->list.empty());
  CHECK(parse("{a:1,a:2}").find("a")->integer == 2); // last wins
  CHECK(parse("{\"\":1}").find("") != nullptr);

  CHECK(rejects(""));
  CHECK(rejects("[]"));
  CHECK(rejects("{"));
  CHECK(rejects("{a}"));
  CHECK(rejects("{a:}"));
  CHECK(rejects("{a:1}x"));
  CHECK(rejects("{a:1}{}"));
  CHECK(rejects("{a:[1,2b]}")); // one element type per list
  CHECK(rejects("{a:[1,]}"));   // no trailing comma in lists
  CHECK(rejects("{a:[B;1s]}")); // suffix must match
  CHECK(rejects("{a:[I;1b]}"));
  CHECK(rejects("{a:[B;300]}"));
  CHECK(rejects("{a:[B;\"1\"]}"));
  CHECK(rejects("{a:\"x\\ny\"}")); // only \\ \" \' escapes
  CHECK(rejects("{a:\"open}"));
  CHECK(rejects("{,}"));
  CHECK(rejects("{a:1,,}"));
  CHECK(rejects("{a\x0b:1}"));

  const auto error = [](const std::string& text) {
    auto r = parse_compound_snbt(text);
    return r.ok() ? std::string("(parsed)") : r.error();
  };
  CHECK(error("{a:1 b:2}").find("expected ',' or '}'") != std::string::npos);
  CHECK(error("{a:1").find("expected ',' or '}'") != std::string::npos);
  CHECK(error("{a:[1 2]}").find("expected ',' or ']'") != std::string::npos);
  CHECK(error("{a:[1").find("expected ',' or ']'") != std::string::npos);
  CHECK(error("{a:[B;1b 2b]}").find("expected ',' or ']'") != std::string::npos);
  CHECK(error("{a:[B;1b").find("expected ',' or ']'") != std::string::npos);
}

TEST_CASE("SNBT: deep nesting is rejected, not a crash") {
  std::string deep = "{a:";
  for (int i = 0; i < 100000; ++i) {
    deep += "[";
  }
  CHECK(rejects(deep));
  std::string ok = "{a:";
  for (int i = 0; i < 100; ++i) {
    ok += "{a:";
  }
  ok += "1";
  for (int i = 0; i < 101; ++i) {
    ok += "}";
  }
  CHECK_FALSE(rejects(ok));
}

TEST_CASE("SNBT: equality ignores key order, not types") {
  CHECK(parse("{a:1,b:{c:2b,d:3}}") == parse("{b:{d:3,c:2b},a:1}"));
  CHECK_FALSE(parse("{a:1}") == parse("{a:1b}"));
  CHECK_FALSE(parse("{a:1}") == parse("{a:1,b:2}"));
  CHECK_FALSE(parse("{a:[1,2]}") == parse("{a:[2,1]}"));
  CHECK(parse("{a:1.0f}") == parse("{a:1f}"));
  CHECK(parse("{}") == nbt_compound{});
}

TEST_CASE("SNBT: canonical writer") {
  CHECK(to_snbt(parse("{id:\"minecraft:stone\",count:1}")) == "{count:1,id:\"minecraft:stone\"}");
  CHECK(to_snbt(parse("{b:1b,s:2s,l:3l,f:1.5f,d:2,e:.5,x:1e3}")) ==
        "{b:1b,d:2,e:0.5d,f:1.5f,l:3L,s:2s,x:1000.0d}");
  CHECK(to_snbt(parse("{'a b':'q\"',arr:[B;1,2],i:[I;],l:[L;5]}")) ==
        "{\"a b\":\"q\\\"\",arr:[B;1b,2b],i:[I;],l:[L;5L]}");
  CHECK(to_snbt(parse("{f:0.1f,d:0.1}")) == "{d:0.1d,f:0.1f}");
  CHECK(to_snbt(parse("{z:-0.0}")) == "{z:0.0d}");
  CHECK(to_snbt(parse("{t:[{b:1,a:2}]}")) == "{t:[{a:2,b:1}]}");
  // Round trip: the canonical text parses back to an equal compound.
  const auto c = parse("{a:[1.25f,3e20f],b:{c:\"\\\\\"},d:-7L,e:[[1],[2,3]]}");
  CHECK(parse(to_snbt(c)) == c);
  CHECK(to_snbt(parse(to_snbt(c))) == to_snbt(c));
}

TEST_CASE("SNBT: CompoundTag merge (playback.md §2.7)") {
  auto state = parse("{a:1,n:{x:1,y:2},l:[1]}");
  merge_into(state, parse("{n:{y:3,z:4},l:[2],b:5}"));
  CHECK(state == parse("{a:1,n:{x:1,y:3,z:4},l:[2],b:5}"));
  merge_into(state, parse("{n:7}")); // a non-compound replaces a compound
  CHECK(state.find("n")->type == nbt_type::int_tag);
  merge_into(state, parse("{n:{q:1}}"));
  CHECK(state.find("n")->compound == parse("{q:1}"));
}

TEST_CASE("SNBT: item stacks and block states") {
  std::string id;
  CHECK(check_item_stack(parse("{id:\"minecraft:stone\"}"), &id).empty());
  CHECK(id == "minecraft:stone");
  CHECK(check_item_stack(parse("{id:\"player_head\"}"), &id).empty());
  CHECK(id == "minecraft:player_head");
  CHECK_FALSE(check_item_stack(parse("{count:1}")).empty());
  CHECK_FALSE(check_item_stack(parse("{id:1}")).empty());
  CHECK_FALSE(check_item_stack(parse("{id:\"Stone\"}")).empty());
  CHECK(check_block_state(parse("{Name:\"minecraft:gold_block\"}")).empty());
  CHECK(check_block_state(parse("{Name:\"oak_log\",Properties:{axis:\"y\"}}")).empty());
  CHECK_FALSE(check_block_state(parse("{Name:\"oak_log\",Properties:{axis:1}}")).empty());
  CHECK_FALSE(check_block_state(parse("{Name:\"oak_log\",Properties:\"y\"}")).empty());
  CHECK_FALSE(check_block_state(parse("{name:\"oak_log\"}")).empty());
}

TEST_CASE("SNBT: large compounds parse, compare and merge by key") {
  std::string a = "{";
  std::string b = "{";
  for (int i = 0; i < 200; ++i) {
    a += "k" + std::to_string(i) + ":" + std::to_string(i) + ",";
    b += "k" + std::to_string(199 - i) + ":" + std::to_string(199 - i) + ",";
  }
  a += "k5:-1}";
  b += "k5:-1}";
  const auto x = parse(a);
  const auto y = parse(b);
  CHECK(x.size() == 200);
  CHECK(x.find("k5")->integer == -1);
  CHECK(x == y);
  auto z = x;
  merge_into(z, parse("{k7:{q:1},new:2}"));
  CHECK(z.size() == 201);
  CHECK(z.find("k7")->type == nbt_type::compound_tag);
  merge_into(z, y);
  CHECK(z.size() == 201);
  CHECK(z.find("k7")->integer == 7);
}
