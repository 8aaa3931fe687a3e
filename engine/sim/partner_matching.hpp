#pragma once
// Partner matching (players.md §7): which open offer a player joins, the reservation, its
// re-check into MATCHED or a release, TIMEOUT, and P4, the partner logic of every two-player
// session at the end of the offer and while WAITING. The pairing conditions themselves are
// engine/rules/partner.hpp's; stops and releases go through the session lifecycle.

#include "engine/api/match.hpp"
#include "engine/sim/session.hpp"

#include <cstdint>
#include <optional>
#include <string_view>

namespace emote::rules {
class cooldown_table;
}
namespace emote::world {
class player_registry;
class voxel_world;
} // namespace emote::world

namespace emote::sim {

class session_lifecycle;
class session_registry;
struct tick_state;

class partner_matching {
public:
  partner_matching(const world::player_registry& players, const world::voxel_world& world,
                   session_registry& registry, rules::cooldown_table& cooldowns,
                   session_lifecycle& lifecycle, tick_state& tick)
      : players_(players), world_(world), registry_(registry), cooldowns_(cooldowns),
        lifecycle_(lifecycle), tick_(tick) {}

  /// players.md §7.3: the compatible offer of `emote` with the nearest initiator; ties go to the
  /// earliest created. With `miss`, the nearest offer of the emote that was no candidate is named
  /// there with the first condition it failed (the reply of a new initiator says it). A
  /// `participant` P never joins: then only `miss` is filled.
  [[nodiscard]] session* find_offer(std::string_view emote, const world::player_state& p,
                                    std::optional<api::unmatched_offer>* miss,
                                    bool participant) const;

  /// players.md §7.5: P becomes the session's reserved partner (`partner.reserved`; a tracked P's
  /// cooldown claim starts with effective cooldown `eff`). A session already WAITING resolves the
  /// reservation at once (§7.7).
  void reserve(session& s, const world::player_state& p, bool tracked, std::int64_t eff);

  /// Re-check the reservation (players.md §7.6): MATCHED, or a release with `recheck_failed`.
  /// Returns whether it matched.
  bool resolve_reservation(session& s);

  /// P4 (players.md §7.6, §7.7): per registered two-player session in creation order, an offer
  /// that ended in this tick's advance resolves its reservation or enters WAITING; a WAITING one
  /// resolves a fallback reservation or counts down to TIMEOUT.
  void step();

private:
  [[nodiscard]] bool recheck(const session& s) const;
  void activate(session& s);
  void time_out(session& s);

  const world::player_registry& players_;
  const world::voxel_world& world_;
  session_registry& registry_;
  rules::cooldown_table& cooldowns_;
  session_lifecycle& lifecycle_;
  tick_state& tick_;
};

} // namespace emote::sim
