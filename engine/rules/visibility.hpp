#pragma once
// Hidden players (players.md §4): what a participant's `was_invisible` is, and the two
// `player.visibility` records around a hidden playback.

#include "engine/api/event.hpp"

#include <optional>
#include <string>

namespace emote::rules {

/// The `was_invisible` to store when a player becomes a participant of a hidden session.
/// `replaced_stored` is the value stored by the session this start replaces **if that session
/// hid this player** (the replacement chain), else nullopt; `own_invisible` is the player's own
/// flag (at reservation time for a partner, now for everyone else).
constexpr bool capture_was_invisible(std::optional<bool> replaced_stored,
                                     bool own_invisible) noexcept {
  return replaced_stored ? *replaced_stored : own_invisible;
}

/// `player.visibility {player, hidden: true, equipment: "blank"}`, before `playback.started`.
inline api::ev_player_visibility hide_record(const std::string& player) {
  return api::ev_player_visibility{player, true, true};
}

/// `player.visibility {player, hidden: was_invisible, equipment: "real"}`, before
/// `playback.stopped`.
inline api::ev_player_visibility restore_record(const std::string& player, bool was_invisible) {
  return api::ev_player_visibility{player, was_invisible, false};
}

} // namespace emote::rules
