#include "engine/api/types.hpp"
#include "engine/api/event.hpp"

#include <array>
#include <type_traits>

namespace emote::api {
namespace {

template <class E, std::size_t N>
struct enum_names {
  std::array<std::string_view, N> names;
  [[nodiscard]] std::string_view get(E v) const noexcept {
    const auto i = static_cast<std::size_t>(v);
    return i < N ? names[i] : std::string_view{};
  }
  [[nodiscard]] std::optional<E> parse(std::string_view s) const noexcept {
    for (std::size_t i = 0; i < N; ++i) {
      if (names[i] == s) {
        return static_cast<E>(i);
      }
    }
    return std::nullopt;
  }
};

constexpr enum_names<game_mode, 4> game_mode_names{{"survival", "creative", "adventure", "spectator"}};
constexpr enum_names<physical_arm, 2> arm_names{{"right", "left"}};
constexpr enum_names<play_source, 3> source_names{{"command", "idle", "api"}};
constexpr enum_names<role, 3> role_names{{"solo", "initiator", "partner"}};
constexpr enum_names<space, 3> space_names{{"scene", "initiator", "partner"}};
constexpr enum_names<display_kind, 3> kind_names{{"item", "block", "text"}};
constexpr enum_names<branch, 4> branch_names{{"main", "offer", "matched", "timeout"}};
constexpr enum_names<block_kind, 3> block_names{{"passable", "solid", "water"}};
constexpr enum_names<stop_reason, 16> reason_names{{
    "MANUAL", "REPLACED", "FINISHED", "MOVED", "SUBMERGED", "PLAYER_UNAVAILABLE", "JUMPED",
    "MOUNTED", "DAMAGED", "ATTACKED", "GAME_MODE_CHANGED", "DISCONNECTED", "EMOTE_REMOVED",
    "RELOAD", "SERVER_STOPPING", "ERROR"}};
constexpr enum_names<release_why, 5> why_names{
    {"recheck_failed", "restarted", "stopped", "disconnected", "session_ended"}};
constexpr enum_names<player_event_kind, 7> event_kind_names{
    {"jump", "damage", "attack", "mount", "respawn", "death", "game_mode"}};
constexpr enum_names<error_code, 20> error_names{{
    "bad_json", "line_too_long", "unknown_op", "bad_request", "unsupported_protocol",
    "unauthorized", "forbidden", "unknown_player", "player_exists", "unknown_emote",
    "not_standalone", "disabled", "no_permission", "cooldown", "already_playing", "display_limit",
    "not_playing", "clock_not_manual", "shutting_down", "internal"}};

} // namespace

std::string_view name(game_mode v) noexcept { return game_mode_names.get(v); }
std::string_view name(physical_arm v) noexcept { return arm_names.get(v); }
std::string_view name(play_source v) noexcept { return source_names.get(v); }
std::string_view name(role v) noexcept { return role_names.get(v); }
std::string_view name(space v) noexcept { return space_names.get(v); }
std::string_view name(display_kind v) noexcept { return kind_names.get(v); }
std::string_view name(branch v) noexcept { return branch_names.get(v); }
std::string_view name(block_kind v) noexcept { return block_names.get(v); }
std::string_view name(stop_reason v) noexcept { return reason_names.get(v); }
std::string_view name(release_why v) noexcept { return why_names.get(v); }
std::string_view name(player_event_kind v) noexcept { return event_kind_names.get(v); }
std::string_view name(error_code v) noexcept { return error_names.get(v); }

template <> std::optional<game_mode> parse_enum(std::string_view s) noexcept { return game_mode_names.parse(s); }
template <> std::optional<physical_arm> parse_enum(std::string_view s) noexcept { return arm_names.parse(s); }
template <> std::optional<play_source> parse_enum(std::string_view s) noexcept { return source_names.parse(s); }
template <> std::optional<role> parse_enum(std::string_view s) noexcept { return role_names.parse(s); }
template <> std::optional<space> parse_enum(std::string_view s) noexcept { return space_names.parse(s); }
template <> std::optional<display_kind> parse_enum(std::string_view s) noexcept { return kind_names.parse(s); }
template <> std::optional<branch> parse_enum(std::string_view s) noexcept { return branch_names.parse(s); }
template <> std::optional<block_kind> parse_enum(std::string_view s) noexcept { return block_names.parse(s); }
template <> std::optional<stop_reason> parse_enum(std::string_view s) noexcept { return reason_names.parse(s); }
template <> std::optional<release_why> parse_enum(std::string_view s) noexcept { return why_names.parse(s); }
template <> std::optional<player_event_kind> parse_enum(std::string_view s) noexcept { return event_kind_names.parse(s); }
template <> std::optional<error_code> parse_enum(std::string_view s) noexcept { return error_names.parse(s); }

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
  };
  return std::visit(visitor{}, e);
}

} // namespace emote::api
