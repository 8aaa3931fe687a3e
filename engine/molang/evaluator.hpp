#pragma once
// evaluate(): runs a compiled program on a session (molang.md §3-§6).

#include "engine/core/java_random.hpp"
#include "engine/molang/program.hpp"
#include "engine/molang/queries.hpp"
#include "engine/molang/session.hpp"

#include <cstdint>

namespace emote::molang {

/// budget_exceeded: over a per-evaluation budget (molang.md §6); op_limit_exceeded: over the
/// operation limit the host passed (the per-tick budgets of players.md §8.6).
enum class eval_status : std::uint8_t { ok, budget_exceeded, op_limit_exceeded };

struct eval_result {
  double value = 0; ///< the program's result as a number (finite; −0.0 kept)
  eval_status status = eval_status::ok;
  /// Operations executed (molang.md §6): instructions, loop iterations and
  /// `die_roll`/`die_roll_integer` draws.
  /// The same program on the same state always counts the same.
  std::uint64_t ops = 0;
};

/// No operation limit.
inline constexpr std::uint64_t unlimited_ops = ~std::uint64_t{0};

/// molang.md §6: loop iterations plus die_roll/die_roll_integer draws of one evaluation.
inline constexpr std::uint64_t iteration_budget = 1'000'000;
/// (sim) Block invocations by call or branch rule in one evaluation (stored blocks can recurse).
inline constexpr std::uint64_t invocation_budget = 1'000'000;
/// (sim) How deeply block invocations (loop bodies included) may nest.
inline constexpr int max_invocation_depth = 512;

/// Evaluate `code` on `s` with the frame queries, the player (null: no player) and the
/// playback's generator. A budget failure leaves the session usable (the playback stops). The
/// evaluation stops with op_limit_exceeded as soon as it has executed more than `op_limit`
/// operations.
eval_result evaluate(const program& code, session& s, const frame_queries& frame,
                     const player_view* player, core::java_random& rng,
                     std::uint64_t op_limit = unlimited_ops);

} // namespace emote::molang
