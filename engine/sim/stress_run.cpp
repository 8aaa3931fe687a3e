#include "engine/sim/stress_run.hpp"

#include "engine/content/model.hpp"
#include "engine/playback/playback.hpp"
#include "engine/playback/prepared.hpp"
#include "engine/rules/stress.hpp"

#include <algorithm>
#include <utility>

namespace emote::sim {

struct stress_run::impl {
  struct instance {
    std::unique_ptr<playback::playback> pb;
    bool live = false;
  };

  stress_config config;
  playback::library library;
  rules::stress_plan plan;
  playback::handle_pool pool;
  std::vector<instance> instances;
  std::vector<std::size_t> ended;      ///< instances stopped in the current tick
  std::vector<std::size_t> failed_now; ///< instances that failed in the current tick
  api::frame out;
  api::tick_number tick = 0;
  std::size_t active = 0;
  std::size_t failures = 0;
  std::int64_t displays = 0;
  std::int64_t peak = 0;
  bool created = false;
  bool finished = false;

  impl(std::shared_ptr<const content::catalog> catalog, stress_config cfg)
      : config(std::move(cfg)), library(catalog, config.bake_budget) {
    std::vector<std::string> ids;
    for (const content::catalog_entry& e : catalog->entries()) {
      if (e.kind == content::emote_kind::animation && !e.disabled) {
        ids.push_back(e.id);
      }
    }
    plan = rules::make_stress_plan(std::move(ids), config.instances);
    instances.resize(plan.animations.size());
  }

  playback::tick_context context() {
    playback::tick_context ctx;
    ctx.tick = tick;
    ctx.player = nullptr;   // Molang player queries give 0
    ctx.commands = nullptr; // no command events or callbacks
    return ctx;
  }

  void begin_frame() {
    out.tick = tick;
    out.events.clear();
  }

  /// Stops a failed instance; its remove records go into this tick's frame. The counters and
  /// the handles are settled after the frame (settle_failures, release_ended).
  static void fail(instance& in, std::size_t index, playback::tick_context& ctx,
                   std::vector<std::size_t>& ended_here) {
    in.pb->stop(ctx, api::stop_reason::error);
    in.live = false;
    ended_here.push_back(index);
  }

  void settle_failures(const std::vector<std::size_t>& failed) {
    for (const std::size_t i : failed) {
      --active;
      ++failures;
      ended.push_back(i);
    }
  }

  api::tick_number begin_step() {
    ++tick;
    begin_frame();
    return tick;
  }

  /// After the frame: handles of instances that stopped in it go back to the pool.
  void release_ended() {
    for (const std::size_t i : ended) {
      instances[i].pb->release_handles(pool);
      displays -= static_cast<std::int64_t>(instances[i].pb->handle_count());
    }
    ended.clear();
  }

  void emit_all() {
    for (instance& in : instances) {
      if (in.pb) {
        in.pb->emit(out.events);
      }
    }
  }

  const api::frame& create() {
    begin_frame();
    if (created) {
      return out;
    }
    created = true;
    const std::size_t n = plan.animations.size();
    for (std::size_t i = 0; i < n; ++i) {
      auto prepared = library.find(plan.animations[i]);
      if (!prepared) {
        ++failures;
        continue;
      }
      playback::start_info info;
      info.session = static_cast<api::session_id>(i + 1);
      info.dimension = config.dimension;
      info.feet = rules::stress_grid_position(i, n, config.origin, config.yaw);
      info.yaw = config.yaw;
      // Instance i (from 1) draws its Molang random functions from Random(0xE607E + i).
      const std::int64_t seed = rules::stress_seed + static_cast<std::int64_t>(i + 1);
      info.generators =
          playback::session_generators{core::java_random(seed), core::java_random(seed)};
      info.caches = config.caches;
      instance& in = instances[i];
      in.pb = std::make_unique<playback::playback>(std::move(prepared), std::move(info));
      auto ctx = context();
      in.live = true;
      ++active;
      displays += static_cast<std::int64_t>(in.pb->handle_count());
      if (!in.pb->start(pool, ctx) || !in.pb->start_at_phase(plan.phases[i], ctx)) {
        fail(in, i, ctx, failed_now);
      }
    }
    settle_failures(failed_now);
    failed_now.clear();
    peak = std::max(peak, displays);
    emit_all();
    release_ended();
    return out;
  }

