#include "engine/sim/partner_matching.hpp"

#include "engine/rules/cooldowns.hpp"
#include "engine/rules/partner.hpp"
#include "engine/rules/visibility.hpp"
#include "engine/sim/session_lifecycle.hpp"
#include "engine/sim/session_registry.hpp"
#include "engine/world/player_registry.hpp"
#include "engine/world/voxel_world.hpp"

#include <utility>

namespace emote::sim {

using playback::session_phase;

bool partner_matching::recheck(const session& s) const {
  const world::player_state* i = players_.find(s.initiator.player);
  const world::player_state* p = players_.find(s.reserved->player);
  return rules::can_pair(i, p, world_);
}

session* partner_matching::find_offer(std::string_view emote, const world::player_state& p,
                                      std::optional<api::unmatched_offer>* miss,
                                      bool participant) const {
  session* best = nullptr;
  double best_d = 0;
  const session* near = nullptr;
  api::match_failure near_why = api::match_failure::participant;
  double near_d = 0;
  for (const auto& sp : registry_.sessions()) {
    session& s = *sp;
    if (s.stopped || !s.two_player || s.reserved || s.emote != emote) {
      continue;
    }
    const session_phase phase = s.phase();
    if (phase != session_phase::offering && phase != session_phase::waiting) {
      continue;
    }
    const world::player_state* i = players_.find(s.initiator.player);
    const auto failed = participant ? std::optional(api::match_failure::participant)
                                    : rules::pair_failure(i, &p, world_);
    if (failed) {
      if (miss != nullptr && i != nullptr && i->id != p.id) {
        const double d = rules::pairing_distance_sq(*i, p);
        if (near == nullptr || d < near_d) {
          near = &s;
          near_why = *failed;
          near_d = d;
        }
      }
      continue;
    }
    const double d = rules::pairing_distance_sq(*i, p);
    if (best == nullptr || d < best_d) {
      best = &s;
      best_d = d;
    }
  }
  if (miss != nullptr && best == nullptr && near != nullptr) {
    *miss = api::unmatched_offer{near->id, near->initiator.player, near_why};
  }
  return best;
}

void partner_matching::reserve(session& s, const world::player_state& p, bool tracked,
                               std::int64_t eff) {
  s.reserved = reservation{p.id, p.pos, p.invisible, tick_.now, tracked};
  registry_.add_reservation(s, p.id);
  tick_.records.emplace_back(api::ev_partner_reserved{s.id, s.initiator.player, p.id});
  if (tracked) {
    cooldowns_.started(p.id, s.emote, tick_.now, eff);
  }
  if (s.phase() == session_phase::waiting) {
    resolve_reservation(s);
  }
}

bool partner_matching::resolve_reservation(session& s) {
  if (recheck(s)) {
    activate(s);
    return true;
  }
  lifecycle_.release(s, api::release_why::recheck_failed);
  return false;
}

/// players.md §7.8 MATCHED, all in this tick.
void partner_matching::activate(session& s) {
  reservation r = std::move(*s.reserved);
  s.reserved.reset();
  registry_.drop_reservation(s, r.player);
  const world::player_state* p = players_.find(r.player);
  // 1. The matched branch starts at its tick 0.
  playback::tick_context ctx = lifecycle_.context_for(s);
  const bool ok = s.pb->start_branch(api::branch::matched, ctx);
  // 2. P becomes a participant with its reservation-time baseline and flag.
  participant part;
  part.player = r.player;
  part.incarnation = p != nullptr ? p->incarnation : 0;
  part.baseline = r.baseline;
  part.was_invisible = r.invisible;
  part.tracked = r.tracked;
  part.since = tick_.now;
  s.partner = std::move(part);
  registry_.add_participant(s, s.partner->player);
  // 3. Partner-space item nodes show P's items; the partner space becomes active.
  if (p != nullptr) {
    s.pb->set_hand_items(content::participant::partner, p->right_hand, p->left_hand);
  }
  s.pb->activate_partner_space();
  // 4. partner.matched, P's hide record, playback.started.
  std::vector<api::event>& records = tick_.records;
  records.emplace_back(api::ev_partner_matched{s.id, s.initiator.player, s.partner->player});
  if (s.settings.hidden) {
    s.partner->hidden = true;
    records.emplace_back(rules::hide_record(s.partner->player));
  }
  records.emplace_back(
      api::ev_playback_started{s.id, s.partner->player, s.emote, api::role::partner});
  if (!ok) {
    lifecycle_.stop(s, s.pb->failure_reason());
  }
}

/// players.md §7.8 TIMEOUT.
void partner_matching::time_out(session& s) {
  tick_.records.emplace_back(api::ev_partner_timeout{s.id, s.initiator.player});
  playback::tick_context ctx = lifecycle_.context_for(s);
  if (!s.pb->start_branch(api::branch::timeout, ctx)) {
    lifecycle_.stop(s, s.pb->failure_reason());
  }
}

void partner_matching::step() {
  for (session* s : registry_.walk()) {
    if (s->stopped || !s->two_player) {
      continue;
    }
    playback::playback& pb = *s->pb;
    if (pb.phase() == session_phase::offering) {
      if (!pb.offer_complete()) {
        continue;
      }
      // players.md §7.6: the offer ended in this tick's advance.
      if (s->reserved && resolve_reservation(*s)) {
        continue;
      }
      if (!s->stopped) {
        pb.enter_waiting();
      }
    } else if (pb.phase() == session_phase::waiting) {
      // players.md §7.7: a reservation here is only a fallback; it takes this tick's decision.
      if (s->reserved) {
        resolve_reservation(*s);
        continue;
      }
      s->remaining -= 1;
      if (s->remaining <= 0) {
        time_out(*s);
      }
    }
  }
}

} // namespace emote::sim
