#pragma once
// Test support: the content builder (builder.hpp) and a small harness that drives playbacks
// through the engine's tick phases (playback.md §1.3) the way engine/sim does.

#include "engine/playback/playback.hpp"
#include "tests/playback/builder.hpp"

#include <doctest/doctest.h>

#include <functional>
#include <optional>
#include <variant>

namespace fixture {

using namespace emote;

// ---------------------------------------------------------------------------------------------
// The harness: one engine-like tick loop over playbacks.

struct session_entry {
  std::unique_ptr<playback::playback> pb;
  api::tick_number started = 0;
  bool done = false;
};

class harness {
public:
  api::tick_number tick = 0;
  playback::handle_pool pool;
  molang::player_view player;
  core::dvec3 feet{0, 64, 0};
  float yaw = 180;
  std::int64_t game_time_offset = 0; ///< game time = tick + offset
  std::vector<session_entry> sessions;
  std::int64_t session_counter = 0;

  /// P1: start a playback now (solo), as the engine's play pipeline would.
  playback::playback& play(std::shared_ptr<const playback::prepared_emote> emote,
                           playback::int_source* draws = nullptr,
                           std::optional<api::placement> placement = std::nullopt) {
    playback::start_info info;
    info.session = ++session_counter;
    info.player = "alice";
    info.dimension = "minecraft:overworld";
    info.feet = feet;
    info.yaw = yaw;
    info.placement = placement;
    info.game_time = tick + game_time_offset;
    info.generators = playback::make_session_generators(0, info.session);
    auto pb = std::make_unique<playback::playback>(std::move(emote), std::move(info));
    if (draws != nullptr) {
      pb->set_selection_source(draws);
    }
    playback::tick_context ctx = context();
    pb->start(pool, ctx);
    sessions.push_back(session_entry{std::move(pb), tick, false});
    return *sessions.back().pb;
  }

  /// P1: stop a playback (MANUAL).
  void stop(playback::playback& pb) {
    playback::tick_context ctx = context();
    pb.stop(ctx);
  }

  /// Runs P3 (follow, release, advance, FINISHED/ERROR stop) and P5 for the current tick and
  /// returns its frame. Two-player phase-4 decisions are made by the test between calls
  /// through `phase4`.
  api::frame
  step(const std::function<void(playback::playback&, playback::tick_context&)>& phase4 = nullptr) {
    playback::tick_context ctx = context();
    for (auto& s : sessions) {
      if (s.done || s.started == tick || s.pb->stopped()) {
        continue;
      }
      s.pb->follow(ctx, feet, yaw);
      s.pb->release_deferred_visibility(ctx);
      s.pb->advance(ctx);
      if (s.pb->finished()) {
        s.pb->stop(ctx, api::stop_reason::finished);
      } else if (s.pb->failed()) {
        s.pb->stop(ctx, api::stop_reason::error);
      }
    }
    if (phase4) {
      for (auto& s : sessions) {
        if (!s.done && !s.pb->stopped()) {
          phase4(*s.pb, ctx);
        }
      }
    }
    api::frame f;
    f.tick = tick;
    f.events = std::move(commands_);
    commands_.clear();
    for (auto& s : sessions) {
      if (s.done) {
        continue;
      }
      s.pb->emit(f.events);
      if (s.pb->stopped()) {
        s.pb->release_handles(pool);
        s.done = true;
      }
    }
    ++tick;
    return f;
  }

  playback::tick_context context() {
    playback::tick_context ctx;
    ctx.tick = tick;
    ctx.player = &player;
    ctx.commands = &commands_;
    return ctx;
  }

private:
  std::vector<api::event> commands_;
};

// ---------------------------------------------------------------------------------------------
// Frame inspection

template <class T>
std::vector<const T*> all_of(const api::frame& f) {
  std::vector<const T*> out;
  for (const auto& e : f.events) {
    if (const auto* p = std::get_if<T>(&e)) {
      out.push_back(p);
    }
  }
  return out;
}

inline const api::ev_display_spawn* spawn_of(const api::frame& f, const std::string& node) {
  for (const auto* s : all_of<api::ev_display_spawn>(f)) {
    if (s->node == node) {
      return s;
    }
  }
  return nullptr;
}

inline const api::ev_display_update* update_of(const api::frame& f, api::handle_id h) {
  for (const auto* u : all_of<api::ev_display_update>(f)) {
    if (u->handle == h) {
      return u;
    }
  }
  return nullptr;
}

inline bool has_remove(const api::frame& f) {
  return !all_of<api::ev_display_remove>(f).empty();
}

inline std::vector<std::string> commands_of(const api::frame& f) {
  std::vector<std::string> out;
  for (const auto* c : all_of<api::ev_command>(f)) {
    out.push_back(c->command);
  }
  return out;
}

/// x = M[0][3] of a transform record.
inline float x_of(const api::transform_record& t) {
  return t.matrix[3];
}

inline std::shared_ptr<const playback::prepared_emote>
prepare(std::shared_ptr<const content::animation> a) {
  return std::make_shared<playback::prepared_emote>(std::move(a), std::size_t{64} << 20);
}
inline std::shared_ptr<const playback::prepared_emote>
prepare(std::shared_ptr<const content::sequence> s) {
  return std::make_shared<playback::prepared_emote>(std::move(s), std::size_t{64} << 20);
}

} // namespace fixture
