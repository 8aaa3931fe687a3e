#pragma once
// Lowering of the normalised tree to a program (molang.md §6): iterative, one pass per unit.

#include "engine/molang/ast.hpp"
#include "engine/molang/program.hpp"

#include <memory>

namespace emote::molang {

/// `op_bound`: the program's operation bound (cost.hpp), kept with it.
std::shared_ptr<const program> lower(const ast& tree, program_kind kind,
                                     const symbol_table& symbols, std::uint64_t op_bound);

} // namespace emote::molang
