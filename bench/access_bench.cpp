// Access-rule patterns (players.md §6.4): the cost of matching an emote id against a pattern with
// RE2 (what engine/rules uses) and, as the baseline it replaced, std::regex (ECMAScript), on the
// same patterns and ids; plus compiling a pattern, which happens once per configuration.
// The policy checks a pattern on every command play and for every id when idle candidates are
// resolved.
#include "engine/rules/access.hpp"

#include <benchmark/benchmark.h>
#include <re2/re2.h>

#include <regex>
#include <string>
#include <vector>

namespace {

const std::vector<std::string>& patterns() {
  static const std::vector<std::string> p = {
      "sample:.*",
      "sample:(wave|dance_[0-9]+)",
      "[a-z]+:sit_idle_.*",
      "(sample|demo):hand(shake|wave)_(offer|release|shake)",
  };
  return p;
}

// 64 ids, some matching each pattern, most not.
const std::vector<std::string>& ids() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> out;
    const char* names[] = {"wave",          "dance_1",         "dance_22",         "sit",
                           "sit_idle_look", "sit_idle_sway",   "handshake_offer",  "handwave_shake",
                           "stand_up",      "handshake",       "dance_x",          "wave_2",
                           "sit_down",      "handshake_shake", "handwave_release", "bow"};
    for (const char* ns : {"sample", "demo", "other", "pack.v2"}) {
      for (const char* n : names) {
        out.push_back(std::string(ns) + ":" + n);
      }
    }
    return out;
  }();
  return v;
}

void BM_match_re2(benchmark::State& state) {
  std::vector<std::unique_ptr<re2::RE2>> res;
  for (const auto& p : patterns()) {
    res.push_back(std::make_unique<re2::RE2>(p));
  }
  std::size_t hits = 0;
  for (auto _ : state) {
    for (const auto& re : res) {
      for (const auto& id : ids()) {
        hits += re2::RE2::FullMatch(id, *re) ? 1 : 0;
      }
    }
  }
  benchmark::DoNotOptimize(hits);
  state.SetItemsProcessed(state.iterations() *
                          static_cast<std::int64_t>(res.size() * ids().size()));
}
BENCHMARK(BM_match_re2);

void BM_match_std_regex(benchmark::State& state) {
  std::vector<std::regex> res;
  for (const auto& p : patterns()) {
    res.emplace_back(p, std::regex::ECMAScript);
  }
  std::size_t hits = 0;
  for (auto _ : state) {
    for (const auto& re : res) {
      for (const auto& id : ids()) {
        hits += std::regex_match(id, re) ? 1 : 0;
      }
    }
  }
  benchmark::DoNotOptimize(hits);
  state.SetItemsProcessed(state.iterations() *
                          static_cast<std::int64_t>(res.size() * ids().size()));
}
BENCHMARK(BM_match_std_regex);

void BM_compile_re2(benchmark::State& state) {
  for (auto _ : state) {
    for (const auto& p : patterns()) {
      re2::RE2 re(p);
      benchmark::DoNotOptimize(re.ok());
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(patterns().size()));
}
BENCHMARK(BM_compile_re2);

void BM_compile_std_regex(benchmark::State& state) {
  for (auto _ : state) {
    for (const auto& p : patterns()) {
      std::regex re(p, std::regex::ECMAScript);
      benchmark::DoNotOptimize(re.mark_count());
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(patterns().size()));
}
BENCHMARK(BM_compile_std_regex);

// The engine's path: every pattern of a rule against every id (idle candidate resolution).
void BM_policy_matches(benchmark::State& state) {
  emote::rules::access_rule rule;
  rule.permission = "emote.default";
  rule.emotes = patterns();
  auto policy = emote::rules::access_policy::compile({}, {rule});
  const emote::rules::id_set catalog(ids());
  std::size_t hits = 0;
  for (auto _ : state) {
    for (const auto& id : ids()) {
      hits += policy->matches(0, id, catalog) ? 1 : 0;
    }
  }
  benchmark::DoNotOptimize(hits);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(ids().size()));
}
BENCHMARK(BM_policy_matches);

} // namespace
