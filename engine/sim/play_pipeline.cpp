#include "engine/sim/play_pipeline.hpp"

#include "engine/content/loader.hpp"
#include "engine/content/model.hpp"
#include "engine/playback/handles.hpp"
#include "engine/playback/playback.hpp"
#include "engine/playback/prepared.hpp"
#include "engine/playback/selection.hpp"
#include "engine/rules/access.hpp"
#include "engine/rules/cooldowns.hpp"
#include "engine/rules/display_limit.hpp"
#include "engine/rules/play_errors.hpp"
#include "engine/rules/visibility.hpp"
#include "engine/sim/engine.hpp"
#include "engine/sim/partner_matching.hpp"
#include "engine/sim/player_view.hpp"
#include "engine/sim/session_lifecycle.hpp"
#include "engine/sim/session_registry.hpp"
#include "engine/world/player_registry.hpp"

#include <algorithm>
#include <utility>
#include <variant>
#include <vector>

namespace emote::sim {

using api::release_why;
using api::stop_reason;

// ---------------------------------------------------------------------------------------------
// content and replies

engine_content::engine_content() = default;
engine_content::~engine_content() = default;

void engine_content::set(std::shared_ptr<const content::catalog> c, std::size_t bake_budget) {
  catalog = c ? std::move(c) : std::make_shared<const content::catalog>();
  library = std::make_unique<playback::library>(catalog, bake_budget);
  std::vector<std::string> all;
  all.reserve(catalog->size());
  for (const content::catalog_entry& e : catalog->entries()) {
    all.push_back(e.id);
  }
  ids = rules::id_set(std::move(all));
}

api::reply ok_reply(api::tick_number now, api::reply_payload payload) {
  api::reply r;
  r.tick = now;
  r.payload = std::move(payload);
  return r;
}

api::reply error_reply(api::tick_number now, api::error e) {
  api::reply r;
  r.tick = now;
  r.err = std::move(e);
  return r;
}

api::error make_error(api::error_code code, std::string message, std::string path) {
  api::error e;
  e.code = code;
  e.message = std::move(message);
  e.path = std::move(path);
  return e;
}

// ---------------------------------------------------------------------------------------------
// the pipeline

api::reply play_pipeline::play(const api::emote_play& req, api::play_source source) {
  const api::tick_number now = tick_.now;
  const world::player_state* player = players_.find(req.player);
  if (player == nullptr) {
    return error_reply(now, rules::play_error(api::error_code::unknown_player));
  }
  if (source != api::play_source::idle) {
    // A request of the player (idle plays are not: see docs/guide/players-implementation.md).
    players_.touch(req.player, now);
    views_.changed(req.player);
  }
  if (shutting_down_) {
    return error_reply(now,
                       make_error(api::error_code::shutting_down, "The server is shutting down."));
  }
  // 1. Catalog lookup; the policy is never consulted for an unknown id.
  const content::catalog_entry* entry = content_.catalog->find(req.emote);
  if (entry == nullptr) {
    return error_reply(now, rules::play_error(api::error_code::unknown_emote));
  }
  const std::string& id = entry->id;
  // 2a–2c by source.
  rules::play_check check;
  check.source = source;
  check.bypass_requested = req.bypass;
  check.permissions = &player->permissions;
  check.emote = id;
  check.standalone = entry->standalone();
  if (auto refused = policy_.check(check, content_.ids)) {
    return error_reply(now, std::move(*refused));
  }
  // 2d. Cooldown, then 3. the stop-mode claim.
  const bool tracked =
      !rules::skips_cooldown(source, rules::bypass_holder(player->permissions, req.bypass));
  std::int64_t eff = 0;
  if (tracked) {
    eff = policy_.effective_cooldown(player->permissions, id, content_.ids,
                                     entry->cooldown().count());
    eff = std::max<std::int64_t>(0, eff + config_.test_cooldown_skew);
    if (auto refused = cooldowns_.check(player->id, id, now)) {
      return error_reply(now, std::move(*refused));
    }
    cooldowns_.claim(player->id, id, eff);
  }
  const auto release_claim = [&] {
    if (tracked) {
      cooldowns_.release(player->id, id);
    }
  };
  // 4. Any reservation the player holds is released.
  if (session* r = registry_.reserving(player->id)) {
    lifecycle_.release(*r, release_why::restarted);
  }
  std::shared_ptr<const playback::prepared_emote> prepared = content_.library->find(id);
  if (prepared == nullptr) {
    release_claim();
    return error_reply(now, rules::play_error(api::error_code::internal));
  }
  session* current = registry_.participating(player->id);
  // 5. A two-player Sequence by a non-participant: join a compatible offer. The nearest offer
  // it could not join is named in the reply when it becomes an initiator (players.md §7.3).
  std::optional<api::unmatched_offer> unmatched;
  if (prepared->two_player()) {
    if (session* offer = matching_.find_offer(id, *player, &unmatched, current != nullptr);
        offer != nullptr && current == nullptr) {
      matching_.reserve(*offer, *player, tracked, eff);
      return ok_reply(now, api::play_ok{offer->id, id, api::role::partner});
    }
  }
  // 6. Display limit.
  const std::int64_t replaced = current != nullptr ? current->displays : 0;
  const auto added = static_cast<std::int64_t>(prepared->handle_count());
  if (!rules::display_limit_allows(
          config_.max_active_display_entities,
          rules::projected_displays(registry_.displays(), replaced, added))) {
    release_claim();
    return error_reply(now, rules::play_error(api::error_code::display_limit));
  }
  // 7. The current playback is replaced; a session that hid the player passes its stored
  // flag on (the replacement chain, players.md §4).
  std::optional<bool> chain;
  if (current != nullptr) {
    const participant* p = current->find(player->id);
    if (p != nullptr && p->hidden) {
      chain = p->was_invisible;
    }
    lifecycle_.stop(*current, stop_reason::replaced);
  }
  // 8. Start.
  api::reply r =
      start_session(*player, entry->id, std::move(prepared), req, source, tracked, eff, chain);
  if (const auto* started = std::get_if<api::play_ok>(&r.payload);
      started != nullptr && r.ok() && started->role == api::role::initiator) {
    last_unmatched_ = std::move(unmatched);
  }
  return r;
}

api::reply play_pipeline::start_session(const world::player_state& player, const std::string& id,
                                        std::shared_ptr<const playback::prepared_emote> prepared,
                                        const api::emote_play& req, api::play_source source,
                                        bool tracked, std::int64_t eff, std::optional<bool> chain) {
  const api::tick_number now = tick_.now;
  auto owned = std::make_unique<session>();
  session& s = *owned;
  s.id = registry_.next_id();
  s.emote = id;
  s.two_player = prepared->two_player();
  s.settings = prepared->player();
  s.dimension = player.dimension;
  s.start_tick = now;
  s.displays = static_cast<std::int64_t>(prepared->handle_count());
  if (s.two_player) {
    s.remaining = prepared->sequence()->partner->timeout.count();
  }
  s.initiator.player = player.id;
  s.initiator.incarnation = player.incarnation;
  s.initiator.baseline = player.pos;
  s.initiator.tracked = tracked;
  s.initiator.since = now;

  playback::start_info info;
  info.session = s.id;
  info.player = player.id;
  info.dimension = player.dimension;
  info.feet = player.pos;
  info.yaw = player.yaw;
  if (source == api::play_source::api && !s.two_player) {
    info.placement = req.placement;
  }
  info.game_time = now;
  info.generators = playback::make_session_generators(config_.seed, s.id);
  info.right_hand = player.right_hand;
  info.left_hand = player.left_hand;
  info.caches = config_.caches;
  s.pb = std::make_unique<playback::playback>(prepared, std::move(info));
  s.prepared = std::move(prepared);

  // Registered before it starts: a failure while starting stops a registered session.
  registry_.add(std::move(owned));

  playback::tick_context ctx = lifecycle_.context_for(s);
  if (!s.pb->start(pool_, ctx)) {
    // ERROR releases the claim and records no cooldown.
    if (tracked) {
      cooldowns_.release(player.id, id);
    }
    s.initiator.tracked = false;
    const stop_reason why = s.pb->failure_reason();
    const bool molang_failed = s.pb->molang_failed();
    lifecycle_.stop(s, why);
    // players.md §8.6, §6.2: a start over a Molang budget, or whose Molang failed (recursion,
    // a per-evaluation budget), is refused with its own code, not ERROR's `internal`.
    return error_reply(now, rules::play_error(why == stop_reason::molang_budget
                                                  ? api::error_code::molang_budget
                                              : molang_failed ? api::error_code::molang_error
                                                              : api::error_code::internal));
  }
  s.initiator.was_invisible = rules::capture_was_invisible(chain, player.invisible);
  if (s.settings.hidden) {
    s.initiator.hidden = true;
    tick_.records.emplace_back(rules::hide_record(player.id));
  }
  const api::role role = s.two_player ? api::role::initiator : api::role::solo;
  tick_.records.emplace_back(api::ev_playback_started{s.id, player.id, id, role});
  if (tracked) {
    cooldowns_.started(player.id, id, now, eff);
  }
  return ok_reply(now, api::play_ok{s.id, id, role});
}

bool play_pipeline::busy(const world::player_state& p) {
  return registry_.participating(p.id) != nullptr || registry_.reserving(p.id) != nullptr;
}

bool play_pipeline::play(const world::player_state& p, const std::string& emote) {
  api::emote_play req;
  req.player = p.id;
  req.emote = emote;
  req.source = api::play_source::idle;
  return play(req, api::play_source::idle).ok();
}

} // namespace emote::sim
