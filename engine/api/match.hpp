#pragma once
// Why a would-be partner did not join an open offer (players.md §7.3 "Why no match") **(sim)**:
// the first candidate condition that failed for the nearest offer of the emote.

#include "engine/api/types.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace emote::api {

/// The candidate conditions of players.md §7.3 and §7.4, in the order they are checked.
enum class match_failure : std::uint8_t {
  participant,       ///< P is a participant of a session, so it never joins
  partner_dead,      ///< P is not alive
  initiator_offline, ///< the initiator is not online
  same_player,       ///< I = P
  initiator_dead,    ///< the initiator is not alive
  dimension,         ///< I is in another dimension
  height,            ///< |I.y − P.y| > 1.0 (players.md §7.4 step 1)
  too_far,           ///< more than 2 blocks apart horizontally (players.md §7.4 step 2)
  same_spot,         ///< standing on the same spot (players.md §7.4 step 2)
  initiator_facing,  ///< I does not face P within 45° (players.md §7.4 step 5)
  partner_facing,    ///< P does not face I within 45° (players.md §7.4 step 5)
  line_of_sight,     ///< LOS(I → P) fails (players.md §2.2)
};

std::string_view name(match_failure v) noexcept;
std::optional<match_failure> parse_match_failure(std::string_view wire) noexcept;

/// The nearest offer a two-player play did not join, and why.
struct unmatched_offer {
  session_id session = 0;
  std::string initiator;
  match_failure reason = match_failure::participant;
};

} // namespace emote::api
