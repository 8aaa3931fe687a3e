// The full stress tick (docs/guide/performance.md): N instances of the real corpus's Animations
// advance one tick and emit (sim::stress_run), and the frame is encoded once. Fan-out is
// `emote-sim stress`'s to measure. The corpus is read from ../shared next to the repository (or
// $ESIM_CORPUS); without it the benchmarks report an error and skip.
#include "engine/content/loader.hpp"
#include "engine/content/model.hpp"
#include "engine/core/memo.hpp"
#include "engine/sim/stress_run.hpp"
#include "protocol/encode.hpp"

#include "corpus.hpp"
#include "huge_pages.hpp"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>

using namespace emote;

namespace {

namespace fs = std::filesystem;

using emote::bench::corpus_root;

// Arg 0: instances; arg 1: 1 = fast paths (baked poses, memos), 0 = the reference path; arg 2:
// 1 = the heap advised and collapsed into huge pages once the instances exist (huge_pages.hpp;
// `emote-sim stress` does not, as serve does not).
void BM_stress_tick(benchmark::State& state) {
  std::error_code ec;
  if (!fs::is_directory(corpus_root(), ec)) {
    state.SkipWithError("corpus not found (set ESIM_CORPUS)");
    return;
  }
  const bool fast = state.range(1) != 0;
  sim::stress_config cfg;
  cfg.caches.mode = fast ? core::cache_mode::on : core::cache_mode::off;
  cfg.instances = static_cast<std::size_t>(state.range(0));
  cfg.bake_budget = fast ? cfg.bake_budget : 0;
  sim::stress_run run(content::load_directory(corpus_root(), {}), cfg);
  run.create();
  if (state.range(2) != 0) {
    const bench::huge_page_result h = bench::advise_heap_huge_pages();
    state.counters["huge_pages"] = h.collapsed ? 2 : h.advised ? 1 : 0;
  }
  std::string line;
  std::size_t bytes = 0;
  for (auto _ : state) {
    const api::frame& f = run.step();
    line.clear();
    protocol::encode_frame(line, f, false, cfg.caches);
    bytes += line.size();
    benchmark::DoNotOptimize(line.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
  state.counters["displays"] = static_cast<double>(run.displays());
}
// The huge-page runs last: a collapsed heap stays collapsed for the rest of the process.
BENCHMARK(BM_stress_tick)
    ->Args({100, 1, 0})
    ->Args({1000, 1, 0})
    ->Args({1000, 0, 0})
    ->Args({10000, 1, 0})
    ->Args({10000, 1, 1})
    ->Unit(benchmark::kMillisecond);

} // namespace
