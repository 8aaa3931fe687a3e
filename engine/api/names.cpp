#include "engine/api/event.hpp"
#include "engine/api/match.hpp"
#include "engine/api/types.hpp"

#include "engine/core/enum_names.hpp"

namespace emote::api {
namespace {

// Each table fails to compile unless it names every enumerator of its enumeration, in order.
constexpr core::enum_names<play_source, 3> source_names{{"command", "idle", "api"}};
constexpr core::enum_names<role, 3> role_names{{"solo", "initiator", "partner"}};
constexpr core::enum_names<display_kind, 3> kind_names{{"item", "block", "text"}};
constexpr core::enum_names<branch, 4> branch_names{{"main", "offer", "matched", "timeout"}};
constexpr core::enum_names<block_kind, 3> block_names{{"passable", "solid", "water"}};
constexpr core::enum_names<stop_reason, 17> reason_names{
    {"MANUAL", "REPLACED", "FINISHED", "MOVED", "SUBMERGED", "PLAYER_UNAVAILABLE", "JUMPED",
     "MOUNTED", "DAMAGED", "ATTACKED", "GAME_MODE_CHANGED", "DISCONNECTED", "EMOTE_REMOVED",
     "RELOAD", "SERVER_STOPPING", "ERROR", "MOLANG_BUDGET"}};
constexpr core::enum_names<release_why, 5> why_names{
    {"recheck_failed", "restarted", "stopped", "disconnected", "session_ended"}};
constexpr core::enum_names<player_event_kind, 7> event_kind_names{
    {"jump", "damage", "attack", "mount", "respawn", "death", "game_mode"}};
constexpr core::enum_names<error_code, 24> error_names{{"bad_json",
                                                        "line_too_long",
                                                        "unknown_op",
                                                        "bad_request",
                                                        "unsupported_protocol",
                                                        "unauthorized",
                                                        "forbidden",
                                                        "unknown_player",
                                                        "player_exists",
                                                        "unknown_emote",
                                                        "not_standalone",
                                                        "disabled",
                                                        "no_permission",
                                                        "cooldown",
                                                        "already_playing",
                                                        "display_limit",
                                                        "not_playing",
                                                        "clock_not_manual",
                                                        "shutting_down",
                                                        "reload_empty",
                                                        "content_unavailable",
                                                        "molang_budget",
                                                        "molang_error",
                                                        "internal"}};
constexpr core::enum_names<match_failure, 12> match_failure_names{
    {"participant", "partner_dead", "initiator_offline", "same_player", "initiator_dead",
     "dimension", "height", "too_far", "same_spot", "initiator_facing", "partner_facing",
     "line_of_sight"}};

} // namespace

std::string_view name(match_failure v) noexcept {
  return match_failure_names(v);
}
std::optional<match_failure> parse_match_failure(std::string_view wire) noexcept {
  return match_failure_names.parse(wire);
}

std::string_view name(play_source v) noexcept {
  return source_names(v);
}
std::string_view name(role v) noexcept {
  return role_names(v);
}
std::string_view name(display_kind v) noexcept {
  return kind_names(v);
}
std::string_view name(branch v) noexcept {
  return branch_names(v);
}
std::string_view name(block_kind v) noexcept {
  return block_names(v);
}
std::string_view name(stop_reason v) noexcept {
  return reason_names(v);
}
std::string_view name(release_why v) noexcept {
  return why_names(v);
}
std::string_view name(player_event_kind v) noexcept {
  return event_kind_names(v);
}
std::string_view name(error_code v) noexcept {
  return error_names(v);
}

template <>
std::optional<game_mode> parse_enum(std::string_view s) noexcept {
  return core::game_mode_names.parse(s);
}
template <>
std::optional<physical_arm> parse_enum(std::string_view s) noexcept {
  return core::physical_arm_names.parse(s);
}
template <>
std::optional<space> parse_enum(std::string_view s) noexcept {
  return core::space_names.parse(s);
}
template <>
std::optional<play_source> parse_enum(std::string_view s) noexcept {
  return source_names.parse(s);
}
template <>
std::optional<role> parse_enum(std::string_view s) noexcept {
  return role_names.parse(s);
}
template <>
std::optional<display_kind> parse_enum(std::string_view s) noexcept {
  return kind_names.parse(s);
}
template <>
std::optional<branch> parse_enum(std::string_view s) noexcept {
  return branch_names.parse(s);
}
template <>
std::optional<block_kind> parse_enum(std::string_view s) noexcept {
  return block_names.parse(s);
}
template <>
std::optional<stop_reason> parse_enum(std::string_view s) noexcept {
  return reason_names.parse(s);
}
template <>
std::optional<release_why> parse_enum(std::string_view s) noexcept {
  return why_names.parse(s);
}
template <>
std::optional<player_event_kind> parse_enum(std::string_view s) noexcept {
  return event_kind_names.parse(s);
}
template <>
std::optional<error_code> parse_enum(std::string_view s) noexcept {
  return error_names.parse(s);
}

std::string_view type_name(const event& e) noexcept {
  struct visitor {
    std::string_view operator()(const ev_command&) const { return "command"; }
    std::string_view operator()(const ev_callback&) const { return "callback"; }
    std::string_view operator()(const ev_segment_started&) const { return "segment.started"; }
    std::string_view operator()(const ev_display_spawn&) const { return "display.spawn"; }
    std::string_view operator()(const ev_display_move&) const { return "display.move"; }
    std::string_view operator()(const ev_display_view&) const { return "display.view"; }
    std::string_view operator()(const ev_display_update&) const { return "display.update"; }
    std::string_view operator()(const ev_display_remove&) const { return "display.remove"; }
    std::string_view operator()(const ev_playback_started&) const { return "playback.started"; }
    std::string_view operator()(const ev_playback_stopped&) const { return "playback.stopped"; }
    std::string_view operator()(const ev_partner_reserved&) const { return "partner.reserved"; }
    std::string_view operator()(const ev_partner_released&) const { return "partner.released"; }
    std::string_view operator()(const ev_partner_matched&) const { return "partner.matched"; }
    std::string_view operator()(const ev_partner_timeout&) const { return "partner.timeout"; }
    std::string_view operator()(const ev_player_visibility&) const { return "player.visibility"; }
    std::string_view operator()(const ev_render_warning&) const { return "render.warning"; }
  };
  return std::visit(visitor{}, e);
}

} // namespace emote::api
