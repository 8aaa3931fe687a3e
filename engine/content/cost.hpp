#pragma once
// Worst-case Molang cost of an emote per tick (players.md §8.6), from its programs' operation
// bounds (molang/cost.hpp): what `emote-sim check` reports and warns about.

#include "engine/content/model.hpp"

#include <cstdint>

namespace emote::content {

/// An upper bound of the Molang operations one session of this emote can execute in one tick:
/// every program of the Animation (`initialize`, `tick`, every track, visibility and NBT
/// selector expression) twice, since a tick can end one cycle and begin the next. A Sequence
/// adds up its distinct Animations. 0: no Molang; molang::unbounded_ops: a stored function is
/// called (only the per-evaluation budgets limit it).
std::uint64_t tick_op_bound(const animation& a);
std::uint64_t tick_op_bound(const sequence& s);
std::uint64_t tick_op_bound(const catalog_entry& e);

} // namespace emote::content
