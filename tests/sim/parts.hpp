#pragma once
// Test support for the engine's parts (engine/sim): the session registry, the players' views,
// the session lifecycle, partner matching and the play pipeline composed as engine::impl composes
// them, over the fixture emotes of tests/data/sim, without the tick phases around them. A test
// calls one part and reads the others' state: the records of the tick in progress, the registry,
// the cooldowns.

#include "support.hpp"

#include "engine/playback/handles.hpp"
#include "engine/playback/playback.hpp"
#include "engine/rules/access.hpp"
#include "engine/rules/cooldowns.hpp"
#include "engine/sim/partner_matching.hpp"
#include "engine/sim/play_pipeline.hpp"
#include "engine/sim/player_view.hpp"
#include "engine/sim/session_lifecycle.hpp"
#include "engine/sim/session_registry.hpp"
#include "engine/world/player_registry.hpp"
#include "engine/world/voxel_world.hpp"

#include <stdexcept>

namespace simtest {

inline rules::access_policy default_policy() {
  auto p = rules::access_policy::compile({}, rules::default_access_rules());
  REQUIRE(p);
  return std::move(*p);
}

struct parts {
  explicit parts(sim::engine_config c = {}, const std::vector<std::string>& extra = {})
      : config(std::move(c)), policy(default_policy()), cooldowns(config.cooldown_mode) {
    content.set(load(extra), config.bake_budget);
    tick.open(config.molang_server_tick_ops);
  }

  sim::engine_config config;
  rules::access_policy policy;
  sim::engine_content content;
  sim::tick_state tick;
  world::player_registry players;
  world::voxel_world world;
  rules::cooldown_table cooldowns;
  playback::handle_pool pool;
  sim::session_registry registry;
  sim::player_views views{players, world, registry, config.caches.mode};
  sim::session_lifecycle lifecycle{config, tick, registry, views, cooldowns};
  sim::partner_matching matching{players, world, registry, cooldowns, lifecycle, tick};
  sim::play_pipeline pipeline{config,    policy, content,   players,  views, registry,
                              cooldowns, pool,   lifecycle, matching, tick};

  void join(const std::string& player, dvec3 pos, float yaw = 0) {
    api::player_join j;
    j.player = player;
    j.fields.position = pos;
    j.fields.yaw = yaw;
    REQUIRE(players.join(j, tick.now));
    views.joined(player);
  }
  api::reply play(const std::string& player, const std::string& emote) {
    api::emote_play p;
    p.player = player;
    p.emote = emote;
    return pipeline.play(p, api::play_source::command);
  }
  /// The records of the tick in progress so far, and forget them.
  strings take_records() {
    strings out;
    for (const auto& e : tick.records) {
      out.push_back(describe(e));
    }
    tick.records.clear();
    return out;
  }
  /// The next tick, with `s`'s playback advanced once as P3 does (no stop conditions).
  void advance(sim::session& s) {
    tick.opened = false;
    ++tick.now;
    tick.open(config.molang_server_tick_ops);
    playback::tick_context ctx = lifecycle.context_for(s);
    s.pb->advance(ctx);
  }
  [[nodiscard]] sim::session& session(api::session_id id) {
    for (const auto& s : registry.sessions()) {
      if (s->id == id) {
        return *s;
      }
    }
    FAIL("no registered session " << id);
    throw std::logic_error("unreachable");
  }
};

} // namespace simtest
