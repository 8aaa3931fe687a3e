// Playback micro benchmarks: pose evaluation (baked, unbaked, with Molang), one playback tick
// (follow, advance, emit) and the display-matrix decomposition.

#include "engine/math/decompose.hpp"
#include "engine/math/matrix.hpp"
#include "engine/math/quat.hpp"
#include "engine/playback/evaluator.hpp"
#include "engine/playback/playback.hpp"
#include "tests/playback/builder.hpp"

#include <benchmark/benchmark.h>

#include <memory>
#include <string>

namespace {

using namespace emote;
using fixture::anim_builder;

/// A corpus-like Animation: 74 nodes (a hierarchy of anchors and item displays), position and
/// rotation tracks on a third of them, 80 ticks, looping; optionally Molang on some channels.
std::shared_ptr<const content::animation> corpus_like(bool molang) {
  anim_builder b(molang ? "bench:molang" : "bench:plain", 80, content::playback_mode::loop, 5);
  b.deadzone(50);
  const int root = b.node("root", content::node_type::anchor);
  int parent = root;
  for (int i = 0; i < 73; ++i) {
    const bool anchor = i % 6 == 0;
    const int n = b.node("n" + std::to_string(i),
                         anchor ? content::node_type::anchor : content::node_type::item_display,
                         i % 5 == 0 ? root : parent, core::space::initiator,
                         {0.1 * i, 0.05 * i, -0.02 * i});
    if (i % 3 == 0) {
      b.position(n, 0, {0, 0, 0}, content::easing::ease_in_out_sine)
          .position(n, 40, {0.5, 1, 0}, content::easing::ease_out_back)
          .position(n, 80, {0, 0, 0});
      b.rotation(n, 0, {0, 0, 0}).rotation(n, 30, {30, 45, -20}).rotation(n, 80, {0, 360, 0});
    }
    if (molang && i % 9 == 0) {
      b.rotation(n, 0, {"math.sin(q.anim_time * 180) * 20", 0, "q.life_time * 10"});
    }
    parent = n;
  }
  if (molang) {
    b.tick("v.phase = v.phase + q.delta_time;");
  }
  return b.build();
}

void run_pose(benchmark::State& state, bool molang, std::size_t budget) {
  const auto emote = std::make_shared<playback::prepared_emote>(corpus_like(molang), budget);
  playback::evaluator ev(emote->animation_at(0));
  core::java_random rng(1);
  molang::player_view player;
  const playback::eval_env env{&player, &rng};
  ev.begin(0, 0, env);
  std::int64_t t = 0;
  for (auto _ : state) {
    if (++t > 80) {
      t = 0;
      ev.begin(0, 0, env);
    } else {
      ev.advance_to(t, env);
    }
    benchmark::DoNotOptimize(ev.world(1));
  }
  state.SetItemsProcessed(state.iterations() * 74);
  state.counters["baked_KiB"] = static_cast<double>(emote->animation_at(0).baked_bytes()) / 1024.0;
}

void BM_pose_baked(benchmark::State& state) {
  run_pose(state, false, std::size_t{64} << 20);
}
void BM_pose_unbaked(benchmark::State& state) {
  run_pose(state, false, 0);
}
void BM_pose_molang(benchmark::State& state) {
  run_pose(state, true, std::size_t{64} << 20);
}

void BM_playback_tick(benchmark::State& state) {
  const auto emote = std::make_shared<playback::prepared_emote>(corpus_like(state.range(0) != 0),
                                                                std::size_t{64} << 20);
  playback::start_info info;
  info.session = 1;
  info.player = "bench";
  info.dimension = "minecraft:overworld";
  info.feet = {0, 64, 0};
  info.generators = playback::make_session_generators(0, 1);
  playback::playback pb(emote, info);
  playback::handle_pool pool;
  molang::player_view player;
  std::vector<api::event> commands;
  std::vector<api::event> frame;
  frame.reserve(1024);
  playback::tick_context ctx{0, &player, &commands};
  pb.start(pool, ctx);
  pb.emit(frame);
  for (auto _ : state) {
    ++ctx.tick;
    frame.clear();
    commands.clear();
    pb.follow(ctx, core::dvec3{0, 64, 0}, 0.0f);
    pb.release_deferred_visibility(ctx);
    pb.advance(ctx);
    pb.emit(frame);
    benchmark::DoNotOptimize(frame.data());
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_decompose(benchmark::State& state) {
  const math::mat4f m = math::affine_mul(
      math::root_rot(37),
      math::local_matrix(math::vec3f{0.5f, 1, -2}, math::euler_degrees_to_quat(20, -35, 70),
                         math::vec3f{1.5f, 0.5f, 2}));
  for (auto _ : state) {
    benchmark::DoNotOptimize(math::decompose(m));
  }
}

} // namespace

BENCHMARK(BM_pose_baked);
BENCHMARK(BM_pose_unbaked);
BENCHMARK(BM_pose_molang);
BENCHMARK(BM_playback_tick)->Arg(0)->Arg(1);
BENCHMARK(BM_decompose);
