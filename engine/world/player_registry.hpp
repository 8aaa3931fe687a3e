#pragma once
// The online players (players.md §1.3): join, partial updates, explicit events, leave. Players
// are kept in join order, the order of the idle pass (§6.5).

#include "engine/api/types.hpp"
#include "engine/core/result.hpp"
#include "engine/core/state_digest.hpp"
#include "engine/world/player.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace emote::world {

enum class join_error : std::uint8_t {
  already_online, ///< wire `player_exists`; the existing player is untouched
};

class player_registry {
public:
  /// `join(id, state)`: refused when the id is online. The player's incarnation is one more than
  /// the id's last one (1 on its first join), so a rejoined player never passes for the old one;
  /// `last_action_tick = now`.
  core::result<player_state*, join_error> join(const api::player_join& j, tick_number now);

  /// A partial update with its derived events; nullopt when the player is not online.
  std::optional<change> update(std::string_view id, const api::player_fields& fields,
                               tick_number now);

  /// An explicit event; nullopt when the player is not online.
  std::optional<change> event(std::string_view id, const api::player_event& e, tick_number now);

  /// `leave` (disconnect); false when the player was not online.
  bool leave(std::string_view id);

  /// Mark a play or stop request by the player (`last_action_tick := now`); false if offline.
  bool touch(std::string_view id, tick_number now);

  /// Start of a tick: `yaw_prev := yaw` for everyone (molang.md §5.2).
  void begin_tick();

  [[nodiscard]] player_state* find(std::string_view id) noexcept;
  [[nodiscard]] const player_state* find(std::string_view id) const noexcept;
  [[nodiscard]] bool online(std::string_view id) const noexcept { return find(id) != nullptr; }
  [[nodiscard]] std::size_t size() const noexcept { return players_.size(); }

  /// Every online player's fields (keyed by id, in join order), the incarnations of every id
  /// ever joined and the counters (protocol.md §8 state digests).
  void describe(core::state_sink& s) const;

  /// Every online player in join order (a rejoin counts as a new, later join).
  template <class F>
  void for_each(F&& f) {
    for (auto& [order, p] : players_) {
      f(p);
    }
  }
  template <class F>
  void for_each(F&& f) const {
    for (const auto& [order, p] : players_) {
      f(p);
    }
  }

  /// Online players in ascending key order, starting after `after`; stops when `f` returns false.
  template <class F>
  void for_each_after(std::string_view after, F&& f) const {
    for (auto it = by_id_.upper_bound(after); it != by_id_.end(); ++it) {
      if (!f(players_.at(it->second))) {
        return;
      }
    }
  }

private:
  std::map<std::uint64_t, player_state> players_;           ///< join order → player
  std::map<std::string, std::uint64_t, std::less<>> by_id_; ///< id → join order
  /// The last incarnation of every id ever joined, kept across leaves.
  std::map<std::string, std::int64_t, std::less<>> incarnations_;
  std::uint64_t next_order_ = 0;
  std::uint64_t anonymous_vehicles_ = 0;
};

} // namespace emote::world
