#pragma once
// The simulated player (players.md §1): the full state a client reports, with the defaults of
// §1.1 filled in at join, plus the two values the engine keeps (`incarnation`,
// `last_action_tick`). Updates are partial; the events they imply are derived by comparing the
// state before and after the whole update (§1.3).

#include "engine/api/types.hpp"
#include "engine/core/tick.hpp"
#include "engine/core/vec.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace emote::world {

using core::dvec3;
using core::tick_number;

inline constexpr const char* default_dimension = "minecraft:overworld";

struct player_state {
  std::string id; ///< wire name `player`; the cooldown key

  // players.md §1.1
  std::string dimension = default_dimension;
  dvec3 pos; ///< feet; wire name `position`
  float yaw = 0;
  float pitch = 0;
  float body_yaw = 0; ///< defaults to `yaw` at join
  bool alive = true;
  api::game_mode game_mode = api::game_mode::survival;
  std::optional<std::string> vehicle; ///< engaged = riding
  bool on_ground = true;
  bool eye_in_water = false; ///< as reported; see `eye_in_water_reported`
  bool sneaking = false, swimming = false, crawling = false, gliding = false, sleeping = false,
       sprinting = false, using_item = false, on_fire = false, in_water = false;
  bool invisible = false; ///< the player's own flag, apart from emote hiding
  dvec3 velocity;
  api::physical_arm main_arm = api::physical_arm::right;
  api::item_stack right_hand, left_hand, head, chest, legs, feet;
  std::map<std::string, bool> permissions;

  // Molang-only (molang.md §5.2)
  float health = 20, max_health = 20;
  std::int32_t hurt_time = 0, death_time = 0, invulnerable_time = 0, xp_level = 0, fire_ticks = 0;
  std::int32_t use_duration = 0, use_remaining = 0;
  bool use_eat = false, blocking = false, jumping = false, in_lava = false,
       in_water_or_rain = false, levitating = false;
  float walk_position = 0, distance_moved = 0, sleep_yaw = 0;
  std::map<std::string, std::int32_t> scores;

  // Kept by the engine
  /// The client has sent `eye_in_water` at least once; until then the world decides
  /// (players.md §2.1).
  bool eye_in_water_reported = false;
  std::int64_t incarnation = 0;     ///< +1 on each join and each respawn
  tick_number last_action_tick = 0; ///< see players.md §1.1
  float yaw_prev = 0;               ///< `yaw` at the start of the tick (molang.md §5.2)
  bool keep_on_disconnect = false;  ///< protocol.md §2: survives its connection closing

  // Rendering (render.md §2): reported, but no part of the simulation.
  std::optional<api::uuid> uuid;           ///< from the join
  std::optional<std::int32_t> protocol;    ///< engaged: the player is a viewer
  std::optional<std::int32_t> entity_id;   ///< its own entity id on its viewers' clients
  std::optional<std::int32_t> view_distance; ///< absent: config render.view_distance
  std::string name;                        ///< username; "" when not reported
  bool glowing = false;
  std::map<std::string, api::skin_texture> skin_textures;
  /// Distinct for every join in this engine (the registry's join order).
  std::uint64_t join_serial = 0;
  /// +1 on every client reset of render.md §4 rule 4: a change of dimension, of protocol to
  /// another version, or of entity_id; a respawn; `render_reset: true`.
  std::uint64_t client_epoch = 0;

  /// The main-hand item: `right_hand` for a right-handed player, else `left_hand`.
  [[nodiscard]] const api::item_stack& main_hand() const noexcept {
    return main_arm == api::physical_arm::right ? right_hand : left_hand;
  }
  [[nodiscard]] const api::item_stack& off_hand() const noexcept {
    return main_arm == api::physical_arm::right ? left_hand : right_hand;
  }
  [[nodiscard]] bool riding() const noexcept { return vehicle.has_value(); }
};

/// What happened to a player (players.md §1.3). Explicit events and derived ones share this list.
enum class event_kind : std::uint8_t {
  start_riding,
  game_mode_change,
  jump,
  damage,
  attack,
  death,
  respawn,
  dimension_change,
};

struct player_event_record {
  event_kind kind = event_kind::jump;
  double amount = 0;                 ///< damage: the damage actually taken
  bool lethal = false;               ///< damage
  std::optional<std::string> target; ///< attack
  friend bool operator==(const player_event_record&, const player_event_record&) = default;
};

/// The result of applying an update or an event to a player.
struct change {
  bool changed = false; ///< some reported field took a new value
  /// In firing order: the explicit event first (damage, attack, jump), then the derived ones in
  /// the order start riding, game-mode change, jump, death, respawn, dimension change.
  std::vector<player_event_record> events;
};

/// A new player from a join's fields; the defaults of players.md §1.1 fill the absent ones. The
/// incarnation is 1 and `last_action_tick` is `now`. `fields.position` should be present (the
/// protocol layer requires it); absent, the feet are at the origin.
player_state make_player(std::string id, const api::player_fields& fields, tick_number now,
                         bool keep_on_disconnect = false);

/// Apply a partial update at tick `now` and derive its events. `last_action_tick` becomes `now`
/// when a field changed.
change apply_update(player_state& p, const api::player_fields& fields, tick_number now);

/// Apply an explicit event at tick `now` (players.md §1.3): `mount`, `game_mode` and `death` are
/// the matching state updates, `damage` with `lethal` also kills, `respawn` always starts a new
/// incarnation. Every event sets `last_action_tick`. `anonymous_vehicle` names the vehicle of a
/// `mount` that carries none (see docs/guide/players-implementation.md).
change apply_event(player_state& p, const api::player_event& e, tick_number now,
                   const std::string& anonymous_vehicle);

/// Derived events between two states, in the order of players.md §1.3 (start riding, game-mode
/// change, jump, then death, respawn, dimension change).
std::vector<player_event_record> derive_events(const player_state& before,
                                               const player_state& after);

} // namespace emote::world
