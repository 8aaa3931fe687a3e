#include "engine/molang/warnings.hpp"

#include "engine/molang/checks.hpp"
#include "engine/molang/math_functions.hpp"

#include <algorithm>
#include <cmath>

namespace emote::molang {

namespace {

constexpr std::string_view gist_binary_conditional = "binary conditional groups to the left";
constexpr std::string_view gist_writes_nothing = "assignment writes nothing";
constexpr std::string_view gist_always_zero = "always 0";
constexpr std::string_view gist_not_callable = "not callable";
constexpr std::string_view gist_math_arity = "math arity";
constexpr std::string_view gist_loop_body = "loop body not a block";
constexpr std::string_view gist_block_never_runs = "block never runs";
constexpr std::string_view gist_break_outside = "break/continue outside loop";
constexpr std::string_view gist_string_number = "string used as number";
constexpr std::string_view gist_coalesce = "?? tests truthiness";
constexpr std::string_view gist_last_statement = "last statement is the value";
constexpr std::string_view gist_namespace_value = "namespace used as a value";
constexpr std::string_view gist_selector = "selector may fail";
constexpr std::string_view gist_expensive = "expensive";

constexpr double expensive_limit = 1048576.0; // 2^20

struct walk_item {
  std::int32_t n;
  bool block_allowed = false; ///< a block here runs (branch, loop body, callee, assigned value)
  bool in_loop = false;       ///< inside the body of a loop
  bool as_target = false;     ///< an assignment target (not read as a value)
  bool as_callee = false;     ///< a callee (reported by the call)
  double loop_product = 1;    ///< product of the constant counts of the enclosing loops
};

class collector {
public:
  collector(const parse_output& parsed, const lex_result& tokens, program_kind kind,
            const symbol_table& symbols, const compile_options& options)
      : tree_(parsed.tree), tokens_(tokens), kind_(kind), syms_(symbols), options_(options) {
    for (const auto& w : parsed.warnings) {
      add(w.gist, w.tok);
    }
  }

  std::vector<quirk_warning> run() {
    walk();
    program_level();
    std::stable_sort(out_.begin(), out_.end(), [](const quirk_warning& a, const quirk_warning& b) {
      return a.line != b.line ? a.line < b.line : a.column < b.column;
    });
    return std::move(out_);
  }

private:
  void add(std::string_view gist, std::uint32_t tok) {
    const token& t = tokens_.tokens[tok];
    quirk_warning w;
    w.gist = gist;
    w.line = t.line;
    w.column = t.column;
    w.message =
        std::string(gist) + ": at " + std::to_string(t.line) + ":" + std::to_string(t.column);
    out_.push_back(std::move(w));
  }

  const node& at(std::int32_t n) const { return tree_.nodes[n]; }
  root_kind root_of(const node& path) const { return syms_.root(tree_.names[path.first]); }
  std::int32_t arg(const node& call, std::uint32_t i) const {
    return i < call.count ? tree_.items[call.first + i] : -1;
  }
  bool is_bare(std::int32_t n, std::string_view word) const {
    const node& x = at(n);
    return x.kind == node_kind::path && x.count == 1 && syms_.name(tree_.names[x.first]) == word;
  }
  bool is_constant(std::int32_t n) const { return n >= 0 && at(n).kind == node_kind::number; }

  void walk() {
    std::vector<walk_item> stack;
    for (std::uint32_t i = 0; i < tree_.root_count; ++i) {
      walk_item w;
      w.n = tree_.items[tree_.root_first + tree_.root_count - 1 - i];
      stack.push_back(w);
    }
    std::vector<walk_item> children;
    while (!stack.empty()) {
      const walk_item w = stack.back();
      stack.pop_back();
      children.clear();
      visit(w, children);
      for (auto it = children.rbegin(); it != children.rend(); ++it) {
        stack.push_back(*it);
      }
    }
  }

