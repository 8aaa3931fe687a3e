#include "engine/sim/engine.hpp"

#include "engine/content/loader.hpp"
#include "engine/content/model.hpp"
#include "engine/playback/handles.hpp"
#include "engine/playback/playback.hpp"
#include "engine/playback/prepared.hpp"
#include "engine/playback/selection.hpp"
#include "engine/rules/display_limit.hpp"
#include "engine/rules/id_set.hpp"
#include "engine/rules/idle.hpp"
#include "engine/rules/partner.hpp"
#include "engine/rules/play_errors.hpp"
#include "engine/rules/stop_conditions.hpp"
#include "engine/rules/visibility.hpp"
#include "engine/sim/player_view.hpp"
#include "engine/sim/session.hpp"
#include "engine/sim/session_registry.hpp"
#include "engine/world/eye.hpp"
#include "engine/world/player_registry.hpp"
#include "engine/world/voxel_world.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <span>
#include <utility>
#include <variant>

namespace emote::sim {

namespace {

using api::release_why;
using api::stop_reason;
using playback::session_phase;

api::error make_error(api::error_code code, std::string message, std::string path = {}) {
  api::error e;
  e.code = code;
  e.message = std::move(message);
  e.path = std::move(path);
  return e;
}

rules::id_set catalog_ids(const content::catalog& c) {
  std::vector<std::string> ids;
  ids.reserve(c.size());
  for (const content::catalog_entry& e : c.entries()) {
    ids.push_back(e.id);
  }
  return rules::id_set(std::move(ids));
}

rules::access_policy make_policy(const engine_config& config) {
  auto compiled = rules::access_policy::compile(config.disabled, config.permissions);
  if (compiled) {
    return std::move(*compiled);
  }
  // An invalid configuration is the caller's error (validate()); keep `disabled`, default rules.
  auto fallback = rules::access_policy::compile(config.disabled, rules::default_access_rules());
  return fallback ? std::move(*fallback) : rules::access_policy();
}

std::string_view cooldown_state_name(rules::cooldown_state s) noexcept {
  switch (s) {
  case rules::cooldown_state::cooldown:
    return "cooldown";
  case rules::cooldown_state::in_use:
    return "in_use";
  case rules::cooldown_state::cooling_down:
    return "cooling_down";
  case rules::cooldown_state::available:
    break;
  }
  return "available";
}

} // namespace

// ---------------------------------------------------------------------------------------------

struct engine::impl final : rules::idle_host {
  impl(std::shared_ptr<const content::catalog> c, engine_config cfg)
      : config(std::move(cfg)), policy(make_policy(config)), cooldowns(config.cooldown_mode),
        idle(config.seed) {
    set_catalog(c ? std::move(c) : std::make_shared<const content::catalog>());
  }

  // ----- configuration and content
  engine_config config;
  rules::access_policy policy;
  std::shared_ptr<const content::catalog> catalog;
  std::unique_ptr<playback::library> library;
  rules::id_set ids;

  // ----- simulation state
  tick_number now = 0;
  world::player_registry players;
  world::voxel_world world;
  rules::cooldown_table cooldowns;
  rules::idle_scheduler idle;
  playback::handle_pool pool;
  bool shutting_down = false;
  /// The nearest offer the last emote.play that became an initiator did not join (engine.hpp).
  std::optional<api::unmatched_offer> last_unmatched;
  session_registry registry;
  player_views views{players, world, registry, config.caches.mode};

  /// The state traversal of engine::describe_state (any sink, or the hasher inlined).
  template <class Sink>
  void describe(Sink& s) const;

  // ----- output of the tick in progress
  /// The frame being built: command and callback records are appended as they run; P5 adds the
  /// display records and then `records`.
  frame out;
  /// players.md §9 records in the order they arose.
  std::vector<api::event> records;
  bool open = false;
  /// players.md §8.6: Molang operations all sessions may still execute in this tick.
  std::uint64_t server_ops_left = 0;