  /// Advances instances [b, e) and emits their records into `events`.
  void advance_range(std::size_t b, std::size_t e, std::vector<api::event>& events,
                     std::vector<std::size_t>& failed) {
    if (!created || finished) {
      return;
    }
    e = std::min(e, instances.size());
    try {
      advance_instances(b, e, events, failed);
    } catch (core::cache_mismatch& m) {
      m.tick = tick; // core::cache_mode::check
      throw;
    }
  }

  void advance_instances(std::size_t b, std::size_t e, std::vector<api::event>& events,
                         std::vector<std::size_t>& failed) {
    auto ctx = context();
    // Each instance emits right after it advances, while its state is still in cache. Instances
    // do not interact (no players, no commands), so this frame equals advancing all, then
    // emitting all.
    for (std::size_t i = b; i < e; ++i) {
      instance& in = instances[i];
      if (!in.pb) {
        continue;
      }
      playback::playback& pb = *in.pb;
      if (in.live) {
        pb.release_deferred_visibility(ctx);
        pb.advance(ctx);
        if (pb.finished() && !pb.failed()) {
          pb.rewind(ctx);
        }
        if (pb.failed()) {
          fail(in, i, ctx, failed);
        }
      }
      pb.emit(events);
    }
  }

  const api::frame& step() {
    begin_step();
    failed_now.clear();
    advance_range(0, instances.size(), out.events, failed_now);
    settle_failures(failed_now);
    release_ended();
    return out;
  }

  const api::frame& finish() {
    ++tick;
    begin_frame();
    if (finished) {
      return out;
    }
    finished = true;
    auto ctx = context();
    for (std::size_t i = 0; i < instances.size(); ++i) {
      instance& in = instances[i];
      if (in.live) {
        in.pb->stop(ctx, api::stop_reason::manual);
        in.live = false;
        --active;
        ended.push_back(i);
      }
    }
    emit_all();
    release_ended();
    return out;
  }
};

stress_run::stress_run(std::shared_ptr<const content::catalog> catalog, stress_config config)
    : impl_(std::make_unique<impl>(std::move(catalog), std::move(config))) {}
stress_run::~stress_run() = default;

const api::frame& stress_run::create() {
  return impl_->create();
}
const api::frame& stress_run::step() {
  return impl_->step();
}
api::tick_number stress_run::begin_step() {
  return impl_->begin_step();
}
void stress_run::step_part(std::size_t begin, std::size_t end, part& out) {
  impl_->advance_range(begin, end, out.events, out.ended);
}
void stress_run::end_step(std::span<part> parts) {
  for (const part& p : parts) {
    impl_->settle_failures(p.ended);
  }
  impl_->release_ended();
}
std::size_t stress_run::instance_count() const noexcept {
  return impl_->instances.size();
}
const api::frame& stress_run::finish() {
  return impl_->finish();
}
std::size_t stress_run::requested() const noexcept {
  return impl_->config.instances;
}
std::size_t stress_run::active() const noexcept {
  return impl_->active;
}
std::size_t stress_run::failures() const noexcept {
  return impl_->failures;
}
std::int64_t stress_run::displays() const noexcept {
  return impl_->displays;
}
std::int64_t stress_run::peak_displays() const noexcept {
  return impl_->peak;
}
namespace {
template <class Sink, class Impl>
void describe_instances(Sink& s, const Impl& m) {
  s.begin_object("");
  s.i64("tick", m.tick);
  s.begin_map("sessions");
  for (std::size_t i = 0; i < m.instances.size(); ++i) {
    if (m.instances[i].live) {
      s.begin_object_id(static_cast<std::int64_t>(i));
      m.instances[i].pb->describe(s);
      s.end_object();
    }
  }
  s.end_object();
  m.pool.describe(s);
  s.end_object();
}
} // namespace

void stress_run::describe_state(core::state_sink& s) const {
  describe_instances(s, *impl_);
}

std::uint64_t stress_run::state_digest(bool fresh) const {
  core::state_hasher h;
  h.set_fresh(fresh);
  describe_instances(h, *impl_);
  return h.digest();
}
const std::vector<std::string>& stress_run::assignment() const noexcept {
  return impl_->plan.animations;
}

} // namespace emote::sim
