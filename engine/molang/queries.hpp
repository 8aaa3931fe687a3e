#pragma once
// Queries (molang.md §5): the frame queries the playback sets, the player state they are read
// from, and the fixed catalog of 56 scalar queries and 11 query functions.

#include "engine/core/vec.hpp"
#include "engine/core/vocabulary.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace emote::molang {

/// molang.md §5.1: set by the playback before `initialize`, before every frame and per channel.
struct frame_queries {
  double anim_time = 0;
  double life_time = 0;
  double anim_time_ticks = 0;
  double anim_length = 0;
  double delta_time = 0;
  double loop_count = 0;
  double key_frame_lerp_time = 0;
};

/// An item as the queries see it: `name` is the SNBT `id` with `minecraft:` added when it has no
/// namespace, empty for no item; `charged` = components."minecraft:charged_projectiles" is a
/// non-empty list.
struct item_view {
  std::string name;
  bool charged = false;
  [[nodiscard]] bool empty() const noexcept { return name.empty(); }
  friend bool operator==(const item_view&, const item_view&) = default;
};

/// Every input of molang.md §5.2/§5.3 for the playback's initiator (players.md §1.1 plus the
/// Molang-only fields). Defaults are the join defaults. A null `const player_view*` means "no
/// player".
struct player_view {
  core::dvec3 position;
  core::dvec3 velocity; ///< m, blocks per tick
  float yaw = 0;
  float pitch = 0;
  float body_yaw = 0;
  float yaw_prev = 0; ///< yaw at the start of the tick, before its inbound updates

  bool on_ground = true;
  bool eye_in_water = false;
  bool sneaking = false;
  bool swimming = false;
  bool crawling = false;
  bool gliding = false;
  bool sleeping = false;
  bool sprinting = false;
  bool using_item = false;
  bool on_fire = false;
  bool in_water = false;
  bool alive = true;
  bool invisible = false;       ///< the player's own flag
  bool hidden_by_emote = false; ///< hidden by an emote (from the frame after its start frame)
  bool riding = false;          ///< vehicle != null
  bool spectator = false;       ///< game_mode == spectator

  core::physical_arm main_arm = core::physical_arm::right;
  item_view right_hand, left_hand, head, chest, legs, feet;

  float health = 20;
  float max_health = 20;
  std::int32_t hurt_time = 0;
  std::int32_t death_time = 0;
  std::int32_t invulnerable_time = 0;
  std::int32_t xp_level = 0;
  std::int32_t fire_ticks = 0;
  std::int32_t use_duration = 0;
  std::int32_t use_remaining = 0;
  bool use_eat = false;
  bool blocking = false;
  bool jumping = false;
  bool in_lava = false;
  bool in_water_or_rain = false;
  bool levitating = false;
  float walk_position = 0;
  float distance_moved = 0;
  float sleep_yaw = 0;
  /// objective -> score, sorted by objective (byte order, as std::map keeps them) and unique:
  /// `q.scoreboard` looks an objective up by binary search (molang.md §5.3).
  std::vector<std::pair<std::string, std::int32_t>> scores;

  /// The item in the hand the player's main arm holds.
  [[nodiscard]] const item_view& main_hand() const noexcept {
    return main_arm == core::physical_arm::right ? right_hand : left_hand;
  }
  [[nodiscard]] const item_view& off_hand() const noexcept {
    return main_arm == core::physical_arm::right ? left_hand : right_hand;
  }
  /// Field by field (the engine's cache check compares a kept view with a fresh one).
  friend bool operator==(const player_view&, const player_view&) = default;
};

/// molang.md §5.3: the scores a player may carry (protocol.md §5 refuses an update with more).
inline constexpr std::size_t max_scores = 1024;

/// molang.md §6: the operations one `q.scoreboard` lookup among `scores` entries is charged: its
/// binary search's probes, so the per-tick budgets bound its time whatever the player carries.
constexpr std::uint64_t score_lookup_ops(std::size_t scores) noexcept {
  std::uint64_t probes = 0;
  for (; scores > 0; scores >>= 1U) {
    ++probes;
  }
  return probes;
}

/// The 56 scalar queries (molang.md §5.1 then §5.2 order).
enum class scalar_query : std::uint8_t {
  anim_time,
  life_time,
  anim_time_ticks,
  anim_length,
  delta_time,
  loop_count,
  key_frame_lerp_time,
  target_x_rotation,
  body_x_rotation,
  head_x_rotation,
  eye_target_x_rotation,
  body_y_rotation,
  head_y_rotation,
  eye_target_y_rotation,
  target_y_rotation,
  yaw_speed,
  ground_speed,
  vertical_speed,
  is_moving,
  modified_distance_moved,
  walk_distance,
  is_on_ground,
  is_sneaking,
  is_sprinting,
  is_swimming,
  is_gliding,
  is_sleeping,
  is_using_item,
  is_on_fire,
  is_in_water,
  is_alive,
  is_crawling,
  is_riding,
  is_spectator,
  head_is_in_water,
  is_in_lava,
  is_in_water_or_rain,
  blocking,
  is_jumping,
  is_levitating,
  is_invisible,
  is_emoting,
  sleep_rotation,
  health,
  max_health,
  hurt_time,
  death_ticks,
  invulnerable_ticks,
  player_level,
  on_fire_time,
  item_max_use_duration,
  item_remaining_use_duration,
  item_in_use_duration,
  is_eating,
  is_item_equipped,
  item_is_charged,
};
inline constexpr int scalar_query_count = static_cast<int>(scalar_query::item_is_charged) + 1;

/// The 11 query functions (molang.md §5.3).
enum class query_function : std::uint8_t {
  any,
  all,
  approx_eq,
  in_range,
  position,
  position_delta,
  movement_direction,
  is_item_equipped,
  item_is_charged,
  is_item_name_any,
  scoreboard,
};
inline constexpr int query_function_count = static_cast<int>(query_function::scoreboard) + 1;

/// One name of the query catalog: a scalar, a function, or both (is_item_equipped and
/// item_is_charged).
struct query_entry {
  std::string_view name;
  std::optional<scalar_query> scalar;
  std::optional<query_function> function;
};

/// The 65 catalog names, sorted by name; `index` values are positions in this list.
const std::vector<query_entry>& query_catalog();
/// Index of a lower-case catalog name.
std::optional<int> find_query(std::string_view lower_name) noexcept;
/// Argument count rule of a function: minimum, maximum (-1 = unbounded) and the "expected"
/// text of the load-time message ("1", "3", "0..1", "at least 2").
struct query_arity {
  int min;
  int max;
  std::string_view expected;
};
query_arity arity(query_function f) noexcept;
std::string_view name(scalar_query q) noexcept;
std::string_view name(query_function f) noexcept;

/// A scalar's value (not yet normalised) for the frame and player (null = no player).
double scalar_value(scalar_query q, const frame_queries& frame, const player_view* player) noexcept;

/// The slot a query-function argument names (molang.md §5.3 slot(s)).
enum class slot : std::uint8_t { main_hand, off_hand, head, chest, legs, feet, none };
/// slot(s) for a string argument (exact code units).
slot slot_from_string(std::string_view s) noexcept;
/// The item in a slot; `none` gives an empty item.
const item_view& item_in(const player_view& player, slot s) noexcept;

} // namespace emote::molang
