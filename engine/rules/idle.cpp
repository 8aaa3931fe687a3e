#include "engine/rules/idle.hpp"

#include <algorithm>
#include <vector>

namespace emote::rules {

namespace {
constexpr std::int64_t idle_seed_mix = 0x49444C45; // "IDLE"
constexpr std::int64_t retry_delay = 20;
} // namespace

idle_scheduler::idle_scheduler(std::int64_t server_seed) : rng_(server_seed ^ idle_seed_mix) {}

std::optional<std::string> idle_scheduler::choose(const std::vector<idle_candidate>& candidates,
                                                  const std::optional<std::string>& last_played,
                                                  core::java_random& rng) {
  if (candidates.empty()) {
    return std::nullopt;
  }
  if (candidates.size() == 1) {
    return candidates.front().id;
  }
  std::vector<const idle_candidate*> pool;
  pool.reserve(candidates.size());
  for (const auto& c : candidates) {
    if (!last_played || c.id != *last_played) {
      pool.push_back(&c);
    }
  }
  const bool weighted = candidates.front().weight > 0;
  if (!weighted) {
    return pool[static_cast<std::size_t>(rng.next_int(static_cast<std::int32_t>(pool.size())))]->id;
  }
  std::int32_t total = 0;
  for (const auto* c : pool) {
    total += c->weight;
  }
  const std::int32_t r = rng.next_int(total);
  std::int32_t running = 0;
  for (const auto* c : pool) {
    running += c->weight;
    if (running > r) {
      return c->id;
    }
  }
  return pool.back()->id; // unreachable: running reaches total > r
}

void idle_scheduler::choose_for(state& s, const access_policy& policy, const id_set& catalog) {
  s.candidate = choose(policy.idle_candidates(s.rule, catalog), s.last_played, rng_);
}

void idle_scheduler::run(tick_number now, const world::player_registry& players,
                         const access_policy& policy, const id_set& catalog, idle_host& host) {
  if (now % 10 != 0) {
    return;
  }
  // Ids first: the host's plays must not disturb the walk. The buffer is kept between passes
  // (strings reuse their capacity), so a pass over unchanged players allocates nothing.
  std::size_t count = 0;
  players.for_each([&](const world::player_state& p) {
    if (count == order_.size()) {
      order_.emplace_back();
    }
    order_[count++].assign(p.id);
  });

  for (std::size_t i = 0; i < count; ++i) {
    const std::string& id = order_[i];
    const world::player_state* p = players.find(id);
    if (p == nullptr) {
      continue;
    }
    const auto rule = policy.idle_rule(p->permissions);
    if (!rule) {
      states_.erase(id); // no idle settings, no state
      continue;
    }
    const access_rule::idle_settings& settings = *policy.rules()[*rule].idle;
    auto it = states_.find(id);
    if (it == states_.end() || it->second.action_tick != p->last_action_tick ||
        it->second.rule != *rule || it->second.settings != settings) {
      state fresh;
      fresh.rule = *rule;
      fresh.settings = settings;
      fresh.action_tick = p->last_action_tick;
      fresh.scheduled = p->last_action_tick + settings.delay;
      choose_for(fresh, policy, catalog);
      it = states_.insert_or_assign(id, std::move(fresh)).first;
    }
    state& s = it->second;
    if (host.busy(*p) || now < s.scheduled) {
      continue;
    }
    // A candidate that has left the catalog no longer resolves: choose again, retry later.
    if (!s.candidate || !catalog.contains(*s.candidate)) {
      choose_for(s, policy, catalog);
      s.scheduled = now + retry_delay;
      continue;
    }
    const std::string candidate = *s.candidate;
    if (host.play(*p, candidate)) {
      s.last_played = candidate;
      choose_for(s, policy, catalog);
      const std::int64_t k = (now - s.scheduled) / s.settings.delay + 1;
      s.scheduled += k * s.settings.delay;
    } else {
      s.scheduled = now + retry_delay;
    }
  }
  // States of players who are gone (their leave should have called forget).
  for (auto it = states_.begin(); it != states_.end();) {
    it = players.online(it->first) ? std::next(it) : states_.erase(it);
  }
}

void idle_scheduler::forget(std::string_view player) {
  const auto it = states_.find(player);
  if (it != states_.end()) {
    states_.erase(it);
  }
}

const idle_scheduler::state* idle_scheduler::find(std::string_view player) const {
  const auto it = states_.find(player);
  return it == states_.end() ? nullptr : &it->second;
}

void idle_scheduler::describe(core::state_sink& s) const {
  s.begin_object("idle");
  s.u64("rng", rng_.state());
  s.begin_map("players");
  for (const auto& [player, st] : states_) {
    s.begin_object(player);
    s.u64("rule", st.rule);
    s.i64("delay", st.settings.delay);
    s.i64("action_tick", st.action_tick);
    s.i64("scheduled", st.scheduled);
    if (st.candidate) {
      s.str("candidate", *st.candidate);
    } else {
      s.null("candidate");
    }
    if (st.last_played) {
      s.str("last_played", *st.last_played);
    } else {
      s.null("last_played");
    }
    s.end_object();
  }
  s.end_object();
  s.end_object();
}

} // namespace emote::rules
