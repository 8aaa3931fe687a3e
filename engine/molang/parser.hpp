#pragma once
// The Molang parser (molang.md §2.2-§2.5): a table-free operator-precedence machine with explicit
// stacks (no recursion, so any nesting or chain length is safe), followed by the normalisation
// rewrites N1-N3 of §2.4.

#include "engine/molang/ast.hpp"
#include "engine/molang/lexer.hpp"
#include "engine/molang/symbol_table.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace emote::molang {

/// A quirk warning found while parsing (molang.md §3.8); `tok` locates it.
struct parse_warning {
  std::string_view gist;
  std::uint32_t tok = 0;
};

struct parse_output {
  ast tree;
  std::string error;     ///< "<detail> at <line>:<col>"; empty on success
  bool too_deep = false; ///< nesting depth > 256 (molang.md §2.5); only set when there is no error
  std::vector<parse_warning> warnings;
};

inline constexpr int max_nesting = 256;

/// Parse the tokens of `source`; names and strings are interned into `symbols`.
parse_output parse(const lex_result& tokens, std::string_view source, symbol_table& symbols);

/// Apply N1-N3 (molang.md §2.4) to the whole tree, recording "parentheses ignored by ternary
/// regrouping".
void normalize(ast& tree, std::vector<parse_warning>& warnings);

} // namespace emote::molang
