#pragma once
// One registered session (players.md §3, §7): its playback, its participants and the two-player
// bookkeeping the engine keeps around the playback object.

#include "engine/api/types.hpp"
#include "engine/core/vec.hpp"
#include "engine/playback/playback.hpp"
#include "engine/playback/prepared.hpp"
#include "engine/rules/stop_conditions.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace emote::sim {

/// A player taking part in a session: the initiator (solo or offer) or the activated partner.
struct participant {
  std::string player;
  std::int64_t incarnation = 0; ///< at becoming a participant (players.md §3.2 PLAYER_UNAVAILABLE)
  core::dvec3 baseline;       ///< players.md §3.4: feet at start, or at reservation for a partner
  bool was_invisible = false; ///< players.md §4 capture
  bool hidden = false;        ///< its hide record was emitted; a restore is due at the stop
  bool tracked = false;       ///< the cooldown hooks apply (not `api`, not bypass)
  api::tick_number since = 0; ///< the tick it became a participant
};

/// A reserved partner (players.md §7.5): not a participant until activation.
struct reservation {
  std::string player;
  core::dvec3 baseline;   ///< feet at reservation
  bool invisible = false; ///< the player's own flag at reservation (players.md §4 capture)
  api::tick_number tick = 0;
  bool tracked = false;
};

struct session {
  api::session_id id = 0;
  std::string emote; ///< the played id
  std::shared_ptr<const playback::prepared_emote> prepared;
  std::unique_ptr<playback::playback> pb;
  rules::player_settings settings; ///< the emote's `settings.player` (one for both players)
  bool two_player = false;
  std::string dimension; ///< the initiator's at the start
  api::tick_number start_tick = 0;
  std::int64_t displays = 0;  ///< display entities counted against the limit
  std::int64_t remaining = 0; ///< WAITING countdown, T_o at the offer start (players.md §7.2)
  participant initiator;
  std::optional<participant> partner; ///< activated at MATCHED
  std::optional<reservation> reserved;
  bool stopped = false;

  [[nodiscard]] playback::session_phase phase() const noexcept { return pb->phase(); }
  /// The participant record of `player`, or null.
  [[nodiscard]] participant* find(std::string_view player) noexcept {
    if (initiator.player == player) {
      return &initiator;
    }
    if (partner && partner->player == player) {
      return &*partner;
    }
    return nullptr;
  }
  [[nodiscard]] const participant* find(std::string_view player) const noexcept {
    return const_cast<session*>(this)->find(player);
  }
};

} // namespace emote::sim
