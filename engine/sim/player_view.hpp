#pragma once
// The Molang view of a player (molang.md §5.2): players.md §1.1 state plus the Molang-only
// fields, in the shape the evaluator reads. Building a view copies item names and scores, so the
// engine keeps one per player and refreshes it only when the player changed; the per-tick values
// (`yaw_prev`, the world-derived `eye_in_water`, emote hiding) are set on every use.

#include "engine/api/types.hpp"
#include "engine/core/memo.hpp"
#include "engine/molang/queries.hpp"
#include "engine/world/player.hpp"

#include <map>
#include <string>
#include <string_view>

namespace emote::world {
class player_registry;
class voxel_world;
} // namespace emote::world

namespace emote::sim {

/// Fill every field of `out` from `p` that depends only on the player's own state. Strings and
/// vectors of `out` reuse their storage.
void fill_view(const world::player_state& p, molang::player_view& out);

/// The Molang item of a held stack: its namespaced id (empty for no item) and charged flag.
void fill_item(const api::item_stack& s, molang::item_view& out);

class session_registry;

/// The online players' Molang views, each rebuilt only when its player changed (changed(),
/// joined()). With `check` caches a kept view is compared with a fresh one on every use and a
/// stale one throws core::cache_mismatch naming the session that used it.
class player_views {
public:
  player_views(const world::player_registry& players, const world::voxel_world& world,
               const session_registry& sessions, core::cache_mode mode)
      : players_(players), world_(world), sessions_(sessions), mode_(mode) {}

  /// The view of `player` (null when offline) as a playback of `session` reads it in tick `now`:
  /// the kept fields, then the per-use ones (`yaw_prev`, `eye_in_water` from the world,
  /// `hidden_by_emote` from the session registry).
  const molang::player_view* view(std::string_view player, api::session_id session,
                                  api::tick_number now);

  /// The player joined, changed (an update, an event, a request) or left.
  void joined(const std::string& player);
  void changed(std::string_view player);
  void left(std::string_view player);

private:
  struct entry {
    molang::player_view view;
    bool dirty = true;
  };
  void check(const world::player_state& p, const molang::player_view& kept,
             api::session_id session) const;

  const world::player_registry& players_;
  const world::voxel_world& world_;
  const session_registry& sessions_;
  core::cache_mode mode_;
  std::map<std::string, entry, std::less<>> views_;
};

} // namespace emote::sim
