#pragma once
// Quirk warnings for `emote-sim check` (molang.md §3.8), from the parse and the normalised tree.

#include "engine/molang/compiler.hpp"
#include "engine/molang/parser.hpp"

#include <vector>

namespace emote::molang {

/// All quirks of a successfully compiled source, sorted by position (stable).
std::vector<quirk_warning> collect_warnings(const parse_output& parsed, const lex_result& tokens,
                                            program_kind kind, const symbol_table& symbols,
                                            const compile_options& options);

} // namespace emote::molang
