#pragma once
// The Molang view of a player (molang.md §5.2): players.md §1.1 state plus the Molang-only
// fields, in the shape the evaluator reads. Building a view copies item names and scores, so the
// engine keeps one per player and refreshes it only when the player changed; the per-tick values
// (`yaw_prev`, the world-derived `eye_in_water`, emote hiding) are set on every use.

#include "engine/molang/queries.hpp"
#include "engine/world/player.hpp"

namespace emote::sim {

/// Fill every field of `out` from `p` that depends only on the player's own state. Strings and
/// vectors of `out` reuse their storage.
void fill_view(const world::player_state& p, molang::player_view& out);

/// The Molang item of a held stack: its namespaced id (empty for no item) and charged flag.
void fill_item(const api::item_stack& s, molang::item_view& out);

} // namespace emote::sim
