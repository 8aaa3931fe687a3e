#include "engine/sim/engine.hpp"

#include "engine/content/loader.hpp"
#include "engine/content/model.hpp"
#include "engine/playback/handles.hpp"
#include "engine/playback/playback.hpp"
#include "engine/playback/prepared.hpp"
#include "engine/rules/idle.hpp"
#include "engine/rules/play_errors.hpp"
#include "engine/rules/stop_conditions.hpp"
#include "engine/sim/partner_matching.hpp"
#include "engine/sim/play_pipeline.hpp"
#include "engine/sim/player_view.hpp"
#include "engine/sim/session.hpp"
#include "engine/sim/session_lifecycle.hpp"
#include "engine/sim/session_registry.hpp"
#include "engine/world/player_registry.hpp"
#include "engine/world/voxel_world.hpp"

#include <algorithm>
#include <array>
#include <span>
#include <utility>
#include <variant>

namespace emote::sim {

namespace {

using api::release_why;
using api::stop_reason;

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

struct engine::impl {
  impl(std::shared_ptr<const content::catalog> c, engine_config cfg)
      : config(std::move(cfg)), policy(make_policy(config)), cooldowns(config.cooldown_mode),
        idle(config.seed) {
    content.set(std::move(c), config.bake_budget);
  }

  // ----- configuration and content
  engine_config config;
  rules::access_policy policy;
  engine_content content;

  // ----- simulation state
  tick_state tick;
  world::player_registry players;
  world::voxel_world world;
  rules::cooldown_table cooldowns;
  rules::idle_scheduler idle;
  playback::handle_pool pool;

  // ----- the parts
  session_registry registry;
  player_views views{players, world, registry, config.caches.mode};
  session_lifecycle lifecycle{config, tick, registry, views, cooldowns};
  partner_matching matching{players, world, registry, cooldowns, lifecycle, tick};
  play_pipeline pipeline{config,    policy, content,   players,  views, registry,
                         cooldowns, pool,   lifecycle, matching, tick};

  /// The state traversal of engine::describe_state (any sink, or the hasher inlined).
  template <class Sink>
  void describe(Sink& s) const;

  void open_tick() { tick.open(config.molang_server_tick_ops); }
  [[nodiscard]] api::reply ok(api::reply_payload payload) const {
    return ok_reply(tick.now, std::move(payload));
  }
  [[nodiscard]] api::reply refuse(api::error e) const {
    return error_reply(tick.now, std::move(e));
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
    return refuse(
        make_error(api::error_code::bad_request,
                   "entity_id " + std::to_string(id) + " is inside the display entities' range [" +
                       std::to_string(config.display_entity_ids_first) + ", " +
                       std::to_string(config.display_entity_ids_last) + "] (render.entity_id_base)",
                   "$.entity_id"));
  }

  api::reply apply(const api::player_join& j) {
    if (players.online(j.player)) {
      return refuse(make_error(api::error_code::player_exists, "Player is already online."));
    }
    if (auto refused = entity_id_refusal(j.fields.viewer)) {
      return *std::move(refused);
    }
    if (config.max_players > 0 && players.size() >= static_cast<std::size_t>(config.max_players)) {
      return refuse(
          make_error(api::error_code::bad_request,
                     "Too many players online (limit " + std::to_string(config.max_players) + ").",
                     "$.player"));
    }
    auto joined = players.join(j, tick.now);
    if (!joined) {
      return refuse(make_error(api::error_code::player_exists, "Player is already online."));
    }
    views.joined(j.player);
    return ok(api::empty_ok{});
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
      lifecycle.stop(*s, *reason);
    }
  }

  api::reply apply(const api::player_update& u) {
    if (!players.online(u.player)) {
      return refuse(rules::play_error(api::error_code::unknown_player));
    }
    if (auto refused = entity_id_refusal(u.fields.viewer)) {
      return *std::move(refused);
    }
    auto c = players.update(u.player, u.fields, tick.now);
    if (!c) {
      return refuse(rules::play_error(api::error_code::unknown_player));
    }
    after_change(u.player, *c, u.fields.right_hand.has_value() || u.fields.left_hand.has_value());
    return ok(api::empty_ok{});
  }

  api::reply apply(const api::player_event& e) {
    auto c = players.event(e.player, e, tick.now);
    if (!c) {
      return refuse(rules::play_error(api::error_code::unknown_player));
    }
    after_change(e.player, *c, false);
    return ok(api::empty_ok{});
  }

  api::reply apply(const api::player_leave& l) {
    if (!players.online(l.player)) {
      return refuse(rules::play_error(api::error_code::unknown_player));
    }
    if (session* s = registry.participating(l.player)) {
      lifecycle.stop(*s, stop_reason::disconnected);
    }
    if (session* s = registry.reserving(l.player)) {
      lifecycle.release(*s, release_why::disconnected);
    }
    idle.forget(l.player);
    views.left(l.player);
    players.leave(l.player);
    return ok(api::empty_ok{});
  }

  api::reply apply(const api::emote_play& p) { return pipeline.play(p, p.source); }

  api::reply apply(const api::emote_stop& st) {
    if (!players.online(st.player)) {
      return refuse(rules::play_error(api::error_code::unknown_player));
    }
    players.touch(st.player, tick.now);
    views.changed(st.player);
    if (session* s = registry.participating(st.player)) {
      const session_id id = s->id;
      lifecycle.stop(*s, stop_reason::manual);
      return ok(api::stop_ok{id});
    }
    if (session* s = registry.reserving(st.player)) {
      const session_id id = s->id;
      lifecycle.release(*s, release_why::stopped);
      return ok(api::stop_ok{id});
    }
    return refuse(make_error(api::error_code::not_playing, "You are not playing an emote."));
  }

