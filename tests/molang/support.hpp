#pragma once
// Test harness for the Molang suites: compile + evaluate on one session ("then" = same session).

#include "engine/molang/molang.hpp"

#include <doctest/doctest.h>

#include <bit>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace molang_test {

using namespace emote::molang;

/// A source shortened for failure messages.
inline std::string shown(std::string_view src) {
  return src.size() <= 120 ? std::string(src) : std::string(src.substr(0, 120)) + "...";
}

/// Bitwise equality: distinguishes -0.0 from +0.0.
inline bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

struct harness {
  symbol_table symbols;
  std::unique_ptr<session> s;
  frame_queries frame;
  player_view player;
  bool with_player = true;
  emote::core::java_random rng{0};
  compile_options options;

  session& sess() {
    if (!s) {
      s = std::make_unique<session>(symbols);
    }
    return *s;
  }

  std::shared_ptr<const program> build(std::string_view src,
                                       program_kind kind = program_kind::program) {
    auto out = compile(src, kind, symbols, options);
    INFO("source: ", shown(src), " error: ", out.error);
    REQUIRE(out.ok());
    return out.program;
  }

  eval_result run(const program& p) {
    return evaluate(p, sess(), frame, with_player ? &player : nullptr, rng);
  }

  /// Evaluate `src` in this harness's session; the evaluation must succeed.
  double eval(std::string_view src, program_kind kind = program_kind::program) {
    const auto p = build(src, kind);
    const auto r = run(*p);
    INFO("source: ", shown(src));
    REQUIRE(r.status == eval_status::ok);
    return r.value;
  }

  /// The load-time error of `src` (empty when it compiles).
  std::string error(std::string_view src, program_kind kind = program_kind::program) {
    return compile(src, kind, symbols, options).error;
  }
};

/// Evaluate in a fresh session with default inputs.
inline double eval(std::string_view src, program_kind kind = program_kind::program) {
  harness h;
  return h.eval(src, kind);
}

inline std::string error(std::string_view src, program_kind kind = program_kind::program) {
  harness h;
  return h.error(src, kind);
}

inline bool starts_with(const std::string& s, std::string_view prefix) {
  return s.rfind(prefix, 0) == 0;
}

} // namespace molang_test
