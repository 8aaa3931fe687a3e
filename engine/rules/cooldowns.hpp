#pragma once
// Cooldowns (players.md §5) in both modes, keyed by (player id, emote id). The table is driven
// by the play pipeline through four hooks whose meaning does not depend on the mode:
//
//   check    step 2d: refuse, or allow (an expired entry is deleted)
//   claim    step 3: stop mode takes IN_USE(eff)
//   release  a failed start (DISPLAY_LIMIT, ERROR) or a released reservation: stop mode drops
//            IN_USE back to AVAILABLE
//   started  a successful start (solo, offer, join): start mode records ready = T + eff
//   stopped  a participant's session stopped at T, for any reason: stop mode IN_USE →
//            COOLING_DOWN(T + eff)
//
// `eff ≤ 0` records nothing. Bypass and `api` plays must not call any hook (§5.4).

#include "engine/api/types.hpp"
#include "engine/core/state_digest.hpp"
#include "engine/core/tick.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace emote::rules {

using core::tick_number;

enum class cooldown_mode : std::uint8_t { start, stop };

enum class cooldown_state : std::uint8_t {
  available,
  cooldown,     ///< start mode: ready in the future
  in_use,       ///< stop mode: claimed, the emote is playing (or reserved)
  cooling_down, ///< stop mode: stopped, ready in the future
};

struct cooldown_status {
  cooldown_state state = cooldown_state::available;
  std::int64_t remaining = 0; ///< ready − T for cooldown / cooling_down
  std::int64_t eff = 0;       ///< the claimed cooldown, for in_use
};

/// `N = (r + 19) div 20` = ceil(r / 20) seconds, for r > 0.
std::int64_t cooldown_seconds(std::int64_t remaining) noexcept;

/// The refusals of players.md §5: start mode `Emote cooldown: {N}s remaining.`; stop mode
/// `This emote is already playing.` and `You can use this emote again in {N} second(s).`.
api::error cooldown_refusal(std::int64_t remaining);
api::error cooling_down_refusal(std::int64_t remaining);
api::error already_playing_refusal();

class cooldown_table {
public:
  explicit cooldown_table(cooldown_mode mode = cooldown_mode::start) : mode_(mode) {}

  [[nodiscard]] cooldown_mode mode() const noexcept { return mode_; }

  /// Step 2d at tick `now`: the refusal, or nullopt (allowed; an expired entry is deleted).
  std::optional<api::error> check(std::string_view player, std::string_view emote, tick_number now);

  void claim(std::string_view player, std::string_view emote, std::int64_t eff);
  void release(std::string_view player, std::string_view emote);
  void started(std::string_view player, std::string_view emote, tick_number now, std::int64_t eff);
  void stopped(std::string_view player, std::string_view emote, tick_number now);

  /// `cooldowns.clear`: one player's entries, or everyone's. Returns the entries removed.
  std::int64_t clear(const std::optional<std::string>& player = std::nullopt);

  /// The state at `now`, without changing anything.
  [[nodiscard]] cooldown_status status(std::string_view player, std::string_view emote,
                                       tick_number now) const;

  struct listed {
    std::string player;
    std::string emote;
    cooldown_status status;
  };
  /// Every entry that is not AVAILABLE at `now`, ordered by player, then emote (state.get).
  [[nodiscard]] std::vector<listed> entries(tick_number now) const;

  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }

  /// Every entry, expired ones included, by player then emote (protocol.md §8 state digests).
  void describe(core::state_sink& s) const;

private:
  struct entry {
    bool in_use = false;   ///< stop mode claim
    std::int64_t eff = 0;  ///< the claimed cooldown (stop mode)
    tick_number ready = 0; ///< when not in_use
  };
  using key = std::pair<std::string, std::string>;
  struct key_less {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const noexcept {
      if (a.first != b.first) {
        return std::string_view(a.first) < std::string_view(b.first);
      }
      return std::string_view(a.second) < std::string_view(b.second);
    }
  };
  using view_key = std::pair<std::string_view, std::string_view>;

  cooldown_mode mode_;
  std::map<key, entry, key_less> entries_;
};

} // namespace emote::rules
