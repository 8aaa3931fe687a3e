#pragma once
// The engine's vocabulary at its boundary: identifiers, enumerations with their wire names, the
// inputs a client can apply (protocol.md §4, already decoded and validated by emote::protocol), and
// the replies. Nothing here knows JSON.

#include "engine/core/tick.hpp"
#include "engine/core/vec.hpp"
#include "engine/core/vocabulary.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace emote::api {

using core::dvec3;
using core::tick_number;

/// Sessions are numbered 1, 2, ... in creation order since the engine started (playback.md §3.1).
using session_id = std::int64_t;
/// Display handles: positive integers, smallest free first (playback.md §4.1).
using handle_id = std::int32_t;

// ---------------------------------------------------------------------------------------------
// Enumerations. Each has a wire name (protocol.md), defined once in names.cpp with a
// compile-time check that it names every enumerator; `name()` returns it.

// Shared with content and Molang (core/vocabulary.hpp): game mode, arm, space.
using core::game_mode;
using core::physical_arm;
using core::space;
enum class play_source : std::uint8_t { command, idle, api };
enum class role : std::uint8_t { solo, initiator, partner };
enum class display_kind : std::uint8_t { item, block, text };
enum class branch : std::uint8_t { main, offer, matched, timeout };
enum class block_kind : std::uint8_t { passable, solid, water };

/// players.md §3.5; the wire form is the upper-case name.
enum class stop_reason : std::uint8_t {
  manual,
  replaced,
  finished,
  moved,
  submerged,
  player_unavailable,
  jumped,
  mounted,
  damaged,
  attacked,
  game_mode_changed,
  disconnected,
  emote_removed,
  reload,
  server_stopping,
  error,
  molang_budget, ///< (sim) over a per-tick Molang operation budget (players.md §8.6)
};

/// partner.released causes (players.md §7.5).
enum class release_why : std::uint8_t {
  recheck_failed,
  restarted,
  stopped,
  disconnected,
  session_ended
};

enum class player_event_kind : std::uint8_t {
  jump,
  damage,
  attack,
  mount,
  respawn,
  death,
  game_mode
};

/// protocol.md §3 error codes.
enum class error_code : std::uint8_t {
  bad_json,
  line_too_long,
  unknown_op,
  bad_request,
  unsupported_protocol,
  unauthorized,
  forbidden,
  unknown_player,
  player_exists,
  unknown_emote,
  not_standalone,
  disabled,
  no_permission,
  cooldown,
  already_playing,
  display_limit,
  not_playing,
  clock_not_manual,
  shutting_down,
  reload_empty,        ///< emote.reload would leave no emotes; the running catalog is kept
  content_unavailable, ///< the content folder is missing or unreadable (operational, not a bug)
  molang_budget, ///< emote.play: the start ran over a per-tick Molang budget (players.md §8.6)
  /// (sim) emote.play: the start's Molang failed at run time (recursion too deep, over a
  /// per-evaluation budget, molang.md §6): the content's fault, not a bug of the server
  molang_error,
  internal,
};

using core::name;
std::string_view name(play_source v) noexcept;
std::string_view name(role v) noexcept;
std::string_view name(display_kind v) noexcept;
std::string_view name(branch v) noexcept;
std::string_view name(block_kind v) noexcept;
std::string_view name(stop_reason v) noexcept; ///< upper case, e.g. "GAME_MODE_CHANGED"
std::string_view name(release_why v) noexcept;
std::string_view name(player_event_kind v) noexcept;
std::string_view name(error_code v) noexcept;

/// Parse a wire name; nullopt when unknown. Defined for every enumeration above.
template <class E>
std::optional<E> parse_enum(std::string_view wire) noexcept;

// ---------------------------------------------------------------------------------------------
// Player state (players.md §1.1 and the Molang-only fields of molang.md §5.2).

/// An item stack as a player holds it. Empty = no item. `snbt` is the stack's compound SNBT
/// (`{id:"minecraft:bow",count:1}`); `id` its item id with the `minecraft:` namespace added;
/// `charged` = components."minecraft:charged_projectiles" is a non-empty list.
struct item_stack {
  std::string snbt;
  std::string id;
  bool charged = false;
  [[nodiscard]] bool empty() const noexcept { return id.empty(); }
  friend bool operator==(const item_stack&, const item_stack&) = default;
};

/// A signed texture property for skin-bound player heads (render.md §2 `skin_textures`).
struct skin_texture {
  std::string value;                    ///< base64
  std::optional<std::string> signature; ///< base64
  friend bool operator==(const skin_texture&, const skin_texture&) = default;
};

/// A player UUID, 16 bytes big-endian (the wire's `8-4-4-4-12` hexadecimal form).
using uuid = std::array<std::uint8_t, 16>;

