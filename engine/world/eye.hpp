#pragma once
// Eye position (players.md §1.2) and the world-derived `eye_in_water` (§2.1).

#include "engine/core/vec.hpp"
#include "engine/world/player.hpp"
#include "engine/world/voxel_world.hpp"

#include <cstdint>

namespace emote::world {

/// The pose's eye height in binary32: gliding 0.4f, sleeping 0.2f, swimming or crawling 0.4f,
/// sneaking 1.27f, otherwise 1.62f (first matching row).
float eye_height(const player_state& p) noexcept;

/// `(pos.x, pos.y + (double)h, pos.z)`.
core::dvec3 eye_position(const player_state& p) noexcept;

/// `floor(v)` as a cell coordinate; NaN gives 0 and values beyond int64 saturate (such cells are
/// outside every grid and therefore passable).
std::int64_t cell_coordinate(double v) noexcept;

/// The effective `eye_in_water`: the reported value once the client has sent it, else whether
/// the eye lies in a water cell of the player's dimension.
bool eye_in_water(const player_state& p, const voxel_world& w) noexcept;

} // namespace emote::world