  walk_item child(const walk_item& parent, std::int32_t n) const {
    walk_item c;
    c.n = n;
    c.in_loop = parent.in_loop;
    c.loop_product = parent.loop_product;
    return c;
  }

  void path_value(const node& x) {
    const root_kind root = root_of(x);
    if (root == root_kind::other) {
      add(gist_always_zero, x.tok);
      return;
    }
    if (x.count == 1) {
      add(gist_namespace_value, x.tok);
      return;
    }
    if (x.count >= 3) {
      add(gist_always_zero, x.tok);
      return;
    }
    if (root == root_kind::math && !syms_.math(tree_.names[x.first + 1])) {
      add(gist_always_zero, x.tok);
    }
  }

  void string_operand(std::int32_t n) {
    if (n >= 0 && at(n).kind == node_kind::string) {
      add(gist_string_number, at(n).tok);
    }
  }

  void visit(const walk_item& w, std::vector<walk_item>& children) {
    const node& x = at(w.n);
    const auto plain = [&](std::int32_t c) { children.push_back(child(w, c)); };
    switch (x.kind) {
    case node_kind::number:
    case node_kind::string:
      return;
    case node_kind::path:
      if (!w.as_target && !w.as_callee) {
        path_value(x);
      }
      return;
    case node_kind::brk:
    case node_kind::cont:
      if (!w.in_loop) {
        add(gist_break_outside, x.tok);
      }
      return;
    case node_kind::ret:
    case node_kind::logical_not:
      plain(x.a);
      return;
    case node_kind::neg:
      string_operand(x.a);
      plain(x.a);
      return;
    case node_kind::binary:
      switch (x.op) {
      case binary_op::coalesce:
        add(gist_coalesce, x.tok);
        break;
      case binary_op::arrow:
        add(gist_always_zero, x.tok);
        break;
      case binary_op::logical_and:
      case binary_op::logical_or:
        break;
      default:
        string_operand(x.a);
        string_operand(x.b);
        break;
      }
      plain(x.a);
      plain(x.b);
      return;
    case node_kind::assign: {
      const node& target = at(x.a);
      const bool writes =
          target.kind == node_kind::path && target.count == 2 &&
          (root_of(target) == root_kind::variable || root_of(target) == root_kind::temp);
      if (!writes) {
        add(gist_writes_nothing, x.tok);
      }
      auto t = child(w, x.a);
      t.as_target = true;
      children.push_back(t);
      auto v = child(w, x.b);
      v.block_allowed = true;
      children.push_back(v);
      return;
    }
    case node_kind::ternary:
    case node_kind::conditional: {
      if (x.kind == node_kind::conditional) {
        const node_kind c = at(x.a).kind;
        if (c == node_kind::assign || c == node_kind::ternary || c == node_kind::conditional) {
          add(gist_binary_conditional, x.tok);
        }
      }
      plain(x.a);
      auto t = child(w, x.b);
      t.block_allowed = true;
      children.push_back(t);
      if (x.kind == node_kind::ternary) {
        auto f = child(w, x.c);
        f.block_allowed = true;
        children.push_back(f);
      }
      return;
    }
    case node_kind::index:
      add(gist_always_zero, x.tok);
      plain(x.a);
      plain(x.b);
      return;
    case node_kind::block:
      if (!w.block_allowed) {
        add(gist_block_never_runs, x.tok);
      }
      for (std::uint32_t i = 0; i < x.count; ++i) {
        plain(tree_.items[x.first + i]);
      }
      return;
    case node_kind::call:
      call(w, x, children);
      return;
    }
  }

