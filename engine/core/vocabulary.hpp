#pragma once
// Small enumerations that several modules share: content files, Molang queries, the engine's
// players and the wire all speak of the same arm, space and game mode, so each is defined once,
// here, with its one spelling (the same in files and on the wire).

#include "engine/core/enum_names.hpp"

#include <cstdint>
#include <string_view>

namespace emote::core {

/// A player's main arm, or the hand a node follows (formats.md §3.3, players.md §1.1).
enum class physical_arm : std::uint8_t { right, left };
/// The space a node is placed in (formats.md §3.3).
enum class space : std::uint8_t { scene, initiator, partner };
/// players.md §1.1.
enum class game_mode : std::uint8_t { survival, creative, adventure, spectator };

inline constexpr enum_names<physical_arm, 2> physical_arm_names{{"right", "left"}};
inline constexpr enum_names<space, 3> space_names{{"scene", "initiator", "partner"}};
inline constexpr enum_names<game_mode, 4> game_mode_names{
    {"survival", "creative", "adventure", "spectator"}};

[[nodiscard]] constexpr std::string_view name(physical_arm v) noexcept {
  return physical_arm_names(v);
}
[[nodiscard]] constexpr std::string_view name(space v) noexcept {
  return space_names(v);
}
[[nodiscard]] constexpr std::string_view name(game_mode v) noexcept {
  return game_mode_names(v);
}

} // namespace emote::core
