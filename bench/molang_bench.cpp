// Molang evaluation cost (molang.md §6 targets: < 200 ns for the wave expression, < 1 µs for a
// 10-statement tick program), plus compile cost. Not run by CI: build preset `release`, then
// `build/release/bench/bench_molang`.
#include "engine/molang/molang.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <string>

namespace {

using namespace emote::molang;

constexpr const char* wave = "1 + math.sin(q.anim_time * 180) * 0.05";

constexpr const char* tick_program = "v.t = q.anim_time;"
                                     "v.phase = math.mod(v.t * 2, 1);"
                                     "v.wave = math.sin(v.t * 360) * 0.5;"
                                     "v.bob = math.cos(v.t * 180) * 0.1;"
                                     "v.scale = 1 + v.wave * 0.05;"
                                     "v.visible = q.anim_time >= 2;"
                                     "v.speed = q.ground_speed;"
                                     "v.lean = math.clamp(v.speed * 5, 0, 15);"
                                     "v.blend = math.lerp(v.bob, v.lean, 0.5);"
                                     "v.total = v.scale + v.blend + v.phase;";

void run_case(benchmark::State& state, const char* source, program_kind kind,
              std::size_t scores = 0) {
  symbol_table symbols;
  const auto out = compile(source, kind, symbols);
  if (!out.ok()) {
    state.SkipWithError(out.error.c_str());
    return;
  }
  session s(symbols);
  frame_queries frame;
  player_view player;
  player.velocity = {0.1, 0, 0.2};
  // Objectives k10000, k10001, ... sorted, as player_view keeps them (molang.md §5.3).
  for (std::size_t i = 0; i < scores; ++i) {
    player.scores.emplace_back("k" + std::to_string(10000 + i), static_cast<std::int32_t>(i));
  }
  emote::core::java_random rng(42);
  std::int64_t tick = 0;
  std::uint64_t ops = 0;
  for (auto _ : state) {
    frame.anim_time = static_cast<double>(tick % 80) / 20.0;
    frame.anim_time_ticks = static_cast<double>(tick % 80);
    ++tick;
    const eval_result r = evaluate(*out.program, s, frame, &player, rng);
    benchmark::DoNotOptimize(r.value);
    ops += r.ops;
  }
  state.SetItemsProcessed(state.iterations());
  // Operations (molang.md §6) per evaluation and their cost: what the per-tick budgets of
  // players.md §8.6 are worth in time.
  state.counters["ops"] = benchmark::Counter(static_cast<double>(ops) /
                                             static_cast<double>(std::max<std::int64_t>(1, state.iterations())));
  state.counters["ns_per_op"] = benchmark::Counter(
      static_cast<double>(ops), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void bm_wave_expression(benchmark::State& state) {
  run_case(state, wave, program_kind::track);
}
BENCHMARK(bm_wave_expression);

void bm_tick_program_10_statements(benchmark::State& state) {
  run_case(state, tick_program, program_kind::program);
}
BENCHMARK(bm_tick_program_10_statements);

// The heavy-emote shape the per-tick budgets stop (players.md §8.6): nested loops of updates.
void bm_loop_100k_iterations(benchmark::State& state) {
  run_case(state, "t.x = 0; loop(100, { loop(1000, { t.x = t.x + 1; }); }); return t.x;",
           program_kind::program);
}
BENCHMARK(bm_loop_100k_iterations);

// q.scoreboard is a keyed lookup (molang.md §6): 1,000 lookups cost about the same among one score
// as among the 1,024 a player may carry (a scan per lookup made this about 1,000 times dearer).
void bm_scoreboard_1000_lookups(benchmark::State& state) {
  run_case(state,
           "t.x = 0; loop(1000, { t.x = t.x + q.scoreboard('k10000'); }); return t.x;",
           program_kind::program, static_cast<std::size_t>(state.range(0)));
}
BENCHMARK(bm_scoreboard_1000_lookups)->Arg(1)->Arg(1024);

// The dearest operations: math functions and random draws in a loop.
void bm_loop_math_heavy(benchmark::State& state) {
  run_case(state,
           "t.x = 1; loop(1000, { t.x = math.sin(t.x * 90) + math.pow(math.abs(t.x), 1.1) + "
           "math.atan2(t.x, 2) + math.die_roll(1, 0, 1); }); return t.x;",
           program_kind::program);
}
BENCHMARK(bm_loop_math_heavy);

void bm_compile_tick_program(benchmark::State& state) {
  symbol_table symbols;
  for (auto _ : state) {
    auto out = compile(tick_program, program_kind::program, symbols);
    benchmark::DoNotOptimize(out.program.get());
  }
}
BENCHMARK(bm_compile_tick_program);

void bm_compile_16k_chain(benchmark::State& state) {
  std::string chain = "1";
  while (chain.size() + 2 <= 16384) {
    chain += "+1";
  }
  symbol_table symbols;
  compile_options options;
  options.warnings = false;
  for (auto _ : state) {
    auto out = compile(chain, program_kind::program, symbols, options);
    benchmark::DoNotOptimize(out.program.get());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(chain.size()));
}
BENCHMARK(bm_compile_16k_chain);

} // namespace
