#pragma once
// The reported player fields, listed once: each field's wire name (protocol.md §5), where a join
// or update carries it (`api::player_fields`) and where the player keeps it (`player_state`). The
// engine applies updates by walking this table and the protocol decodes joins and updates by
// walking it, so a new field is one row here plus its two members.
//
// Order: players.md §1.1, then the Molang-only fields of molang.md §5.2; the decoder checks fields
// in this order and reports the first invalid one.

#include "engine/api/types.hpp"
#include "engine/world/player.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

namespace emote::world {

template <class T>
struct player_field {
  using value_type = T;
  std::string_view name;                    ///< wire name
  std::optional<T> api::player_fields::*in; ///< as a join or update carries it
  T player_state::*state;                   ///< as the player keeps it
};

namespace detail {
using F = api::player_fields;
using S = player_state;
using vehicle_type = std::optional<std::string>;
} // namespace detail

inline constexpr auto player_field_table = std::make_tuple(
    // players.md §1.1
    player_field<std::string>{"dimension", &detail::F::dimension, &detail::S::dimension},
    player_field<dvec3>{"position", &detail::F::position, &detail::S::pos},
    player_field<float>{"yaw", &detail::F::yaw, &detail::S::yaw},
    player_field<float>{"pitch", &detail::F::pitch, &detail::S::pitch},
    player_field<float>{"body_yaw", &detail::F::body_yaw, &detail::S::body_yaw},
    player_field<bool>{"alive", &detail::F::alive, &detail::S::alive},
    player_field<api::game_mode>{"game_mode", &detail::F::game_mode, &detail::S::game_mode},
    player_field<detail::vehicle_type>{"vehicle", &detail::F::vehicle, &detail::S::vehicle},
    player_field<bool>{"on_ground", &detail::F::on_ground, &detail::S::on_ground},
    player_field<bool>{"eye_in_water", &detail::F::eye_in_water, &detail::S::eye_in_water},
    player_field<bool>{"sneaking", &detail::F::sneaking, &detail::S::sneaking},
    player_field<bool>{"swimming", &detail::F::swimming, &detail::S::swimming},
    player_field<bool>{"crawling", &detail::F::crawling, &detail::S::crawling},
    player_field<bool>{"gliding", &detail::F::gliding, &detail::S::gliding},
    player_field<bool>{"sleeping", &detail::F::sleeping, &detail::S::sleeping},
    player_field<bool>{"sprinting", &detail::F::sprinting, &detail::S::sprinting},
    player_field<bool>{"using_item", &detail::F::using_item, &detail::S::using_item},
    player_field<bool>{"on_fire", &detail::F::on_fire, &detail::S::on_fire},
    player_field<bool>{"in_water", &detail::F::in_water, &detail::S::in_water},
    player_field<bool>{"invisible", &detail::F::invisible, &detail::S::invisible},
    player_field<dvec3>{"velocity", &detail::F::velocity, &detail::S::velocity},
    player_field<api::physical_arm>{"main_arm", &detail::F::main_arm, &detail::S::main_arm},
    player_field<api::item_stack>{"right_hand", &detail::F::right_hand, &detail::S::right_hand},
    player_field<api::item_stack>{"left_hand", &detail::F::left_hand, &detail::S::left_hand},
    player_field<api::item_stack>{"head", &detail::F::head, &detail::S::head},
    player_field<api::item_stack>{"chest", &detail::F::chest, &detail::S::chest},
    player_field<api::item_stack>{"legs", &detail::F::legs, &detail::S::legs},
    player_field<api::item_stack>{"feet", &detail::F::feet, &detail::S::feet},
    player_field<std::map<std::string, bool>>{"permissions", &detail::F::permissions,
                                              &detail::S::permissions},
    // molang.md §5.2
    player_field<float>{"health", &detail::F::health, &detail::S::health},
    player_field<float>{"max_health", &detail::F::max_health, &detail::S::max_health},
    player_field<std::int32_t>{"hurt_time", &detail::F::hurt_time, &detail::S::hurt_time},
    player_field<std::int32_t>{"death_time", &detail::F::death_time, &detail::S::death_time},
    player_field<std::int32_t>{"invulnerable_time", &detail::F::invulnerable_time,
                               &detail::S::invulnerable_time},
    player_field<std::int32_t>{"xp_level", &detail::F::xp_level, &detail::S::xp_level},
    player_field<std::int32_t>{"fire_ticks", &detail::F::fire_ticks, &detail::S::fire_ticks},
    player_field<std::int32_t>{"use_duration", &detail::F::use_duration, &detail::S::use_duration},
    player_field<std::int32_t>{"use_remaining", &detail::F::use_remaining,
                               &detail::S::use_remaining},
    player_field<bool>{"use_eat", &detail::F::use_eat, &detail::S::use_eat},
    player_field<bool>{"blocking", &detail::F::blocking, &detail::S::blocking},
    player_field<bool>{"jumping", &detail::F::jumping, &detail::S::jumping},
    player_field<bool>{"in_lava", &detail::F::in_lava, &detail::S::in_lava},
    player_field<bool>{"in_water_or_rain", &detail::F::in_water_or_rain,
                       &detail::S::in_water_or_rain},
    player_field<bool>{"levitating", &detail::F::levitating, &detail::S::levitating},
    player_field<float>{"walk_position", &detail::F::walk_position, &detail::S::walk_position},
    player_field<float>{"distance_moved", &detail::F::distance_moved, &detail::S::distance_moved},
    player_field<float>{"sleep_yaw", &detail::F::sleep_yaw, &detail::S::sleep_yaw},
    player_field<std::map<std::string, std::int32_t>>{"scores", &detail::F::scores,
                                                      &detail::S::scores});

/// Call `f(field)` for every row, in table order.
template <class Fn>
constexpr void for_each_player_field(Fn&& f) {
  std::apply([&](const auto&... row) { (f(row), ...); }, player_field_table);
}

/// The number of reported fields.
inline constexpr std::size_t player_field_count = std::tuple_size_v<decltype(player_field_table)>;

} // namespace emote::world
