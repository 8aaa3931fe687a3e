#pragma once
// Frame events: the engine's output of one tick (protocol.md §6, playback.md §4.9, players.md §9).
// A frame is a flat list already in wire order:
//   1. `command` and `callback` records in execution order;
//   2. per session in creation order: segment.started, display.spawn (ascending handle),
//      display.move, display.view, display.update (ascending handle), display.remove;
//   3. playback.*, partner.*, player.visibility records in the order they arose;
//   4. render.warning records, appended by the renderer after the engine's step (render.md §5.4).
// The engine builds that order; encoders and matchers only walk the list.

#include "engine/api/types.hpp"

#include <array>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace emote::api {

/// A display transformation (playback.md §4.4): the display matrix M (16 binary32, row-major)
/// and its Minecraft-style decomposition.
struct transform_record {
  std::array<float, 16> matrix{};
  std::array<float, 3> translation{};
  std::array<float, 4> left_rotation{}; ///< x, y, z, w
  std::array<float, 3> scale{};
  std::array<float, 4> right_rotation{}; ///< x, y, z, w
  friend bool operator==(const transform_record&, const transform_record&) = default;
};

struct skin_binding {
  std::string participant;             ///< "initiator" | "partner"
  std::string part;                    ///< head, body, left_arm, right_arm, left_leg, right_leg
  std::int32_t order = 0;
  std::int32_t rows[2] = {0, 12};      ///< [start, end) of the 12-pixel side face
};

struct ev_playback_started {
  session_id session = 0;
  std::string player;
  std::string emote;
  api::role role = api::role::solo;
};

struct ev_playback_stopped {
  session_id session = 0;
  std::string player;
  std::string emote;
  stop_reason reason = stop_reason::manual;
};

struct ev_segment_started {
  session_id session = 0;
  std::int32_t step = 0;    ///< index in its list, wait steps counted
  std::int64_t repeat = 0;  ///< r of playback.md §3.2, continues counted
  std::string animation;
  api::branch branch = api::branch::main;
};

struct ev_partner_reserved {
  session_id session = 0;
  std::string initiator;
  std::string partner;
};
struct ev_partner_released {
  session_id session = 0;
  std::string initiator;
  std::string partner;
  release_why why = release_why::recheck_failed;
};
struct ev_partner_matched {
  session_id session = 0;
  std::string initiator;
  std::string partner;
};
struct ev_partner_timeout {
  session_id session = 0;
  std::string initiator;
};

struct ev_display_spawn {
  session_id session = 0;
  handle_id handle = 0;
  std::string node;
  api::space space = api::space::scene;
  display_kind kind = display_kind::item;
  // Content, by kind: item → item (SNBT) + item_display; block → block (SNBT); text → text (JSON).
  std::string item;
  std::string item_display;
  std::string block;
  std::string text_json;
  std::optional<std::string> entity_nbt; ///< SNBT, when the node defines a non-empty one
  std::optional<std::string> nbt;        ///< merged NBT-track state, when not empty
  std::string dimension;
  dvec3 position;
  float yaw = 0;
  std::int32_t teleport_duration = 0;
  transform_record transform;
  bool visible = false;
  std::optional<skin_binding> skin;
};

struct ev_display_update {
  handle_id handle = 0;
  std::optional<transform_record> transform; ///< with interpolation_duration, start_interpolation 0
  std::int32_t interpolation_duration = 0;
  std::optional<bool> visible;
  std::optional<std::string> nbt;  ///< merged SNBT state
  std::optional<std::string> item; ///< participant-hand refresh (SNBT)
};

struct ev_display_view {
  session_id session = 0;
  float yaw = 0;
  std::int32_t teleport_duration = 0;
};

struct ev_display_move {
  session_id session = 0;
  api::space space = api::space::scene;
  dvec3 position;
  std::int32_t teleport_duration = 0;
};

struct ev_display_remove {
  session_id session = 0;
  std::vector<handle_id> handles;
};

struct ev_player_visibility {
  std::string player;
  bool hidden = false;
  bool blank_equipment = false; ///< wire: "equipment": "blank" | "real"
};

/// Content a viewer's version cannot show as given (render.md §5.4): emitted by the renderer, last
/// in the frame, once per (emote, node or player, protocol, message).
struct ev_render_warning {
  std::string emote;  ///< "" for a player's warning
  std::string node;   ///< "" for a player's warning
  std::string player; ///< "" for a node's warning
  std::int32_t protocol = 0;
  std::string message;
};

struct command_source {
  enum class kind : std::uint8_t { player, server, node } type = kind::player;
  std::optional<handle_id> handle; ///< node sources
};

struct ev_command {
  session_id session = 0;
  std::string player;
  command_source source;
  std::string dimension;
  dvec3 origin;
  std::string command; ///< no leading '/'
};

struct ev_callback {
  session_id session = 0;
  std::string player;
  std::string name; ///< resource location
  std::string payload;
  std::string dimension;
  dvec3 origin;
};

using event = std::variant<ev_command, ev_callback, ev_segment_started, ev_display_spawn,
                           ev_display_move, ev_display_view, ev_display_update, ev_display_remove,
                           ev_playback_started, ev_playback_stopped, ev_partner_reserved,
                           ev_partner_released, ev_partner_matched, ev_partner_timeout,
                           ev_player_visibility, ev_render_warning>;

/// The wire `type` of an event, e.g. "display.update".
std::string_view type_name(const event& e) noexcept;

struct frame {
  tick_number tick = 0;
  std::vector<event> events;
};

} // namespace emote::api