  // =============================================================================================
  // content

  void set_catalog(std::shared_ptr<const content::catalog> c) {
    catalog = std::move(c);
    library = std::make_unique<playback::library>(catalog, config.bake_budget);
    ids = catalog_ids(*catalog);
  }

  // =============================================================================================
  // tick bookkeeping

  /// The first mutation of a tick drops the previous frame (its reference is no longer valid).
  void open_tick() {
    if (open) {
      return;
    }
    open = true;
    out.tick = now;
    out.events.clear();
    records.clear();
    server_ops_left = config.molang_server_tick_ops;
  }

  playback::tick_context context_for(const session& s) {
    return playback::tick_context{now, views.view(s.initiator.player, s.id, now), &out.events,
                                  config.molang_session_tick_ops == 0
                                      ? molang::unlimited_ops
                                      : config.molang_session_tick_ops,
                                  config.molang_server_tick_ops == 0 ? nullptr : &server_ops_left};
  }

  // =============================================================================================
  // stops and releases

  /// A stop (players.md §3.6), at most once per session.
  void stop(session& s, stop_reason reason) {
    if (s.stopped) {
      return;
    }
    s.stopped = true;
    // 1. Out of the registry (its displays no longer count; their removal is emitted in P5); a
    // reservation is dropped.
    registry.detach(s);
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
      cooldowns.stopped(s.initiator.player, s.emote, now);
    }
    if (s.partner && s.partner->tracked) {
      cooldowns.stopped(s.partner->player, s.emote, now);
    }
  }

  void stopped_records(const session& s, const participant& p, stop_reason reason) {
    if (p.hidden) {
      records.emplace_back(rules::restore_record(p.player, p.was_invisible));
    }
    records.emplace_back(api::ev_playback_stopped{s.id, p.player, s.emote, reason});
  }

  /// Drop the session's reservation (players.md §7.5): `partner.released`, nothing to the player;
  /// in stop mode the partner's IN_USE claim goes back to AVAILABLE.
  void release(session& s, release_why why) {
    if (!s.reserved) {
      return;
    }
    reservation r = std::move(*s.reserved);
    s.reserved.reset();
    registry.drop_reservation(s, r.player);
    records.emplace_back(api::ev_partner_released{s.id, s.initiator.player, r.player, why});
    if (r.tracked) {
      cooldowns.release(r.player, s.emote);
    }
  }

  /// Stop every registered session in creation order.
  std::int64_t stop_all(stop_reason reason) {
    std::int64_t n = 0;
    for (session* s : registry.walk()) {
      if (!s->stopped) {
        stop(*s, reason);
        ++n;
      }
    }
    return n;
  }

  // =============================================================================================
  // two-player logic (players.md §7)

  [[nodiscard]] bool recheck(const session& s) const {
    const world::player_state* i = players.find(s.initiator.player);
    const world::player_state* p = players.find(s.reserved->player);
    return rules::can_pair(i, p, world);
  }

