#pragma once
// An upper bound of the operations (molang.md §6) one evaluation of a program can execute, from
// its normalised tree: what `emote-sim check` reports as an emote's worst-case Molang cost per
// tick (players.md §8.6).

#include "engine/molang/ast.hpp"
#include "engine/molang/symbol_table.hpp"

#include <cstdint>

namespace emote::molang {

/// No bound: the program calls stored functions (`t.f()`, `v.f()`), whose work only the
/// per-evaluation budgets limit (molang.md §6).
inline constexpr std::uint64_t unbounded_ops = ~std::uint64_t{0};

/// At least as many operations as any evaluation of `tree` executes (saturating at
/// unbounded_ops). Loops with a non-constant count are taken at their 1,024-iteration cap and
/// random draws with a non-constant count at the per-evaluation budget.
std::uint64_t operation_bound(const ast& tree, const symbol_table& symbols);

/// a + b and a × b saturating at unbounded_ops.
std::uint64_t add_ops(std::uint64_t a, std::uint64_t b) noexcept;
std::uint64_t mul_ops(std::uint64_t a, std::uint64_t b) noexcept;

} // namespace emote::molang
