#pragma once
// The tick in progress and what every part of the engine does to a session within it: the
// playback context a session runs with, its stop (players.md §3.6) and the release of its
// reservation (players.md §7.5). The play pipeline, partner matching and the tick phases all stop
// and release through here, so a stop is the same whoever causes it.

#include "engine/api/event.hpp"
#include "engine/api/types.hpp"
#include "engine/playback/playback.hpp"
#include "engine/sim/session.hpp"

#include <cstdint>
#include <vector>

namespace emote::rules {
class cooldown_table;
}

namespace emote::sim {

struct engine_config;
class player_views;
class session_registry;

/// The tick in progress.
struct tick_state {
  api::tick_number now = 0;
  /// The frame being built: command and callback records are appended as they run; P5 adds the
  /// display records and then `records`.
  api::frame out;
  /// players.md §9 records in the order they arose.
  std::vector<api::event> records;
  /// Whether the tick's first mutation has cleared the previous frame (open()).
  bool opened = false;
  /// players.md §8.6: Molang operations all sessions may still execute in this tick.
  std::uint64_t server_ops_left = 0;

  /// The first mutation of a tick drops the previous frame (its reference is no longer valid)
  /// and refills the tick's Molang budget; later calls in the same tick do nothing.
  void open(std::uint64_t server_tick_ops) {
    if (opened) {
      return;
    }
    opened = true;
    out.tick = now;
    out.events.clear();
    records.clear();
    server_ops_left = server_tick_ops;
  }
};

class session_lifecycle {
public:
  session_lifecycle(const engine_config& config, tick_state& tick, session_registry& registry,
                    player_views& views, rules::cooldown_table& cooldowns)
      : config_(config), tick_(tick), registry_(registry), views_(views), cooldowns_(cooldowns) {}

  /// What a playback of `s` runs with in this tick: the initiator's Molang view, the frame's
  /// events for command and callback records, the per-session and per-tick Molang budgets.
  [[nodiscard]] playback::tick_context context_for(const session& s);

  /// A stop (players.md §3.6), at most once per session: out of the registry, its reservation
  /// released, the `stop` command events, per participant the restore and playback.stopped, then
  /// stop mode's IN_USE → COOLING_DOWN.
  void stop(session& s, api::stop_reason reason);

  /// Drop the session's reservation (players.md §7.5): `partner.released`, nothing to the player;
  /// in stop mode the partner's IN_USE claim goes back to AVAILABLE. Nothing without one.
  void release(session& s, api::release_why why);

  /// Stop every registered session in creation order; returns how many stopped.
  std::int64_t stop_all(api::stop_reason reason);

private:
  void stopped_records(const session& s, const participant& p, api::stop_reason reason);

  const engine_config& config_;
  tick_state& tick_;
  session_registry& registry_;
  player_views& views_;
  rules::cooldown_table& cooldowns_;
};

} // namespace emote::sim