  api::reply apply(const api::emote_stop_all&) {
    return ok(api::count_ok{"stopped", lifecycle.stop_all(stop_reason::manual)});
  }

  api::reply apply(const api::world_blocks& wb) {
    auto changed = world.apply(wb);
    if (!changed) {
      const char* why = changed.error() == world::world_error::fill_too_large
                            ? "The box covers too many cells."
                            : "The world would hold too many blocks.";
      return refuse(make_error(api::error_code::bad_request, why, "$.set"));
    }
    return ok(api::count_ok{"changed", *changed});
  }

  api::reply apply(const api::world_clear& wc) {
    const std::int64_t n = wc.dimension ? world.clear(*wc.dimension) : world.clear_all();
    return ok(api::count_ok{"cleared", n});
  }

  api::reply apply(const api::cooldown_clear& cc) {
    return ok(api::count_ok{"cleared", cooldowns.clear(cc.player)});
  }

  api::reply apply(const api::emote_unregister& u) {
    if (content.catalog->find(u.emote) == nullptr) {
      return refuse(rules::play_error(api::error_code::unknown_emote));
    }
    for (session* s : registry.walk()) {
      if (!s->stopped && s->emote == u.emote) {
        lifecycle.stop(*s, stop_reason::emote_removed);
      }
    }
    content.set(content::unregister(*content.catalog, u.emote), config.bake_budget);
    return ok(api::empty_ok{});
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
        lifecycle.stop(*s, *reason);
      }
    }
  }

  void advance() {
    for (session* s : registry.walk()) {
      if (s->stopped || s->start_tick == tick.now) {
        continue;
      }
      playback::playback& pb = *s->pb;
      playback::tick_context ctx = lifecycle.context_for(*s);
      if (const world::player_state* i = players.find(s->initiator.player)) {
        if (pb.follows()) {
          pb.follow(ctx, i->pos, i->yaw);
        }
      }
      pb.release_deferred_visibility(ctx);
      pb.advance(ctx);
      if (pb.failed()) {
        lifecycle.stop(*s, pb.failure_reason());
      } else if (pb.finished()) {
        lifecycle.stop(*s, stop_reason::finished);
      }
    }
  }

  void emit() {
    // Per session in creation order (registered and stopped in this tick alike).
    registry.for_each_in_creation_order([&](session& s) { s.pb->emit(tick.out.events); });
    for (api::event& e : tick.records) {
      tick.out.events.push_back(std::move(e));
    }
    tick.records.clear();
  }

  frame& step() {
    open_tick();
    // End of P1: the idle pass.
    if (tick.now % 10 == 0 && !pipeline.shutting_down()) {
      idle.run(tick.now, players, policy, content.ids, pipeline);
    }
    polls();         // P2
    advance();       // P3
    matching.step(); // P4
    emit();          // P5
    registry.clear_ended([&](session& s) { s.pb->release_handles(pool); });
    ++tick.now;
    players.begin_tick();
    tick.opened = false;
    return tick.out;
  }
};

// ---------------------------------------------------------------------------------------------

engine::engine(std::shared_ptr<const content::catalog> catalog, engine_config config)
    : impl_(std::make_unique<impl>(std::move(catalog), std::move(config))) {}

engine::~engine() = default;

tick_number engine::tick() const noexcept {
  return impl_->tick.now;
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
  impl_->pipeline.forget_unmatched();
  return stamp_tick(impl_->tick.now, [&] {
    return std::visit([this](const auto& v) { return impl_->apply(v); }, in);
  });
}

const std::optional<api::unmatched_offer>& engine::last_unmatched() const noexcept {
  return impl_->pipeline.last_unmatched();
}

frame& engine::step() {
  return stamp_tick(impl_->tick.now, [&]() -> frame& { return impl_->step(); });
}

void engine::reload(std::shared_ptr<const content::catalog> catalog) {
  impl_->open_tick();
  impl_->lifecycle.stop_all(stop_reason::reload);
  impl_->content.set(std::move(catalog), impl_->config.bake_budget);
}

void engine::replace_catalog(std::shared_ptr<const content::catalog> catalog) {
  impl_->open_tick();
  impl_->content.set(std::move(catalog), impl_->config.bake_budget);
}

void engine::shutdown() {
  impl_->open_tick();
  impl_->lifecycle.stop_all(stop_reason::server_stopping);
  impl_->idle.clear();
  impl_->pipeline.shut_down();
}

const content::catalog& engine::catalog() const noexcept {
  return *impl_->content.catalog;
}

std::shared_ptr<const content::catalog> engine::catalog_ptr() const noexcept {
  return impl_->content.catalog;
}

template <class Sink>
void engine::impl::describe(Sink& s) const {
  const impl& m = *this;
  s.begin_object("");
  s.i64("tick", m.tick.now);
  m.registry.describe_counters(s);
  s.boolean("shutting_down", m.pipeline.shutting_down());
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
    e.dimension = p.dimension;
    e.position = p.pos;
    e.yaw = p.yaw;
    e.name = p.name;
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
  for (auto& c : m.cooldowns.entries(m.tick.now)) {
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
