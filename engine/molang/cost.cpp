#include "engine/molang/cost.hpp"

#include "engine/molang/evaluator.hpp"
#include "engine/molang/math_functions.hpp"
#include "engine/molang/queries.hpp"

#include <vector>

namespace emote::molang {

std::uint64_t add_ops(std::uint64_t a, std::uint64_t b) noexcept {
  return a > unbounded_ops - b ? unbounded_ops : a + b;
}

std::uint64_t mul_ops(std::uint64_t a, std::uint64_t b) noexcept {
  if (a == 0 || b == 0) {
    return 0;
  }
  return a > unbounded_ops / b ? unbounded_ops : a * b;
}

namespace {

// At least the instructions lowering emits for one node apart from its children (one more than
// needed in most cases): a literal is one push, a path one load per segment, a call its
// preparation, one guard per argument and its invocation, a block one statement end per
// statement plus its push and end, a conditional its jumps and branch marks.
std::uint64_t own_ops(const node& x) {
  const auto n = static_cast<std::uint64_t>(x.count);
  switch (x.kind) {
  case node_kind::number:
  case node_kind::string:
    return 1;
  case node_kind::path:
    return n + 1;
  case node_kind::brk:
  case node_kind::cont:
  case node_kind::ret:
  case node_kind::neg:
  case node_kind::logical_not:
  case node_kind::binary:
    return 2;
  case node_kind::assign:
  case node_kind::index:
    return 3;
  case node_kind::ternary:
  case node_kind::conditional:
    return 5;
  case node_kind::call:
    return n + 3;
  case node_kind::block:
    return n + 2;
  }
  return n + 5;
}

class bounder {
public:
  bounder(const ast& tree, const symbol_table& symbols)
      : tree_(tree), syms_(symbols), total_(tree.nodes.size(), 0) {}

  std::uint64_t run() {
    std::uint64_t sum = 1; // the program's end
    for (std::uint32_t i = 0; i < tree_.root_count; ++i) {
      const std::int32_t n = tree_.items[tree_.root_first + i];
      sum = add_ops(sum, add_ops(1, bound(n))); // statement end
    }
    return sum;
  }

private:
  // Post-order without recursion: long chains nest as deeply as they are long.
  std::uint64_t bound(std::int32_t root) {
    struct item {
      std::int32_t n;
      bool expanded;
    };
    std::vector<item> stack{{root, false}};
    std::vector<std::int32_t> kids;
    while (!stack.empty()) {
      const item it = stack.back();
      stack.pop_back();
      if (it.n < 0) {
        continue;
      }
      if (!it.expanded) {
        stack.push_back({it.n, true});
        kids.clear();
        children(it.n, kids);
        for (const std::int32_t k : kids) {
          stack.push_back({k, false});
        }
        continue;
      }
      total_[static_cast<std::size_t>(it.n)] = combine(it.n);
    }
    return total_[static_cast<std::size_t>(root)];
  }

  void children(std::int32_t n, std::vector<std::int32_t>& out) const {
    const node& x = tree_.nodes[static_cast<std::size_t>(n)];
    for (const std::int32_t k : {x.a, x.b, x.c}) {
      if (k >= 0) {
        out.push_back(k);
      }
    }
    if (x.kind == node_kind::call || x.kind == node_kind::block) {
      for (std::uint32_t i = 0; i < x.count; ++i) {
        out.push_back(tree_.items[x.first + i]);
      }
    }
  }

  std::uint64_t of(std::int32_t n) const {
    return n < 0 ? 0 : total_[static_cast<std::size_t>(n)];
  }

  std::int32_t arg(const node& call, std::uint32_t i) const {
    return i < call.count ? tree_.items[call.first + i] : -1;
  }

  bool is_bare(std::int32_t n, std::string_view word) const {
    if (n < 0) {
      return false;
    }
    const node& x = tree_.nodes[static_cast<std::size_t>(n)];
    return x.kind == node_kind::path && x.count == 1 && syms_.name(tree_.names[x.first]) == word;
  }

  const node* constant(std::int32_t n) const {
    if (n < 0) {
      return nullptr;
    }
    const node& x = tree_.nodes[static_cast<std::size_t>(n)];
    return x.kind == node_kind::number ? &x : nullptr;
  }

  /// A callee or loop body whose invocation runs no stored function: a block written in place,
  /// a math or query function, or something that is not a function at all. Anything else (a
  /// variable, a temporary, a value chosen at run time) may hold a function that calls itself.
  bool plain_function(std::int32_t n) const {
    if (n < 0) {
      return true;
    }
    const node& x = tree_.nodes[static_cast<std::size_t>(n)];
    switch (x.kind) {
    case node_kind::block:
    case node_kind::number:
    case node_kind::string:
      return true;
    case node_kind::path: {
      const root_kind root = syms_.root(tree_.names[x.first]);
      return root != root_kind::variable && root != root_kind::temp;
    }
    default:
      return false;
    }
  }

  std::uint64_t combine(std::int32_t n) const {
    const node& x = tree_.nodes[static_cast<std::size_t>(n)];
    std::uint64_t sum = own_ops(x);
    if (x.kind == node_kind::call && is_bare(x.a, "loop")) {
      if (!plain_function(arg(x, 1))) {
        return unbounded_ops;
      }
      const std::int32_t count = arg(x, 0);
      const node* c = constant(count);
      const auto iterations = static_cast<std::uint64_t>(c != nullptr ? loop_count(c->number) : 1024);
      std::uint64_t rest = of(count);
      for (std::uint32_t i = 2; i < x.count; ++i) {
        rest = add_ops(rest, of(arg(x, i)));
      }
      // Each iteration: the charge, the invocation and the body's own operations.
      return add_ops(add_ops(sum, rest), mul_ops(iterations, add_ops(2, of(arg(x, 1)))));
    }
    if (x.kind == node_kind::call && !is_bare(x.a, "for_each")) {
      if (!plain_function(x.a)) {
        return unbounded_ops;
      }
      const node& callee = tree_.nodes[static_cast<std::size_t>(x.a)];
      if (callee.kind == node_kind::path) {
        const root_kind root = syms_.root(tree_.names[callee.first]);
        if (root == root_kind::query && callee.count == 2) {
          // molang.md §6: a scoreboard lookup's probes among at most max_scores scores.
          const int q = syms_.query(tree_.names[callee.first + 1]);
          if (q >= 0 && query_catalog()[static_cast<std::size_t>(q)].function ==
                            query_function::scoreboard) {
            sum = add_ops(sum, score_lookup_ops(max_scores));
          }
        }
        if (root == root_kind::math && callee.count == 2) {
          const auto m = syms_.math(tree_.names[callee.first + 1]);
          if (m && (*m == math_member::die_roll || *m == math_member::die_roll_integer)) {
            const node* c = constant(arg(x, 0));
            sum = add_ops(sum, c != nullptr ? static_cast<std::uint64_t>(random::rolls(c->number))
                                            : iteration_budget);
          }
        }
      }
    }
    for (const std::int32_t k : {x.a, x.b, x.c}) {
      sum = add_ops(sum, of(k));
    }
    if (x.kind == node_kind::call || x.kind == node_kind::block) {
      for (std::uint32_t i = 0; i < x.count; ++i) {
        sum = add_ops(sum, of(tree_.items[x.first + i]));
      }
    }
    return sum;
  }

  const ast& tree_;
  const symbol_table& syms_;
  std::vector<std::uint64_t> total_;
};

} // namespace

std::uint64_t operation_bound(const ast& tree, const symbol_table& symbols) {
  return bounder(tree, symbols).run();
}

} // namespace emote::molang