  /// players.md §7.3: the compatible offer with the nearest initiator; ties go to the earliest
  /// created. With `miss`, the nearest offer of the emote that was no candidate is named there
  /// with the first condition it failed (the reply of a new initiator says it, §7.3). A
  /// `participant` P never joins: then only `miss` is filled.
  session* find_offer(std::string_view emote, const world::player_state& p,
                      std::optional<api::unmatched_offer>* miss, bool participant) const {
    session* best = nullptr;
    double best_d = 0;
    const session* near = nullptr;
    api::match_failure near_why = api::match_failure::participant;
    double near_d = 0;
    for (const auto& sp : registry.sessions()) {
      session& s = *sp;
      if (s.stopped || !s.two_player || s.reserved || s.emote != emote) {
        continue;
      }
      const session_phase phase = s.phase();
      if (phase != session_phase::offering && phase != session_phase::waiting) {
        continue;
      }
      const world::player_state* i = players.find(s.initiator.player);
      const auto failed = participant ? std::optional(api::match_failure::participant)
                                      : rules::pair_failure(i, &p, world);
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

  /// players.md §7.5: P becomes the session's reserved partner.
  void reserve(session& s, const world::player_state& p, bool tracked, std::int64_t eff) {
    s.reserved = reservation{p.id, p.pos, p.invisible, now, tracked};
    registry.add_reservation(s, p.id);
    records.emplace_back(api::ev_partner_reserved{s.id, s.initiator.player, p.id});
    if (tracked) {
      cooldowns.started(p.id, s.emote, now, eff);
    }
  }

  /// Re-check the reservation: MATCHED, or a release with `recheck_failed`. Returns whether it
  /// matched.
  bool resolve_reservation(session& s) {
    if (recheck(s)) {
      activate(s);
      return true;
    }
    release(s, release_why::recheck_failed);
    return false;
  }

  /// players.md §7.8 MATCHED, all in this tick.
  void activate(session& s) {
    reservation r = std::move(*s.reserved);
    s.reserved.reset();
    registry.drop_reservation(s, r.player);
    const world::player_state* p = players.find(r.player);
    // 1. The matched branch starts at its tick 0.
    playback::tick_context ctx = context_for(s);
    const bool ok = s.pb->start_branch(api::branch::matched, ctx);
    // 2. P becomes a participant with its reservation-time baseline and flag.
    participant part;
    part.player = r.player;
    part.incarnation = p != nullptr ? p->incarnation : 0;
    part.baseline = r.baseline;
    part.was_invisible = r.invisible;
    part.tracked = r.tracked;
    part.since = now;
    s.partner = std::move(part);
    registry.add_participant(s, s.partner->player);
    // 3. Partner-space item nodes show P's items; the partner space becomes active.
    if (p != nullptr) {
      s.pb->set_hand_items(content::participant::partner, p->right_hand, p->left_hand);
    }
    s.pb->activate_partner_space();
    // 4. partner.matched, P's hide record, playback.started.
    records.emplace_back(api::ev_partner_matched{s.id, s.initiator.player, s.partner->player});
    if (s.settings.hidden) {
      s.partner->hidden = true;
      records.emplace_back(rules::hide_record(s.partner->player));
    }
    records.emplace_back(
        api::ev_playback_started{s.id, s.partner->player, s.emote, api::role::partner});
    if (!ok) {
      stop(s, s.pb->failure_reason());
    }
  }

  /// players.md §7.8 TIMEOUT.
  void time_out(session& s) {
    records.emplace_back(api::ev_partner_timeout{s.id, s.initiator.player});
    playback::tick_context ctx = context_for(s);
    if (!s.pb->start_branch(api::branch::timeout, ctx)) {
      stop(s, s.pb->failure_reason());
    }
  }

  // =============================================================================================
  // the play pipeline (players.md §6)

  api::reply ok_reply(api::reply_payload payload) const {
    api::reply r;
    r.tick = now;
    r.payload = std::move(payload);
    return r;
  }
  api::reply error_reply(api::error e) const {
    api::reply r;
    r.tick = now;
    r.err = std::move(e);
    return r;
  }

  api::reply play(const api::emote_play& req, api::play_source source) {
    const world::player_state* player = players.find(req.player);
    if (player == nullptr) {
      return error_reply(rules::play_error(api::error_code::unknown_player));
    }
    if (source != api::play_source::idle) {
      // A request of the player (idle plays are not: see docs/guide/players-implementation.md).
      players.touch(req.player, now);
      views.changed(req.player);
    }
    if (shutting_down) {
      return error_reply(
          make_error(api::error_code::shutting_down, "The server is shutting down."));
    }
    // 1. Catalog lookup; the policy is never consulted for an unknown id.
    const content::catalog_entry* entry = catalog->find(req.emote);
    if (entry == nullptr) {
      return error_reply(rules::play_error(api::error_code::unknown_emote));
    }
    const std::string& id = entry->id;
    // 2a–2c by source.
    rules::play_check check;
    check.source = source;
    check.bypass_requested = req.bypass;
    check.permissions = &player->permissions;
    check.emote = id;
    check.standalone = entry->standalone();
    if (auto refused = policy.check(check, ids)) {
      return error_reply(std::move(*refused));
    }
    // 2d. Cooldown, then 3. the stop-mode claim.
    const bool tracked =
        !rules::skips_cooldown(source, rules::bypass_holder(player->permissions, req.bypass));
    std::int64_t eff = 0;
    if (tracked) {
      eff = policy.effective_cooldown(player->permissions, id, ids, entry->cooldown().count());
      eff = std::max<std::int64_t>(0, eff + config.test_cooldown_skew);
      if (auto refused = cooldowns.check(player->id, id, now)) {
        return error_reply(std::move(*refused));
      }
      cooldowns.claim(player->id, id, eff);
    }
    const auto release_claim = [&] {
      if (tracked) {
        cooldowns.release(player->id, id);
      }
    };
    // 4. Any reservation the player holds is released.
    if (session* r = registry.reserving(player->id)) {
      release(*r, release_why::restarted);
    }
    std::shared_ptr<const playback::prepared_emote> prepared = library->find(id);
    if (prepared == nullptr) {
      release_claim();
      return error_reply(rules::play_error(api::error_code::internal));
    }
    session* current = registry.participating(player->id);
    // 5. A two-player Sequence by a non-participant: join a compatible offer. The nearest offer
    // it could not join is named in the reply when it becomes an initiator (players.md §7.3).
    std::optional<api::unmatched_offer> unmatched;
    if (prepared->two_player()) {
      if (session* offer = find_offer(id, *player, &unmatched, current != nullptr);
          offer != nullptr && current == nullptr) {
        reserve(*offer, *player, tracked, eff);
        const session_id sid = offer->id;
        if (offer->phase() == session_phase::waiting) {
          resolve_reservation(*offer);
        }
        return ok_reply(api::play_ok{sid, id, api::role::partner});
      }
    }
    // 6. Display limit.
    const std::int64_t replaced = current != nullptr ? current->displays : 0;
    const auto added = static_cast<std::int64_t>(prepared->handle_count());
    if (!rules::display_limit_allows(config.max_active_display_entities,
                                     rules::projected_displays(registry.displays(), replaced, added))) {
      release_claim();
      return error_reply(rules::play_error(api::error_code::display_limit));
    }
    // 7. The current playback is replaced; a session that hid the player passes its stored
    // flag on (the replacement chain, players.md §4).
    std::optional<bool> chain;
    if (current != nullptr) {
      const participant* p = current->find(player->id);
      if (p != nullptr && p->hidden) {
        chain = p->was_invisible;
      }
      stop(*current, stop_reason::replaced);
    }
    // 8. Start.
    api::reply r =
        start_session(*player, entry->id, std::move(prepared), req, source, tracked, eff, chain);
    if (const auto* started = std::get_if<api::play_ok>(&r.payload);
        started != nullptr && r.ok() && started->role == api::role::initiator) {
      last_unmatched = std::move(unmatched);
    }
    return r;
  }

  api::reply start_session(const world::player_state& player, const std::string& id,
                           std::shared_ptr<const playback::prepared_emote> prepared,
                           const api::emote_play& req, api::play_source source, bool tracked,
                           std::int64_t eff, std::optional<bool> chain) {
    auto owned = std::make_unique<session>();
    session& s = *owned;
    s.id = registry.next_id();
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
    info.generators = playback::make_session_generators(config.seed, s.id);
    info.right_hand = player.right_hand;
    info.left_hand = player.left_hand;
    info.caches = config.caches;
    s.pb = std::make_unique<playback::playback>(prepared, std::move(info));
    s.prepared = std::move(prepared);

    // Registered before it starts: a failure while starting stops a registered session.
    registry.add(std::move(owned));

    playback::tick_context ctx = context_for(s);
    if (!s.pb->start(pool, ctx)) {
      // ERROR releases the claim and records no cooldown.
      if (tracked) {
        cooldowns.release(player.id, id);
      }
      s.initiator.tracked = false;
      const stop_reason why = s.pb->failure_reason();
      const bool molang_failed = s.pb->molang_failed();
      stop(s, why);
      // players.md §8.6, §6.2: a start over a Molang budget, or whose Molang failed (recursion,
      // a per-evaluation budget), is refused with its own code, not ERROR's `internal`.
      return error_reply(rules::play_error(why == stop_reason::molang_budget
                                               ? api::error_code::molang_budget
                                           : molang_failed
                                               ? api::error_code::molang_error
                                               : api::error_code::internal));
    }
    s.initiator.was_invisible = rules::capture_was_invisible(chain, player.invisible);
    if (s.settings.hidden) {
      s.initiator.hidden = true;
      records.emplace_back(rules::hide_record(player.id));
    }
    const api::role role = s.two_player ? api::role::initiator : api::role::solo;
    records.emplace_back(api::ev_playback_started{s.id, player.id, id, role});
    if (tracked) {
      cooldowns.started(player.id, id, now, eff);
    }
    return ok_reply(api::play_ok{s.id, id, role});
  }

  // idle_host
  bool busy(const world::player_state& p) override {
    return registry.participating(p.id) != nullptr || registry.reserving(p.id) != nullptr;
  }
  bool play(const world::player_state& p, const std::string& emote) override {
    api::emote_play req;
    req.player = p.id;
    req.emote = emote;
    req.source = api::play_source::idle;
    return play(req, api::play_source::idle).ok();
  }

  // =============================================================================================
  // P1 inputs

  /// render.md §2: a player's entity id must not be one a display entity may take.
  std::optional<api::reply> entity_id_refusal(const api::viewer_fields& v) const {
    if (!v.entity_id || !*v.entity_id) {
      return std::nullopt;
    }
    const std::int64_t id = **v.entity_id;
    if (id < config.display_entity_ids_first || id > config.display_entity_ids_last) {
      return std::nullopt;
    }
    return error_reply(make_error(
        api::error_code::bad_request,
        "entity_id " + std::to_string(id) + " is inside the display entities' range [" +
            std::to_string(config.display_entity_ids_first) + ", " +
            std::to_string(config.display_entity_ids_last) + "] (render.entity_id_base)",
        "$.entity_id"));
  }

  api::reply apply(const api::player_join& j) {
    if (players.online(j.player)) {
      return error_reply(make_error(api::error_code::player_exists, "Player is already online."));
    }
    if (auto refused = entity_id_refusal(j.fields.viewer)) {
      return *std::move(refused);
    }
    if (config.max_players > 0 && players.size() >= static_cast<std::size_t>(config.max_players)) {
      return error_reply(
          make_error(api::error_code::bad_request,
                     "Too many players online (limit " + std::to_string(config.max_players) + ").",
                     "$.player"));
    }
    auto joined = players.join(j, now);
    if (!joined) {
      return error_reply(make_error(api::error_code::player_exists, "Player is already online."));
    }
    views.joined(j.player);
    return ok_reply(api::empty_ok{});
  }

  /// After a participant's update or event: equipment refresh and event conditions
  /// (players.md §3.3).
  void after_change(const std::string& player, const world::change& c, bool hands) {
    views.changed(player);
    session* s = registry.participating(player);
    if (s == nullptr) {
      return;
    }
    if (hands) {
      if (const world::player_state* p = players.find(player)) {
        const content::participant who = s->initiator.player == player
                                             ? content::participant::initiator
                                             : content::participant::partner;
        s->pb->set_hand_items(who, p->right_hand, p->left_hand);
      }
    }
    if (auto reason = rules::first_event_stop(c.events, s->settings.stop_conditions)) {
      stop(*s, *reason);
    }
  }

  api::reply apply(const api::player_update& u) {
    if (!players.online(u.player)) {
      return error_reply(rules::play_error(api::error_code::unknown_player));
    }
    if (auto refused = entity_id_refusal(u.fields.viewer)) {
      return *std::move(refused);
    }
    auto c = players.update(u.player, u.fields, now);
    if (!c) {
      return error_reply(rules::play_error(api::error_code::unknown_player));
    }
    after_change(u.player, *c, u.fields.right_hand.has_value() || u.fields.left_hand.has_value());
    return ok_reply(api::empty_ok{});
  }

  api::reply apply(const api::player_event& e) {
    auto c = players.event(e.player, e, now);
    if (!c) {
      return error_reply(rules::play_error(api::error_code::unknown_player));
    }
    after_change(e.player, *c, false);
    return ok_reply(api::empty_ok{});
  }

  api::reply apply(const api::player_leave& l) {
    if (!players.online(l.player)) {
      return error_reply(rules::play_error(api::error_code::unknown_player));
    }
    if (session* s = registry.participating(l.player)) {
      stop(*s, stop_reason::disconnected);
    }
    if (session* s = registry.reserving(l.player)) {
      release(*s, release_why::disconnected);
    }
    idle.forget(l.player);
    views.left(l.player);
    players.leave(l.player);
    return ok_reply(api::empty_ok{});
  }

  api::reply apply(const api::emote_play& p) { return play(p, p.source); }

  api::reply apply(const api::emote_stop& st) {
    if (!players.online(st.player)) {
      return error_reply(rules::play_error(api::error_code::unknown_player));
    }
    players.touch(st.player, now);
    views.changed(st.player);
    if (session* s = registry.participating(st.player)) {
      const session_id id = s->id;
      stop(*s, stop_reason::manual);
      return ok_reply(api::stop_ok{id});
    }
    if (session* s = registry.reserving(st.player)) {
      const session_id id = s->id;
      release(*s, release_why::stopped);
      return ok_reply(api::stop_ok{id});
    }
    return error_reply(make_error(api::error_code::not_playing, "You are not playing an emote."));
  }

  api::reply apply(const api::emote_stop_all&) {
    return ok_reply(api::count_ok{"stopped", stop_all(stop_reason::manual)});
  }

  api::reply apply(const api::world_blocks& wb) {
    auto changed = world.apply(wb);
    if (!changed) {
      const char* why = changed.error() == world::world_error::fill_too_large
                            ? "The box covers too many cells."
                            : "The world would hold too many blocks.";
      return error_reply(make_error(api::error_code::bad_request, why, "$.set"));
    }
    return ok_reply(api::count_ok{"changed", *changed});
  }

  api::reply apply(const api::world_clear& wc) {
    const std::int64_t n = wc.dimension ? world.clear(*wc.dimension) : world.clear_all();
    return ok_reply(api::count_ok{"cleared", n});
  }

  api::reply apply(const api::cooldown_clear& cc) {
    return ok_reply(api::count_ok{"cleared", cooldowns.clear(cc.player)});
  }

  api::reply apply(const api::emote_unregister& u) {
    if (catalog->find(u.emote) == nullptr) {
      return error_reply(rules::play_error(api::error_code::unknown_emote));
    }
    for (session* s : registry.walk()) {
      if (!s->stopped && s->emote == u.emote) {
        stop(*s, stop_reason::emote_removed);
      }
    }
    set_catalog(content::unregister(*catalog, u.emote));
    return ok_reply(api::empty_ok{});
  }

  // =============================================================================================
  // P2–P5

  void polls() {
    for (session* s : registry.walk()) {
      if (s->stopped) {
        continue;
      }
      std::array<rules::poll_subject, 2> who{};
      std::size_t n = 0;
      who[n++] = rules::poll_subject{players.find(s->initiator.player), s->initiator.incarnation,
                                     s->initiator.baseline};
      if (s->partner) {
        who[n++] = rules::poll_subject{players.find(s->partner->player), s->partner->incarnation,
                                       s->partner->baseline};
      }
      if (auto reason = rules::poll_session(std::span(who.data(), n), s->settings.stop_conditions,
                                            s->dimension, world)) {
        stop(*s, *reason);
      }
    }
  }

  void advance() {
    for (session* s : registry.walk()) {
      if (s->stopped || s->start_tick == now) {
        continue;
      }
      playback::playback& pb = *s->pb;
      playback::tick_context ctx = context_for(*s);
      if (const world::player_state* i = players.find(s->initiator.player)) {
        if (pb.follows()) {
          pb.follow(ctx, i->pos, i->yaw);
        }
      }
      pb.release_deferred_visibility(ctx);
      pb.advance(ctx);
      if (pb.failed()) {
        stop(*s, pb.failure_reason());
      } else if (pb.finished()) {
        stop(*s, stop_reason::finished);
      }
    }
  }

  void partner_logic() {
    for (session* s : registry.walk()) {
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

  void emit() {
    // Per session in creation order (registered and stopped in this tick alike).
    registry.for_each_in_creation_order([&](session& s) { s.pb->emit(out.events); });
    for (api::event& e : records) {
      out.events.push_back(std::move(e));
    }
    records.clear();
  }

  frame& step() {
    open_tick();
    // End of P1: the idle pass.
    if (now % 10 == 0 && !shutting_down) {
      idle.run(now, players, policy, ids, *this);
    }
    polls();         // P2
    advance();       // P3
    partner_logic(); // P4
    emit();          // P5
    registry.clear_ended([&](session& s) { s.pb->release_handles(pool); });
    ++now;
    players.begin_tick();
    open = false;
    return out;
  }
};

// ---------------------------------------------------------------------------------------------

engine::engine(std::shared_ptr<const content::catalog> catalog, engine_config config)
    : impl_(std::make_unique<impl>(std::move(catalog), std::move(config))) {}

engine::~engine() = default;

tick_number engine::tick() const noexcept {
  return impl_->now;
}

namespace {
/// A cache check that failed below names the tick it failed in.
template <class F>
decltype(auto) stamp_tick(tick_number now, F&& f) {
  try {
    return f();
  } catch (core::cache_mismatch& e) {
    if (!e.tick) {
      e.tick = now;
    }
    throw;
  }
}
} // namespace

reply engine::apply(const input& in) {
  impl_->open_tick();
  impl_->last_unmatched.reset();
  return stamp_tick(impl_->now, [&] {
    return std::visit([this](const auto& v) { return impl_->apply(v); }, in);
  });
}

const std::optional<api::unmatched_offer>& engine::last_unmatched() const noexcept {
  return impl_->last_unmatched;
}

frame& engine::step() {
  return stamp_tick(impl_->now, [&]() -> frame& { return impl_->step(); });
}

void engine::reload(std::shared_ptr<const content::catalog> catalog) {
  impl_->open_tick();
  impl_->stop_all(stop_reason::reload);
  impl_->set_catalog(catalog ? std::move(catalog) : std::make_shared<const content::catalog>());
}

void engine::replace_catalog(std::shared_ptr<const content::catalog> catalog) {
  impl_->open_tick();
  impl_->set_catalog(catalog ? std::move(catalog) : std::make_shared<const content::catalog>());
}

void engine::shutdown() {
  impl_->open_tick();
  impl_->stop_all(stop_reason::server_stopping);
  impl_->idle.clear();
  impl_->shutting_down = true;
}

const content::catalog& engine::catalog() const noexcept {
  return *impl_->catalog;
}

std::shared_ptr<const content::catalog> engine::catalog_ptr() const noexcept {
  return impl_->catalog;
}

template <class Sink>
void engine::impl::describe(Sink& s) const {
  const impl& m = *this;
  s.begin_object("");
  s.i64("tick", m.now);
  m.registry.describe_counters(s);
  s.boolean("shutting_down", m.shutting_down);
  m.players.describe(s);
  m.registry.describe_sessions(s);
  m.cooldowns.describe(s);
  m.idle.describe(s);
  m.pool.describe(s);
  m.world.describe(s);
  s.end_object();
}

void engine::describe_state(core::state_sink& s) const {
  impl_->describe(s);
}

std::uint64_t engine::state_digest(bool fresh) const {
  core::state_hasher h;
  h.set_fresh(fresh);
  impl_->describe(h);
  return h.digest();
}

state_snapshot engine::state(const state_query& query) const {
  const impl& m = *impl_;
  state_snapshot out;
  // The reported players' keys, sorted: everyone (no filter), one, or a page in key order.
  std::vector<std::string_view> page;
  const bool everyone = !query.player && query.limit == 0;
  const auto report = [&](const world::player_state& p) {
    state_snapshot::player_entry e;
    e.player = p.id;
    if (const session* s = m.registry.participating(p.id)) {
      e.session = s->id;
      e.role = s->initiator.player == p.id
                   ? (s->two_player ? api::role::initiator : api::role::solo)
                   : api::role::partner;
    } else if (const session* r = m.registry.reserving(p.id)) {
      e.session = r->id;
      e.role = api::role::partner;
      e.reserved = true;
    }
    out.players.push_back(std::move(e));
  };
  if (query.player) {
    if (const world::player_state* p = m.players.find(*query.player)) {
      report(*p);
    }
    page.emplace_back(*query.player);
  } else if (query.limit > 0) {
    m.players.for_each_after(query.after.value_or(std::string()),
                             [&](const world::player_state& p) {
                               if (out.players.size() == query.limit) {
                                 out.next = out.players.back().player;
                                 return false;
                               }
                               report(p);
                               return true;
                             });
    for (const auto& e : out.players) {
      page.emplace_back(e.player); // already ascending
    }
  } else {
    m.players.for_each(report);
  }
  const auto wanted = [&](std::string_view id) {
    return everyone || std::binary_search(page.begin(), page.end(), id);
  };
  for (const auto& sp : m.registry.sessions()) {
    const session& s = *sp;
    const bool involved = wanted(s.initiator.player) || (s.partner && wanted(s.partner->player)) ||
                          (s.reserved && wanted(s.reserved->player));
    if (!involved) {
      continue;
    }
    state_snapshot::session_entry e;
    e.session = s.id;
    e.emote = s.emote;
    e.state = std::string(playback::name(s.phase()));
    e.tick = s.pb->ticks_advanced();
    e.initiator = s.initiator.player;
    if (s.partner) {
      e.partner = s.partner->player;
    } else if (s.reserved) {
      e.partner = s.reserved->player;
    }
    out.sessions.push_back(std::move(e));
  }
  for (auto& c : m.cooldowns.entries(m.now)) {
    if (!wanted(c.player)) {
      continue;
    }
    state_snapshot::cooldown_entry e;
    e.player = std::move(c.player);
    e.emote = std::move(c.emote);
    e.state = std::string(cooldown_state_name(c.status.state));
    e.remaining_ticks =
        c.status.state == rules::cooldown_state::in_use ? c.status.eff : c.status.remaining;
    out.cooldowns.push_back(std::move(e));
  }
  return out;
}

std::int64_t engine::active_displays() const noexcept {
  return impl_->registry.displays();
}

std::size_t engine::player_count() const noexcept {
  return impl_->players.size();
}

void engine::players(std::vector<const world::player_state*>& out) const {
  out.clear();
  impl_->players.for_each([&](const world::player_state& p) { out.push_back(&p); });
}

std::size_t engine::session_count() const noexcept {
  return impl_->registry.size();
}

} // namespace emote::sim
