#pragma once
// Load-time checks on the normalised tree (molang.md §5.4): query uses in tree order, and
// persistent writes in track expressions.

#include "engine/molang/ast.hpp"
#include "engine/molang/symbol_table.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace emote::molang {

/// The message of the first failing query use, or empty. `host_queries` are extra scalar names.
std::string check_query_uses(const ast& tree, const symbol_table& symbols,
                             const std::vector<std::string>& host_queries);

/// True when some assignment's target is exactly v.X / variable.X (run or not).
bool has_persistent_write(const ast& tree, const symbol_table& symbols);

/// A path node of exactly two components whose root is `r`.
bool is_member_of(const ast& tree, const symbol_table& symbols, std::int32_t n, root_kind r);

} // namespace emote::molang
