#pragma once
// The Molang syntax tree (molang.md §2.2): an arena of nodes referenced by index, so that deep
// or long trees are walked with explicit stacks rather than recursion.

#include "engine/molang/symbol_table.hpp"

#include <cstdint>
#include <vector>

namespace emote::molang {

enum class node_kind : std::uint8_t {
  number,      ///< literal (also true/false, folded negative literals and missing operands)
  string,      ///< literal; `str` = string id
  path,        ///< ident { . ident }; `first`/`count` into ast::names
  brk,         ///< break
  cont,        ///< continue
  ret,         ///< return a
  neg,         ///< -a
  logical_not, ///< !a
  binary,      ///< a op b
  assign,      ///< a = b
  ternary,     ///< a ? b : c
  conditional, ///< a ? b
  call,        ///< a(items...)
  index,       ///< a[b]
  block,       ///< { items... }
};

enum class binary_op : std::uint8_t {
  coalesce,
  logical_or,
  logical_and,
  eq,
  ne,
  lt,
  le,
  gt,
  ge,
  add,
  sub,
  mul,
  div,
  arrow,
};

/// Precedence level of molang.md §2.3 (2 = `??` ... 9 = `->`).
int level(binary_op op) noexcept;

struct node {
  node_kind kind = node_kind::number;
  binary_op op = binary_op::add;
  bool paren = false;   ///< written inside parentheses (outermost pair recorded in paren_tok)
  bool missing = false; ///< an empty operand replaced by 0
  std::int32_t a = -1;
  std::int32_t b = -1;
  std::int32_t c = -1;
  std::uint32_t first = 0; ///< call arguments / block statements: ast::items; path: ast::names
  std::uint32_t count = 0;
  double number = 0;
  string_id str = 0;
  std::uint32_t tok = 0;   ///< the token that names the node (operator, literal, '{', first ident)
  std::uint32_t start = 0; ///< leftmost token
  std::uint32_t paren_tok = 0;
};

struct ast {
  std::vector<node> nodes;
  std::vector<std::int32_t> items;
  std::vector<name_id> names;
  std::uint32_t root_first = 0; ///< top-level statements in items
  std::uint32_t root_count = 0;

  /// Children in evaluation (left to right) order.
  template <class F>
  void for_each_child(std::int32_t n, F&& f) const {
    const node& x = nodes[n];
    switch (x.kind) {
    case node_kind::number:
    case node_kind::string:
    case node_kind::path:
    case node_kind::brk:
    case node_kind::cont:
      return;
    case node_kind::ret:
    case node_kind::neg:
    case node_kind::logical_not:
      f(x.a);
      return;
    case node_kind::binary:
    case node_kind::assign:
    case node_kind::conditional:
    case node_kind::index:
      f(x.a);
      f(x.b);
      return;
    case node_kind::ternary:
      f(x.a);
      f(x.b);
      f(x.c);
      return;
    case node_kind::call:
      f(x.a);
      for (std::uint32_t i = 0; i < x.count; ++i) {
        f(items[x.first + i]);
      }
      return;
    case node_kind::block:
      for (std::uint32_t i = 0; i < x.count; ++i) {
        f(items[x.first + i]);
      }
      return;
    }
  }
};

} // namespace emote::molang
