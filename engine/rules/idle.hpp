#pragma once
// The idle pass (players.md §6.5): at the end of P1 on ticks with T mod 10 = 0, each online
// player in join order whose idle settings are due plays an idle emote through the pipeline.
// The pipeline itself stays with the caller, reached through `idle_host`.

#include "engine/core/java_random.hpp"
#include "engine/core/state_digest.hpp"
#include "engine/core/tick.hpp"
#include "engine/rules/access.hpp"
#include "engine/rules/id_set.hpp"
#include "engine/world/player_registry.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace emote::rules {

using core::tick_number;

/// What the idle pass needs from the engine.
class idle_host {
public:
  virtual ~idle_host() = default;
  /// Skip the player: it participates in a session.
  virtual bool busy(const world::player_state& p) = 0;
  /// Play `emote` for the player with source `idle`; true when the result is OK. Such a play must
  /// not set the player's `last_action_tick` (it is not the player's request; see
  /// docs/guide/players-implementation.md).
  virtual bool play(const world::player_state& p, const std::string& emote) = 0;
};

class idle_scheduler {
public:
  /// The generator is `java.util.Random(server_seed ^ 0x49444C45)`.
  explicit idle_scheduler(std::int64_t server_seed);

  struct state {
    std::size_t rule = 0;                ///< the access entry the settings came from
    access_rule::idle_settings settings; ///< as selected when (re)created
    tick_number action_tick = 0;         ///< the player's last_action_tick at (re)creation
    tick_number scheduled = 0;
    std::optional<std::string> candidate; ///< nullopt: none resolved
    std::optional<std::string> last_played;
  };

  /// The pass at tick `now`; does nothing unless `now mod 10 = 0`.
  void run(tick_number now, const world::player_registry& players, const access_policy& policy,
           const id_set& catalog, idle_host& host);

  /// A disconnect clears the player's state.
  void forget(std::string_view player);
  /// Access-config reload and shutdown clear every state.
  void clear() { states_.clear(); }

  [[nodiscard]] const state* find(std::string_view player) const;

  /// The generator and every player's state (protocol.md §8 state digests).
  void describe(core::state_sink& s) const;

  /// The choice of players.md §6.5 over resolved candidates: a lone candidate always (no draw);
  /// otherwise exclude `last_played`, then `nextInt(count)` (equal form) or the first candidate
  /// whose running weight sum exceeds `nextInt(W_remaining)` (weighted form).
  static std::optional<std::string> choose(const std::vector<idle_candidate>& candidates,
                                           const std::optional<std::string>& last_played,
                                           core::java_random& rng);

private:
  void choose_for(state& s, const access_policy& policy, const id_set& catalog);

  core::java_random rng_;
  std::map<std::string, state, std::less<>> states_;
  std::vector<std::string> order_; ///< scratch: player ids of the current pass
};

} // namespace emote::rules
