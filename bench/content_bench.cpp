// Loading speed (docs/guide/performance.md "Loading"): the whole real corpus from disk and from
// memory, the bundled samples, and the JSON reader alone. The corpus is read from ../shared next to
// the repository (or $ESIM_CORPUS); without it those benchmarks report an error and skip.
#include "engine/content/loader.hpp"
#include "engine/json/source_reader.hpp"

#include "corpus.hpp"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

using emote::bench::corpus_root;

std::vector<emote::content::memory_file> read_all(const fs::path& root) {
  std::vector<emote::content::memory_file> files;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    return files;
  }
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file() && e.path().extension() == ".json") {
      std::ifstream in(e.path(), std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      files.push_back({e.path().lexically_relative(root).generic_string(), ss.str()});
    }
  }
  return files;
}

void BM_load_corpus_from_disk(benchmark::State& state) {
  const auto root = corpus_root();
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    state.SkipWithError("corpus not found (../shared/corpus/hanhy06-emote or $ESIM_CORPUS)");
    return;
  }
  std::size_t loaded = 0;
  for (auto _ : state) {
    const auto c = emote::content::load_directory(root);
    loaded = c->size();
    benchmark::DoNotOptimize(c.get());
  }
  state.counters["emotes"] = static_cast<double>(loaded);
}
BENCHMARK(BM_load_corpus_from_disk)->Unit(benchmark::kMillisecond);

void BM_load_corpus_from_memory(benchmark::State& state) {
  const auto files = read_all(corpus_root());
  if (files.empty()) {
    state.SkipWithError("corpus not found");
    return;
  }
  std::size_t bytes = 0;
  for (const auto& f : files) {
    bytes += f.bytes.size();
  }
  for (auto _ : state) {
    state.PauseTiming();
    auto copy = files;
    state.ResumeTiming();
    const auto c = emote::content::load_files(std::move(copy));
    benchmark::DoNotOptimize(c.get());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
}
BENCHMARK(BM_load_corpus_from_memory)->Unit(benchmark::kMillisecond);

void BM_load_sample_emotes(benchmark::State& state) {
  const fs::path root = fs::path(EMOTE_SIM_SOURCE_DIR) / "config" / "emotes";
  for (auto _ : state) {
    const auto c = emote::content::load_directory(root);
    benchmark::DoNotOptimize(c.get());
  }
}
BENCHMARK(BM_load_sample_emotes)->Unit(benchmark::kMillisecond);

void BM_parse_json_corpus(benchmark::State& state) {
  const auto files = read_all(corpus_root());
  if (files.empty()) {
    state.SkipWithError("corpus not found");
    return;
  }
  std::size_t bytes = 0;
  for (const auto& f : files) {
    bytes += f.bytes.size();
  }
  for (auto _ : state) {
    for (const auto& f : files) {
      auto r = emote::json::parse_source(f.bytes);
      benchmark::DoNotOptimize(r.ok);
    }
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
}
BENCHMARK(BM_parse_json_corpus)->Unit(benchmark::kMillisecond);

} // namespace
