#pragma once
// The play pipeline (players.md §6): an emote.play request, or the idle pass's play, from the
// catalog lookup through access, cooldown and claim, joining an open offer, the display limit and
// the replacement of the current playback to the start of a new registered session. Also the
// idle pass's host (rules::idle_host) and the refusal of every play after a shutdown.

#include "engine/api/match.hpp"
#include "engine/api/types.hpp"
#include "engine/rules/id_set.hpp"
#include "engine/rules/idle.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace emote::content {
class catalog;
}
namespace emote::playback {
class handle_pool;
class library;
class prepared_emote;
} // namespace emote::playback
namespace emote::rules {
class access_policy;
class cooldown_table;
} // namespace emote::rules
namespace emote::world {
class player_registry;
}

namespace emote::sim {

struct engine_config;
class partner_matching;
class player_views;
class session_lifecycle;
class session_registry;
struct tick_state;

/// The content plays start from: the catalog, its prepared (baked) emotes and its ids.
struct engine_content {
  std::shared_ptr<const content::catalog> catalog;
  std::unique_ptr<playback::library> library;
  rules::id_set ids;

  engine_content();
  ~engine_content();
  /// Use `c` (an empty catalog when null) from now on, prepared within `bake_budget` bytes.
  void set(std::shared_ptr<const content::catalog> c, std::size_t bake_budget);
};

/// A reply stamped with tick `now`: a success, or a refusal.
api::reply ok_reply(api::tick_number now, api::reply_payload payload);
api::reply error_reply(api::tick_number now, api::error e);
api::error make_error(api::error_code code, std::string message, std::string path = {});

class play_pipeline final : public rules::idle_host {
public:
  play_pipeline(const engine_config& config, const rules::access_policy& policy,
                const engine_content& content, world::player_registry& players, player_views& views,
                session_registry& registry, rules::cooldown_table& cooldowns,
                playback::handle_pool& pool, session_lifecycle& lifecycle,
                partner_matching& matching, tick_state& tick)
      : config_(config), policy_(policy), content_(content), players_(players), views_(views),
        registry_(registry), cooldowns_(cooldowns), pool_(pool), lifecycle_(lifecycle),
        matching_(matching), tick_(tick) {}

  /// players.md §6.1 steps 1-8 for `req` coming from `source`: the reply, stamped with this tick.
  api::reply play(const api::emote_play& req, api::play_source source);

  /// After a play() that started a two-player offer: the nearest open offer it did not join
  /// (players.md §7.3 "Why no match"); reset by forget_unmatched().
  [[nodiscard]] const std::optional<api::unmatched_offer>& last_unmatched() const noexcept {
    return last_unmatched_;
  }
  void forget_unmatched() noexcept { last_unmatched_.reset(); }

  /// From now on every play is refused with `shutting_down`.
  void shut_down() noexcept { shutting_down_ = true; }
  [[nodiscard]] bool shutting_down() const noexcept { return shutting_down_; }

  // rules::idle_host
  bool busy(const world::player_state& p) override;
  bool play(const world::player_state& p, const std::string& emote) override;

private:
  api::reply start_session(const world::player_state& player, const std::string& id,
                           std::shared_ptr<const playback::prepared_emote> prepared,
                           const api::emote_play& req, api::play_source source, bool tracked,
                           std::int64_t eff, std::optional<bool> chain);

  const engine_config& config_;
  const rules::access_policy& policy_;
  const engine_content& content_;
  world::player_registry& players_;
  player_views& views_;
  session_registry& registry_;
  rules::cooldown_table& cooldowns_;
  playback::handle_pool& pool_;
  session_lifecycle& lifecycle_;
  partner_matching& matching_;
  tick_state& tick_;
  bool shutting_down_ = false;
  std::optional<api::unmatched_offer> last_unmatched_;
};

} // namespace emote::sim
