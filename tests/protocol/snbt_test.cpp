#include "protocol/snbt.hpp"

#include <doctest/doctest.h>

using namespace emote::protocol::snbt;

TEST_CASE("compounds parse with typed values") {
  auto v = parse_compound(
      R"({ id : "minecraft:bow", count:1, 'q':'x y', f:1.5f, d:2.0, b:true, l:5L, s:3s, big:2147483648, w:abc-1 })");
  REQUIRE_MESSAGE(v.ok(), (v.ok() ? "" : v.error()));
  CHECK(v->find("id")->type == tag::string_tag);
  CHECK(v->find("id")->text == "minecraft:bow");
  CHECK(v->find("count")->type == tag::int_tag);
  CHECK(v->find("f")->type == tag::float_tag);
  CHECK(v->find("d")->type == tag::double_tag);
  CHECK(v->find("b")->type == tag::byte_tag);
  CHECK(v->find("l")->type == tag::long_tag);
  CHECK(v->find("s")->type == tag::short_tag);
  CHECK(v->find("big")->type == tag::string_tag); // out of int range: a string
  CHECK(v->find("w")->type == tag::string_tag);
  CHECK(v->find("q")->text == "x y");
}

TEST_CASE("quoted strings take only the three escapes") {
  auto v = parse_compound(R"({a:"x\"y\\z",b:'it\'s'})");
  REQUIRE(v.ok());
  CHECK(v->find("a")->text == "x\"y\\z");
  CHECK(v->find("b")->text == "it's");
  CHECK_FALSE(parse_compound(R"({a:"\n"})").ok());
}

TEST_CASE("lists, typed arrays, nesting, trailing comma, duplicates") {
  auto v = parse_compound(
      R"({l:[1,2,3],c:[{a:1},{b:2}],e:[],ba:[B;1b,-2],ia:[I; 1, 2],la:[L;5l],n:{x:{y:1}},z:1,z:2,})");
  REQUIRE_MESSAGE(v.ok(), (v.ok() ? "" : v.error()));
  CHECK(v->find("l")->items.size() == 3);
  CHECK(v->find("c")->items[1].find("b") != nullptr);
  CHECK(v->find("ba")->type == tag::byte_array);
  CHECK(v->find("ia")->items.size() == 2);
  CHECK(v->find("la")->type == tag::long_array);
  CHECK(v->find("n")->find("x")->find("y")->text == "1");
  CHECK(v->find("z")->text == "2"); // last wins
  CHECK(v->members.size() == 8);
}

TEST_CASE("invalid compound SNBT") {
  for (const char* bad :
       {"", "{", "{a}", "{a:}", "{a:1,,b:2}", "[1]", "{a:1} x", "{a:[1,2,]}", "{a:[1,\"x\"]}",
        "{a:[B;1,300]}", "{a:[I;1b]}", "{a:\"open}", "{:1}", "{a:1,}x"}) {
    auto v = parse_compound(bad);
    CHECK_MESSAGE(!v.ok(), bad);
    if (!v.ok()) {
      CHECK(v.error().starts_with("invalid compound SNBT: "));
    }
  }
  std::string deep(100000, '{');
  CHECK_FALSE(parse_compound(deep).ok());
  std::string deep_list = "{a:" + std::string(100000, '[');
  CHECK_FALSE(parse_compound(deep_list).ok());
}

TEST_CASE("resource locations") {
  CHECK(resource_location("bow") == "minecraft:bow");
  CHECK(resource_location(":bow") == "minecraft:bow");
  CHECK(resource_location("mod:tools/hammer_2") == "mod:tools/hammer_2");
  CHECK_FALSE(resource_location("Bow"));
  CHECK_FALSE(resource_location("a:b:c"));
  CHECK_FALSE(resource_location("my mod:x"));
}

TEST_CASE("items as clients send them") {
  auto bare = parse_item("bow");
  REQUIRE(bare.ok());
  CHECK(bare->id == "minecraft:bow");
  CHECK(bare->snbt == R"({id:"minecraft:bow",count:1})");
  CHECK_FALSE(bare->charged);

  auto full = parse_item(
      R"({id:"crossbow",count:1,components:{"minecraft:charged_projectiles":[{id:"minecraft:arrow",count:1}]}})");
  REQUIRE(full.ok());
  CHECK(full->id == "minecraft:crossbow");
  CHECK(full->charged);
  CHECK(
      full->snbt ==
      R"({id:"crossbow",count:1,components:{"minecraft:charged_projectiles":[{id:"minecraft:arrow",count:1}]}})");
  auto empty_list =
      parse_item(R"({id:"minecraft:crossbow",components:{"minecraft:charged_projectiles":[]}})");
  REQUIRE(empty_list.ok());
  CHECK_FALSE(empty_list->charged);

  CHECK(parse_item("")->empty());
  CHECK(parse_item("minecraft:air")->empty());
  CHECK(parse_item(R"({id:"minecraft:air",count:1})")->empty());
  CHECK_FALSE(parse_item("{count:1}").ok());
  CHECK_FALSE(parse_item("{id:5}").ok());
  CHECK_FALSE(parse_item("{id:\"Bad Id\"}").ok());
  CHECK_FALSE(parse_item("Bow").ok());
  CHECK_FALSE(parse_item("minecraft:").ok());
}
