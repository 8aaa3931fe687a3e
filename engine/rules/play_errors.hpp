#pragma once
// The fixed refusal messages of the play pipeline (players.md §6.1–6.2). Cooldown refusals carry
// a number and come from cooldowns.hpp.

#include "engine/api/types.hpp"

namespace emote::rules {

/// The error for a pipeline failure code with its message:
///   unknown_player  `Player is not online.`                 (PLAYER_OFFLINE)
///   unknown_emote   `That emote does not exist.`
///   not_standalone  `This emote can only be played as part of a sequence.`
///   disabled        `This emote is currently unavailable.`
///   no_permission   `You do not have permission to use this emote.`
///   already_playing `This emote is already playing.`
///   display_limit   `Too many emotes are active right now. Try again shortly.`
///   molang_budget   `This emote needs more work than the server allows per tick.`
///                   (MOLANG_BUDGET at the start, players.md §8.6)
///   molang_error    `This emote's Molang failed while starting.` (players.md §6.2 step 8)
///   internal        `Something went wrong while starting the emote.` (ERROR)
/// Any other code gets an empty message.
api::error play_error(api::error_code code);

} // namespace emote::rules
