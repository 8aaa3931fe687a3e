// libFuzzer target: compile + evaluate arbitrary Molang. Input = one mode byte, then the source.
// Checks: no crash or sanitizer report; a load error is one of the specified messages; results
// are finite; evaluation is deterministic (a second fresh run gives the same bits); the budget
// ends every evaluation (hangs surface as libFuzzer timeouts).
//   build (instrument the libraries too; the preset alone instruments only this file):
//     cmake --preset fuzz -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined"
//     cmake --build --preset fuzz --target fuzz_molang
//   run on a copy of the seeds: cp -r fuzz/corpus/molang /tmp/work &&
//     build/fuzz/fuzz/fuzz_molang /tmp/work -max_total_time=600 -timeout=25
#include "engine/molang/molang.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace {

using namespace emote::molang;

bool known_error(const std::string& e) {
  static constexpr std::string_view prefixes[] = {"invalid Molang program: ",
                                                  "must not assign persistent variables",
                                                  "must not assign queries",
                                                  "references unsupported query ",
                                                  "must call query function ",
                                                  "must not call query value ",
                                                  "calls query "};
  for (const auto p : prefixes) {
    if (e.rfind(p, 0) == 0) {
      return true;
    }
  }
  return false;
}

player_view make_player() {
  player_view p;
  p.position = {10, 64, -3};
  p.velocity = {0.2, -0.1, 0.05};
  p.yaw = 190;
  p.body_yaw = -30;
  p.yaw_prev = 185;
  p.right_hand = {"minecraft:bow", false};
  p.left_hand = {"minecraft:crossbow", true};
  p.head = {"minecraft:diamond_helmet", false};
  p.scores = {{"", 3}, {"combo", 12}}; // sorted by objective, as player views are
  p.using_item = true;
  p.use_duration = 20;
  p.use_remaining = 7;
  return p;
}

struct run_output {
  double values[3] = {0, 0, 0};
  eval_status status[3] = {};
};

run_output run(std::string_view src, std::uint8_t mode, const compile_options& options,
               std::string* error) {
  run_output out;
  symbol_table symbols;
  const program_kind kind = (mode & 8) != 0 ? program_kind::track : program_kind::program;
  const auto compiled = compile(src, kind, symbols, options);
  if (!compiled.ok()) {
    *error = compiled.error;
    return out;
  }
  for (const auto& w : compiled.warnings) {
    if (w.message.find(": at ") == std::string::npos) {
      std::abort();
    }
  }
  static const player_view player = make_player();
  session s(symbols);
  frame_queries frame{1.25, 2.5, 25, 4, 0.05, 1, 0.5};
  emote::core::java_random rng(mode);
  for (int i = 0; i < 3; ++i) {
    const auto r = evaluate(*compiled.program, s, frame, (mode & 16) != 0 ? nullptr : &player, rng);
    if (!std::isfinite(r.value)) {
      std::abort();
    }
    out.values[i] = r.value;
    out.status[i] = r.status;
    frame.anim_time += 0.05;
    if ((mode & 32) != 0) {
      s.reset();
    }
  }
  return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  const std::uint8_t mode = data[0];
  const std::string_view src(reinterpret_cast<const char*>(data + 1), size - 1);
  compile_options options;
  options.select_options = mode & 7;
  std::string error;
  const run_output a = run(src, mode, options, &error);
  if (!error.empty()) {
    if (!known_error(error)) {
      std::abort();
    }
    return 0;
  }
  std::string error_b;
  const run_output b = run(src, mode, options, &error_b);
  for (int i = 0; i < 3; ++i) {
    if (std::bit_cast<std::uint64_t>(a.values[i]) != std::bit_cast<std::uint64_t>(b.values[i]) ||
        a.status[i] != b.status[i]) {
      std::abort(); // evaluation must be deterministic
    }
  }
  return 0;
}
