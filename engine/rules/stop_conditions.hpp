#pragma once
// Stop conditions (players.md §3): the polls of P2 for one participant and the event conditions
// of P1. Sessions, their order and the stop itself belong to the caller; these functions only
// answer "does this stop it, and why".

#include "engine/api/types.hpp"
#include "engine/content/model.hpp"
#include "engine/core/vec.hpp"
#include "engine/world/player.hpp"
#include "engine/world/voxel_world.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace emote::rules {

/// `settings.player` and its stop conditions (formats.md §3.1), as loaded: a Sequence's replace
/// those of its Animations; a two-player session has one for both participants.
using stop_conditions = content::stop_conditions;
using player_settings = content::player_settings;

/// MOVED's test: `dx·dx + dz·dz > md·md` against the baseline (strict; Y ignored). False when
/// `md = 0`.
bool moved_beyond(const core::dvec3& pos, const core::dvec3& baseline, double movement_distance);

/// One participant as a poll sees it.
struct poll_subject {
  const world::player_state* player = nullptr; ///< nullptr: not online
  std::int64_t incarnation = 0;                ///< recorded when it became a participant
  core::dvec3 baseline;                        ///< players.md §3.4
};

/// The players.md §3.2 checks for one participant, in order: PLAYER_UNAVAILABLE (offline, another
/// incarnation, dead, or outside `session_dimension`), SUBMERGED (the effective
/// `eye_in_water`, world-derived until the client reports it), MOVED. The first hit, or nullopt.
std::optional<api::stop_reason> poll(const poll_subject& who, const stop_conditions& sc,
                                     std::string_view session_dimension,
                                     const world::voxel_world& world);

/// A whole session's poll: each participant in order (initiator, then the activated partner);
/// the first hit stops the session. Reserved partners must not be passed.
std::optional<api::stop_reason> poll_session(std::span<const poll_subject> participants,
                                             const stop_conditions& sc,
                                             std::string_view session_dimension,
                                             const world::voxel_world& world);

/// players.md §3.3: the stop reason an event about a participant gives, if its condition is
/// enabled: jump → JUMPED, start riding → MOUNTED, damage with amount > 0 and not lethal → DAMAGED,
/// attack → ATTACKED, game-mode change → GAME_MODE_CHANGED. Death, respawn and dimension change
/// give nothing here (the next poll sees them).
std::optional<api::stop_reason> event_stop(const world::player_event_record& e,
                                           const stop_conditions& sc);

/// The first stop reason among an update's or event's records, in their firing order.
std::optional<api::stop_reason> first_event_stop(std::span<const world::player_event_record> es,
                                                 const stop_conditions& sc);

} // namespace emote::rules
