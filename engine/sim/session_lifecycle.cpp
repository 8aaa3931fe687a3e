#include "engine/sim/session_lifecycle.hpp"

#include "engine/rules/cooldowns.hpp"
#include "engine/rules/visibility.hpp"
#include "engine/sim/engine.hpp"
#include "engine/sim/player_view.hpp"
#include "engine/sim/session_registry.hpp"

#include <utility>

namespace emote::sim {

using api::release_why;
using api::stop_reason;

playback::tick_context session_lifecycle::context_for(const session& s) {
  return playback::tick_context{
      tick_.now, views_.view(s.initiator.player, s.id, tick_.now), &tick_.out.events,
      config_.molang_session_tick_ops == 0 ? molang::unlimited_ops
                                           : config_.molang_session_tick_ops,
      config_.molang_server_tick_ops == 0 ? nullptr : &tick_.server_ops_left};
}

void session_lifecycle::stop(session& s, stop_reason reason) {
  if (s.stopped) {
    return;
  }
  s.stopped = true;
  // 1. Out of the registry (its displays no longer count; their removal is emitted in P5); a
  // reservation is dropped.
  registry_.detach(s);
  if (s.reserved) {
    release(s, release_why::session_ended);
  }
  // 2. The `stop` command events.
  playback::tick_context ctx = context_for(s);
  s.pb->stop(ctx, reason);
  // 3. Per participant: the restore, then playback.stopped.
  stopped_records(s, s.initiator, reason);
  if (s.partner) {
    stopped_records(s, *s.partner, reason);
  }
  // 4. Stop mode: IN_USE → COOLING_DOWN.
  if (s.initiator.tracked) {
    cooldowns_.stopped(s.initiator.player, s.emote, tick_.now);
  }
  if (s.partner && s.partner->tracked) {
    cooldowns_.stopped(s.partner->player, s.emote, tick_.now);
  }
}

void session_lifecycle::stopped_records(const session& s, const participant& p,
                                        stop_reason reason) {
  if (p.hidden) {
    tick_.records.emplace_back(rules::restore_record(p.player, p.was_invisible));
  }
  tick_.records.emplace_back(api::ev_playback_stopped{s.id, p.player, s.emote, reason});
}

void session_lifecycle::release(session& s, release_why why) {
  if (!s.reserved) {
    return;
  }
  reservation r = std::move(*s.reserved);
  s.reserved.reset();
  registry_.drop_reservation(s, r.player);
  tick_.records.emplace_back(api::ev_partner_released{s.id, s.initiator.player, r.player, why});
  if (r.tracked) {
    cooldowns_.release(r.player, s.emote);
  }
}

std::int64_t session_lifecycle::stop_all(stop_reason reason) {
  std::int64_t n = 0;
  for (session* s : registry_.walk()) {
    if (!s->stopped) {
      stop(*s, reason);
      ++n;
    }
  }
  return n;
}

} // namespace emote::sim