/// The fields that make a player a viewer of rendered packets (render.md §2). They take no part
/// in the simulation: changing them is not a player action (players.md §1.1 `last_action_tick`).
struct viewer_fields {
  std::optional<std::optional<std::int32_t>> protocol;  ///< engaged nullopt = explicit null
  std::optional<std::optional<std::int32_t>> entity_id; ///< engaged nullopt = explicit null
  std::optional<std::int32_t> view_distance;            ///< 2..32
  std::optional<std::string> name;
  std::optional<bool> glowing;
  std::optional<std::map<std::string, skin_texture>> skin_textures;
  bool render_reset = false; ///< write-only: the client lost its entities (render.md §4 rule 4)
  [[nodiscard]] bool empty() const noexcept {
    return !protocol && !entity_id && !view_distance && !name && !glowing && !skin_textures &&
           !render_reset;
  }
};

/// Every reported field of a player, each optional: a join fills the absent ones with defaults,
/// an update changes only the present ones. Names are the wire names of protocol.md §5.
struct player_fields {
  std::optional<std::string> dimension;
  std::optional<dvec3> position;
  std::optional<float> yaw, pitch, body_yaw;
  std::optional<bool> alive;
  std::optional<api::game_mode> game_mode;
  std::optional<std::optional<std::string>> vehicle; ///< engaged nullopt = explicit null
  std::optional<bool> on_ground, eye_in_water;
  std::optional<bool> sneaking, swimming, crawling, gliding, sleeping, sprinting, using_item,
      on_fire, in_water;
  std::optional<bool> invisible;
  std::optional<dvec3> velocity;
  std::optional<physical_arm> main_arm;
  std::optional<item_stack> right_hand, left_hand, head, chest, legs, feet;
  std::optional<std::map<std::string, bool>> permissions;
  // Molang-only (molang.md §5.2)
  std::optional<float> health, max_health;
  std::optional<std::int32_t> hurt_time, death_time, invulnerable_time, xp_level, fire_ticks;
  std::optional<std::int32_t> use_duration, use_remaining;
  std::optional<bool> use_eat, blocking, jumping, in_lava, in_water_or_rain, levitating;
  std::optional<float> walk_position, distance_moved, sleep_yaw;
  std::optional<std::map<std::string, std::int32_t>> scores;
  viewer_fields viewer; ///< render.md §2
};

// ---------------------------------------------------------------------------------------------
// Inputs (protocol.md §4 ops that change simulation state). Applied in P1 in arrival order.

struct placement {
  dvec3 position;
  float yaw = 0;
};

struct player_join {
  std::string player;
  player_fields fields; ///< `position` is required (protocol layer checks it)
  std::optional<api::uuid> uuid;
  bool keep_on_disconnect = false;
};
struct player_update {
  std::string player;
  player_fields fields;
};
struct player_event {
  std::string player;
  player_event_kind kind = player_event_kind::jump;
  double amount = 0;                  ///< damage
  bool lethal = false;                ///< damage
  std::optional<std::string> target;  ///< attack
  std::optional<std::string> vehicle; ///< mount
  std::optional<api::game_mode> mode; ///< game_mode
};
struct player_leave {
  std::string player;
};
struct emote_play {
  std::string player;
  std::string emote;
  play_source source = play_source::command;
  bool bypass = false;
  std::optional<api::placement> placement;
};
struct emote_stop {
  std::string player;
};
struct emote_stop_all {};

struct block_edit {
  std::int32_t from[3] = {0, 0, 0};
  std::int32_t to[3] = {0, 0, 0}; ///< inclusive; equals `from` for a single cell
  block_kind kind = block_kind::passable;
};
struct world_blocks {
  std::string dimension = "minecraft:overworld";
  std::vector<block_edit> edits;
};
struct world_clear {
  std::optional<std::string> dimension; ///< nullopt: every dimension
};
struct cooldown_clear {
  std::optional<std::string> player; ///< nullopt: everyone
};
struct emote_unregister {
  std::string emote;
};

using input =
    std::variant<player_join, player_update, player_event, player_leave, emote_play, emote_stop,
                 emote_stop_all, world_blocks, world_clear, cooldown_clear, emote_unregister>;

// ---------------------------------------------------------------------------------------------
// Replies

struct error {
  error_code code = error_code::internal;
  std::string message;
  std::string path;                            ///< JSON path of the offending field, if any
  std::optional<std::int64_t> remaining_ticks; ///< cooldown refusals
};

struct play_ok {
  session_id session = 0;
  std::string emote;
  api::role role = api::role::solo;
};
struct stop_ok {
  session_id session = 0;
};
/// `{"<key>": N}` results: stop_all → "stopped", world.blocks → "changed", clears → "cleared".
struct count_ok {
  std::string_view key;
  std::int64_t n = 0;
};
struct empty_ok {};

using reply_payload = std::variant<empty_ok, play_ok, stop_ok, count_ok>;

struct reply {
  tick_number tick = 0;
  std::optional<api::error> err; ///< engaged = failure
  reply_payload payload;
  [[nodiscard]] bool ok() const noexcept { return !err.has_value(); }
};

} // namespace emote::api
