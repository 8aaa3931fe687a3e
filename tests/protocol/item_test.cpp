#include "protocol/item.hpp"

#include <doctest/doctest.h>

using emote::protocol::parse_item;

TEST_CASE("items as clients send them") {
  auto bare = parse_item("bow");
  REQUIRE(bare.ok());
  CHECK(bare->id == "minecraft:bow");
  CHECK(bare->snbt == R"({id:"minecraft:bow",count:1})");
  CHECK_FALSE(bare->charged);
  CHECK(parse_item("mod:tools/hammer_2")->id == "mod:tools/hammer_2");

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
  auto not_a_list =
      parse_item(R"({id:"minecraft:crossbow",components:{"minecraft:charged_projectiles":1b}})");
  REQUIRE(not_a_list.ok());
  CHECK_FALSE(not_a_list->charged);
}

TEST_CASE("empty slots") {
  CHECK(parse_item("")->empty());
  CHECK(parse_item("  ")->empty());
  CHECK(parse_item("minecraft:air")->empty());
  CHECK(parse_item("air")->empty());
  CHECK(parse_item(R"({id:"minecraft:air",count:1})")->empty());
}

TEST_CASE("invalid items") {
  CHECK(parse_item("{count:1}").error() == "invalid item stack: item stack needs an id");
  CHECK(parse_item("{id:5}").error() == "invalid item stack: item id must be a string");
  CHECK(parse_item("{id:\"Bad Id\"}").error() == "invalid item stack: invalid item id: Bad Id");
  CHECK(parse_item("{id:\"minecraft:bow\"").error().starts_with("invalid compound SNBT: "));
  CHECK(parse_item("Bow").error() == "must be an item id or an item stack SNBT compound");
  CHECK_FALSE(parse_item("minecraft:").ok());
  CHECK_FALSE(parse_item("a:b:c").ok());
  std::string deep = "{a:" + std::string(100000, '[');
  CHECK_FALSE(parse_item(deep).ok());
}
