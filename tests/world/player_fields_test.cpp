#include "engine/world/player_fields.hpp"

#include <doctest/doctest.h>

#include <set>
#include <string>

using namespace emote;
using namespace emote::world;

namespace {

// A value unlike the join default of each field type.
template <class T>
T other_value() {
  if constexpr (std::is_same_v<T, bool>) {
    return true; // the bool defaults are false but for alive and on_ground (handled below)
  } else if constexpr (std::is_same_v<T, float>) {
    return 7.5F;
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    return 42;
  } else if constexpr (std::is_same_v<T, core::dvec3>) {
    return core::dvec3{1, 2, 3};
  } else if constexpr (std::is_same_v<T, std::string>) {
    return "minecraft:the_nether";
  } else if constexpr (std::is_same_v<T, api::game_mode>) {
    return api::game_mode::creative;
  } else if constexpr (std::is_same_v<T, api::physical_arm>) {
    return api::physical_arm::left;
  } else if constexpr (std::is_same_v<T, std::optional<std::string>>) {
    return std::optional<std::string>{"minecraft:boat"};
  } else if constexpr (std::is_same_v<T, api::item_stack>) {
    api::item_stack s;
    s.id = "minecraft:bow";
    s.snbt = R"({id:"minecraft:bow",count:1})";
    return s;
  } else if constexpr (std::is_same_v<T, std::map<std::string, bool>>) {
    return std::map<std::string, bool>{{"emote.use", false}};
  } else {
    return std::map<std::string, std::int32_t>{{"kills", 3}};
  }
}

} // namespace

TEST_CASE("the player field table names each field once") {
  std::set<std::string> names;
  for_each_player_field([&](const auto& field) {
    CAPTURE(field.name);
    CHECK_FALSE(field.name.empty());
    CHECK(names.insert(std::string(field.name)).second);
  });
  CHECK(names.size() == player_field_count);
  CHECK(names.count("position") == 1); // the wire name, not the member's
}

TEST_CASE("every reported field reaches the player through the table") {
  api::player_fields join;
  join.position = core::dvec3{0, 64, 0};
  for_each_player_field([&](const auto& field) {
    using T = typename std::decay_t<decltype(field)>::value_type;
    CAPTURE(field.name);
    auto p = make_player("p", join, 0);
    T value = other_value<T>();
    if constexpr (std::is_same_v<T, bool>) {
      value = !(p.*field.state); // alive and on_ground default to true
    }
    api::player_fields update;
    update.*field.in = value;
    const auto c = apply_update(p, update, 5);
    CHECK(c.changed);
    CHECK(p.*field.state == value);
    CHECK(p.last_action_tick == 5);
    // Applying the same value again changes nothing.
    CHECK_FALSE(apply_update(p, update, 6).changed);
  });
}
