// Renderer throughput (render.md §4-§6): viewers x displays per tick. The packets of one entity
// are built once per version and shared (render.md §6), so the cost of another viewer should be a
// recipient index and a range test, not an encode. Args: {viewers, displays}; viewers alternate
// between 769 and 775 and all stand in range.
#include "engine/world/player.hpp"
#include "render/renderer.hpp"

#include <benchmark/benchmark.h>

#include <deque>

using namespace emote;

namespace {

api::transform_record transform_at(int i, int tick) {
  api::transform_record t;
  const auto a = static_cast<float>(i + tick) * 0.01F;
  t.translation = {a, 1.5F, -0.25F};
  t.left_rotation = {0, a / 8, 0, 1};
  t.scale = {1, 1, 1};
  t.right_rotation = {0, 0, 0, 1};
  return t;
}

struct world_of {
  std::deque<world::player_state> players;
  std::vector<const world::player_state*> ptrs;
  explicit world_of(int viewers) {
    for (int v = 0; v < viewers; ++v) {
      world::player_state p;
      p.id = "p" + std::to_string(v);
      p.protocol = v % 2 == 0 ? 769 : 775;
      p.pos = {static_cast<double>(v % 10), 64, static_cast<double>(v / 10)};
      p.join_serial = static_cast<std::uint64_t>(v) + 1;
      players.push_back(p);
    }
    for (const auto& p : players) {
      ptrs.push_back(&p);
    }
  }
};

api::frame spawn_frame(int displays) {
  api::frame f;
  for (int i = 0; i < displays; ++i) {
    api::ev_display_spawn sp;
    sp.session = 1 + i / 64;
    sp.handle = i + 1;
    sp.node = "n" + std::to_string(i % 64);
    sp.kind = api::display_kind::item;
    sp.item = "{count:1,id:\"minecraft:stone\"}";
    sp.item_display = "head";
    sp.dimension = "minecraft:overworld";
    sp.position = {0, 64, 0};
    sp.transform = transform_at(i, 0);
    sp.visible = true;
    f.events.emplace_back(std::move(sp));
  }
  return f;
}

api::frame update_frame(int displays, int tick) {
  api::frame f;
  for (int i = 0; i < displays; ++i) {
    api::ev_display_update u;
    u.handle = i + 1;
    u.transform = transform_at(i, tick);
    u.interpolation_duration = 1;
    f.events.emplace_back(std::move(u));
  }
  return f;
}

void BM_render_steady(benchmark::State& state) {
  const int viewers = static_cast<int>(state.range(0));
  const int displays = static_cast<int>(state.range(1));
  world_of w(viewers);
  render::renderer r(render::render_config{});
  render::render_output out;
  r.step(spawn_frame(displays), w.ptrs, out);
  std::vector<api::frame> frames;
  for (int t = 1; t <= 16; ++t) {
    frames.push_back(update_frame(displays, t));
  }
  std::size_t k = 0;
  std::size_t bytes = 0;
  for (auto _ : state) {
    r.step(frames[k++ % frames.size()], w.ptrs, out);
    bytes += out.data.size();
    benchmark::DoNotOptimize(out.entries.data());
  }
  state.counters["entries"] = static_cast<double>(out.entries.size());
  state.counters["recipients"] = static_cast<double>(out.recipients.size());
  state.counters["data_bytes"] = static_cast<double>(out.data.size());
}
BENCHMARK(BM_render_steady)
    ->Args({1, 1000})
    ->Args({100, 1000})
    ->Args({100, 5000})
    ->Unit(benchmark::kMillisecond);

void BM_render_spawn(benchmark::State& state) {
  const int viewers = static_cast<int>(state.range(0));
  const int displays = static_cast<int>(state.range(1));
  world_of w(viewers);
  const api::frame spawn = spawn_frame(displays);
  api::frame remove;
  for (int s = 1; s <= (displays + 63) / 64; ++s) {
    api::ev_display_remove rm;
    rm.session = s;
    for (int i = (s - 1) * 64; i < std::min(displays, s * 64); ++i) {
      rm.handles.push_back(i + 1);
    }
    remove.events.emplace_back(std::move(rm));
  }
  render::renderer r(render::render_config{});
  render::render_output out;
  for (auto _ : state) {
    r.step(spawn, w.ptrs, out);
    benchmark::DoNotOptimize(out.entries.data());
    r.step(remove, w.ptrs, out);
  }
}
BENCHMARK(BM_render_spawn)
    ->Args({1, 1000})
    ->Args({100, 1000})
    ->Args({100, 5000})
    ->Unit(benchmark::kMillisecond);

// Every viewer walks into range at once: the tracking pass shares each spawn bundle per version.
void BM_render_walk_in(benchmark::State& state) {
  const int viewers = static_cast<int>(state.range(0));
  const int displays = static_cast<int>(state.range(1));
  world_of w(viewers);
  render::renderer r(render::render_config{});
  render::render_output out;
  r.step(spawn_frame(displays), w.ptrs, out);
  const api::frame empty;
  for (auto _ : state) {
    for (auto& p : w.players) {
      p.pos.x += 1000;
    }
    r.step(empty, w.ptrs, out); // everyone out of range: destroys
    for (auto& p : w.players) {
      p.pos.x -= 1000;
    }
    r.step(empty, w.ptrs, out); // everyone back: spawn bundles
    benchmark::DoNotOptimize(out.entries.data());
  }
  state.counters["entries"] = static_cast<double>(out.entries.size());
  state.counters["data_bytes"] = static_cast<double>(out.data.size());
}
BENCHMARK(BM_render_walk_in)->Args({100, 1000})->Unit(benchmark::kMillisecond);

} // namespace