  void call(const walk_item& w, const node& x, std::vector<walk_item>& children) {
    const node& callee = at(x.a);
    const auto args = [&](std::uint32_t body_index) {
      for (std::uint32_t i = 0; i < x.count; ++i) {
        auto c = child(w, arg(x, i));
        if (i == body_index) {
          c.block_allowed = true;
        }
        children.push_back(c);
      }
    };
    if (is_bare(x.a, "loop")) {
      const std::int32_t count = arg(x, 0);
      const std::int32_t body = arg(x, 1);
      bool odd = body < 0 || at(body).kind != node_kind::block || x.count > 2;
      double factor = 1;
      if (is_constant(count)) {
        const double c = at(count).number;
        if (c != std::floor(c) || c < 0 || c > 1024) {
          odd = true;
        }
        factor = loop_count(c);
      }
      if (odd) {
        add(gist_loop_body, x.a >= 0 ? callee.tok : x.tok);
      }
      const double product = w.loop_product * factor;
      if (product > expensive_limit && w.loop_product <= expensive_limit) {
        add(gist_expensive, callee.tok);
      }
      for (std::uint32_t i = 0; i < x.count; ++i) {
        auto c = child(w, arg(x, i));
        if (i == 1) {
          c.block_allowed = true;
          c.in_loop = true;
          c.loop_product = product;
        }
        children.push_back(c);
      }
      return;
    }
    if (is_bare(x.a, "for_each")) {
      add(gist_always_zero, callee.tok);
      args(2);
      return;
    }
    auto c = child(w, x.a);
    c.as_callee = true;
    c.block_allowed = true;
    bool not_callable = callee.kind == node_kind::number || callee.kind == node_kind::string;
    if (callee.kind == node_kind::path) {
      const root_kind root = root_of(callee);
      if (root == root_kind::other) {
        not_callable = true;
      } else if (root == root_kind::math && callee.count == 2) {
        const auto m = syms_.math(tree_.names[callee.first + 1]);
        if (!m || *m == math_member::pi) {
          not_callable = true;
        } else {
          math_call(x, callee, *m);
        }
      } else if (callee.count == 1 || callee.count >= 3) {
        c.as_callee = false; // a namespace or a deep path: report it as a value
      }
    }
    if (not_callable) {
      add(gist_not_callable, callee.tok);
    }
    children.push_back(c);
    args(~0u);
  }

  void math_call(const node& x, const node& callee, math_member m) {
    if (static_cast<int>(x.count) != arity(m)) {
      add(gist_math_arity, callee.tok);
    }
    if ((m == math_member::die_roll || m == math_member::die_roll_integer) &&
        is_constant(arg(x, 0)) &&
        static_cast<double>(random::rolls(at(arg(x, 0)).number)) > expensive_limit) {
      add(gist_expensive, callee.tok);
    }
  }

  bool contains_return() const {
    for (const node& n : tree_.nodes) {
      if (n.kind == node_kind::ret) {
        return true; // rewrites never create or drop a return
      }
    }
    return false;
  }

  void program_level() {
    if (kind_ == program_kind::track && tree_.root_count >= 2 && !contains_return()) {
      add(gist_last_statement, at(tree_.items[tree_.root_first + tree_.root_count - 1]).start);
    }
    if (options_.select_options >= 0 && tree_.root_count == 1) {
      const node& x = at(tree_.items[tree_.root_first]);
      if (x.kind == node_kind::call && is_member_of(tree_, syms_, x.a, root_kind::math) &&
          syms_.math(tree_.names[at(x.a).first + 1]) == math_member::random_integer) {
        const std::int32_t lo = arg(x, 0);
        const std::int32_t hi = arg(x, 1);
        if ((is_constant(hi) && at(hi).number >= options_.select_options) ||
            (is_constant(lo) && at(lo).number < 0)) {
          add(gist_selector, x.start);
        }
      }
    }
  }

  const ast& tree_;
  const lex_result& tokens_;
  program_kind kind_;
  const symbol_table& syms_;
  const compile_options& options_;
  std::vector<quirk_warning> out_;
};

} // namespace

std::vector<quirk_warning> collect_warnings(const parse_output& parsed, const lex_result& tokens,
                                            program_kind kind, const symbol_table& symbols,
                                            const compile_options& options) {
  return collector(parsed, tokens, kind, symbols, options).run();
}

} // namespace emote::molang
