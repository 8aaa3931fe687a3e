#pragma once
// Pure pieces of two-player matching (players.md §7.3–7.6): whether an initiator and a would-be
// partner can pair now, and which of several compatible offers wins. Session states,
// reservations and timing stay with the caller.

#include "engine/api/match.hpp"
#include "engine/world/player.hpp"
#include "engine/world/voxel_world.hpp"

#include <cstddef>
#include <optional>
#include <span>

namespace emote::rules {

/// The player conditions shared by the candidate search (players.md §7.3) and the re-check (§7.6):
/// P is online and alive; I ≠ P, and I is online, alive and in P's dimension; `geometry(I.pos,
/// I.yaw, P.pos, P.yaw)` holds; `LOS(I → P)` holds. Null means offline. The session conditions
/// (same emote, OFFERING or WAITING, no reservation) are the caller's.
bool can_pair(const world::player_state* initiator, const world::player_state* partner,
              const world::voxel_world& world);

/// The same conditions checked in the same order, naming the first that fails; nullopt when
/// `can_pair` holds. Both pointers may be null (offline).
std::optional<api::match_failure> pair_failure(const world::player_state* initiator,
                                               const world::player_state* partner,
                                               const world::voxel_world& world);

/// `(I.x − P.x)² + (I.z − P.z)²`, the distance the nearest offer is chosen by.
double pairing_distance_sq(const world::player_state& initiator,
                           const world::player_state& partner) noexcept;

/// Given the compatible offers' distances in session creation order, the index of the winner:
/// the smallest value, ties to the earliest (the best is replaced only on a strictly smaller
/// value). nullopt when there are none.
std::optional<std::size_t> nearest_offer(std::span<const double> distances_sq) noexcept;

} // namespace emote::rules
