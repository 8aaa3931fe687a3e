#include "engine/molang/lowering.hpp"

#include <algorithm>

namespace emote::molang {

namespace {

enum class task_kind : std::uint8_t { visit, emit, mark };

struct task {
  task_kind kind = task_kind::visit;
  std::int32_t node = -1;
  instr ins;
  std::int32_t label = -1; ///< emit: the label `ins.a` refers to; mark: the label placed here
};

struct label {
  std::int64_t address = -1;
  std::int64_t depth = -1; ///< stack depth on arrival by jump (-1: none recorded)
};

int stack_effect(const instr& i) noexcept {
  switch (i.op) {
  case opcode::push_number:
  case opcode::push_string:
  case opcode::push_math:
  case opcode::push_object:
  case opcode::push_block:
  case opcode::load_variable:
  case opcode::load_temp:
  case opcode::load_query:
  case opcode::brk:
  case opcode::cont:
    return 1;
  case opcode::store_member:
  case opcode::pop:
  case opcode::add:
  case opcode::sub:
  case opcode::mul:
  case opcode::div:
  case opcode::lt:
  case opcode::le:
  case opcode::gt:
  case opcode::ge:
  case opcode::eq:
  case opcode::ne:
  case opcode::and_test:
  case opcode::or_test:
  case opcode::coalesce:
  case opcode::jump_if_false:
  case opcode::loop:
  case opcode::stmt_end_top:
  case opcode::stmt_end_block:
    return -1;
  case opcode::call_end:
    return -static_cast<int>(i.x);
  case opcode::math_call:
    return 1 - arity(static_cast<math_member>(i.a));
  default:
    return 0;
  }
}

class lowerer {
public:
  lowerer(const ast& tree, const symbol_table& symbols) : tree_(tree), syms_(symbols) {}

  std::shared_ptr<const program> run(program_kind kind, std::uint64_t op_bound) {
    std::vector<std::int32_t> roots(tree_.items.begin() + tree_.root_first,
                                    tree_.items.begin() + tree_.root_first + tree_.root_count);
    pending_units_.push_back({-1});
    units_.push_back({});
    for (std::size_t u = 0; u < pending_units_.size(); ++u) {
      const std::int32_t block = pending_units_[u];
      if (block < 0) {
        emit_unit(u, roots, true);
      } else {
        const node& b = tree_.nodes[block];
        std::vector<std::int32_t> stmts(tree_.items.begin() + b.first,
                                        tree_.items.begin() + b.first + b.count);
        emit_unit(u, stmts, false);
      }
    }
    return std::make_shared<const program>(kind, syms_, std::move(code_), std::move(units_),
                                           op_bound);
  }

private:
  void emit_unit(std::size_t u, const std::vector<std::int32_t>& stmts, bool top) {
    units_[u].begin = static_cast<std::uint32_t>(code_.size());
    units_[u].top_level = top;
    depth_ = 0;
    max_depth_ = 0;
    reachable_ = true;
    labels_.clear();
    fixups_.clear();
    tasks_.clear();
    push_emit(instr{opcode::unit_end});
    for (auto it = stmts.rbegin(); it != stmts.rend(); ++it) {
      push_emit(instr{top ? opcode::stmt_end_top : opcode::stmt_end_block});
      push_visit(*it);
    }
    while (!tasks_.empty()) {
      const task t = tasks_.back();
      tasks_.pop_back();
      switch (t.kind) {
      case task_kind::visit:
        visit_any(t.node);
        break;
      case task_kind::emit:
        emit(t.ins, t.label);
        break;
      case task_kind::mark:
        mark(t.label);
        break;
      }
    }
    for (const auto& [at, lab] : fixups_) {
      code_[at].a = static_cast<std::uint32_t>(labels_[lab].address);
    }
    units_[u].max_stack = static_cast<std::uint32_t>(max_depth_);
  }

  // Tasks are pushed in reverse; these helpers take them in execution order.
  struct seq {
    std::vector<task> items;
    seq& visit(std::int32_t n) {
      items.push_back({task_kind::visit, n, {}, -1});
      return *this;
    }
    seq& emit(opcode op, std::uint32_t a = 0, double num = 0, std::uint16_t x = 0) {
      instr i;
      i.op = op;
      i.a = a;
      i.num = num;
      i.x = x;
      items.push_back({task_kind::emit, -1, i, -1});
      return *this;
    }
    seq& jump(opcode op, std::int32_t lab, std::uint16_t x = 0) {
      instr i;
      i.op = op;
      i.x = x;
      items.push_back({task_kind::emit, -1, i, lab});
      return *this;
    }
    seq& mark(std::int32_t lab) {
      items.push_back({task_kind::mark, -1, {}, lab});
      return *this;
    }
  };

  void schedule(seq& s) {
    for (auto it = s.items.rbegin(); it != s.items.rend(); ++it) {
      tasks_.push_back(*it);
    }
  }
  void push_visit(std::int32_t n) { tasks_.push_back({task_kind::visit, n, {}, -1}); }
  void push_emit(instr i) { tasks_.push_back({task_kind::emit, -1, i, -1}); }

  std::int32_t new_label() {
    labels_.push_back({});
    return static_cast<std::int32_t>(labels_.size() - 1);
  }

  void emit(instr i, std::int32_t lab) {
    const std::int64_t before = depth_;
    if (lab >= 0) {
      fixups_.push_back({code_.size(), lab});
      label& l = labels_[lab];
      switch (i.op) {
      case opcode::and_test:
      case opcode::or_test:
      case opcode::coalesce:
      case opcode::jump:
      case opcode::call_prep:
        l.depth = before;
        break;
      case opcode::jump_if_false:
        l.depth = before - 1;
        break;
      default:
        break; // arg_guard: the fall-through depth governs call_end
      }
    }
    code_.push_back(i);
    depth_ += stack_effect(i);
    max_depth_ = std::max(max_depth_, depth_);
    if (i.op == opcode::jump) {
      reachable_ = false;
    }
  }

  void mark(std::int32_t lab) {
    label& l = labels_[lab];
    l.address = static_cast<std::int64_t>(code_.size());
    if (!reachable_ && l.depth >= 0) {
      depth_ = l.depth;
    }
    reachable_ = true;
  }

  void emit_now(opcode op, std::uint32_t a = 0, double num = 0) {
    instr i;
    i.op = op;
    i.a = a;
    i.num = num;
    emit(i, -1);
  }

  /// Push the value of the path names[first .. first+count).
  void emit_path(std::uint32_t first, std::uint32_t count) {
    const root_kind root = syms_.root(tree_.names[first]);
    std::uint32_t next = first + 1;
    switch (root) {
    case root_kind::other:
      emit_now(opcode::push_number, 0, 0.0);
      return;
    case root_kind::math:
      if (count == 1) {
        emit_now(opcode::push_object, static_cast<std::uint32_t>(store::math));
        return;
      }
      if (const auto m = syms_.math(tree_.names[next])) {
        if (*m == math_member::pi) {
          emit_now(opcode::push_number, 0, math::pi);
        } else {
          emit_now(opcode::push_math, static_cast<std::uint32_t>(*m));
        }
      } else {
        emit_now(opcode::push_number, 0, 0.0);
      }
      ++next;
      break;
    case root_kind::variable:
    case root_kind::query:
    case root_kind::temp: {
      if (count == 1) {
        const store s = root == root_kind::variable ? store::variable
                        : root == root_kind::query  ? store::query
                                                    : store::temp;
        emit_now(opcode::push_object, static_cast<std::uint32_t>(s));
        return;
      }
      const opcode op = root == root_kind::variable ? opcode::load_variable
                        : root == root_kind::query  ? opcode::load_query
                                                    : opcode::load_temp;
      emit_now(op, tree_.names[next]);
      ++next;
      break;
    }
    }
    for (; next < first + count; ++next) {
      emit_now(opcode::load_member, tree_.names[next]);
    }
  }

  bool is_bare(std::int32_t n, std::string_view word) const {
    const node& x = tree_.nodes[n];
    return x.kind == node_kind::path && x.count == 1 && syms_.name(tree_.names[x.first]) == word;
  }

  std::int32_t arg(const node& call, std::uint32_t i) const {
    return i < call.count ? tree_.items[call.first + i] : -1;
  }

  void visit(std::int32_t n) {
    const node& x = tree_.nodes[n];
    seq s;
    switch (x.kind) {
    case node_kind::number:
      emit_now(opcode::push_number, 0, normalize(x.number));
      return;
    case node_kind::string:
      emit_now(opcode::push_string, x.str);
      return;
    case node_kind::path:
      emit_path(x.first, x.count);
      return;
    case node_kind::brk:
      emit_now(opcode::brk);
      return;
    case node_kind::cont:
      emit_now(opcode::cont);
      return;
    case node_kind::ret:
      s.visit(x.a).emit(opcode::ret);
      break;
    case node_kind::neg:
      s.visit(x.a).emit(opcode::neg);
      break;
    case node_kind::logical_not:
      s.visit(x.a).emit(opcode::logical_not);
      break;
    case node_kind::binary:
      binary(x, s);
      break;
    case node_kind::assign:
      assign(x, s);
      break;
    case node_kind::ternary: {
      const auto other = new_label();
      const auto end = new_label();
      s.visit(x.a).jump(opcode::jump_if_false, other).visit(x.b).emit(opcode::branch);
      s.jump(opcode::jump, end).mark(other).visit(x.c).emit(opcode::branch).mark(end);
      break;
    }
    case node_kind::conditional: {
      const auto other = new_label();
      const auto end = new_label();
      s.visit(x.a).jump(opcode::jump_if_false, other).visit(x.b).emit(opcode::branch);
      s.jump(opcode::jump, end).mark(other).emit(opcode::push_number, 0, 0.0).mark(end);
      break;
    }
    case node_kind::call:
      call(x, s);
      break;
    case node_kind::index:
      s.visit(x.a).visit(x.b).emit(opcode::pop).emit(opcode::pop).emit(opcode::push_number);
      break;
    case node_kind::block: {
      const auto unit = static_cast<std::uint32_t>(units_.size());
      units_.push_back({});
      pending_units_.push_back(n);
      emit_now(opcode::push_block, unit);
      return;
    }
    }
    schedule(s);
  }

  void binary(const node& x, seq& s) {
    switch (x.op) {
    case binary_op::coalesce: {
      const auto end = new_label();
      s.visit(x.a).jump(opcode::coalesce, end).visit(x.b).mark(end);
      return;
    }
    case binary_op::logical_and:
    case binary_op::logical_or: {
      const auto end = new_label();
      s.visit(x.a).jump(x.op == binary_op::logical_and ? opcode::and_test : opcode::or_test, end);
      s.visit(x.b).emit(opcode::to_bool).mark(end);
      return;
    }
    case binary_op::arrow:
      s.visit(x.a).emit(opcode::pop).emit(opcode::push_number, 0, 0.0);
      return;
    default:
      break;
    }
    opcode op = opcode::add;
    switch (x.op) {
    case binary_op::eq:
      op = opcode::eq;
      break;
    case binary_op::ne:
      op = opcode::ne;
      break;
    case binary_op::lt:
      op = opcode::lt;
      break;
    case binary_op::le:
      op = opcode::le;
      break;
    case binary_op::gt:
      op = opcode::gt;
      break;
    case binary_op::ge:
      op = opcode::ge;
      break;
    case binary_op::add:
      op = opcode::add;
      break;
    case binary_op::sub:
      op = opcode::sub;
      break;
    case binary_op::mul:
      op = opcode::mul;
      break;
    case binary_op::div:
      op = opcode::div;
      break;
    default:
      break;
    }
    s.visit(x.a).visit(x.b).emit(op);
  }

  void assign(const node& x, seq& s) {
    const node& target = tree_.nodes[x.a];
    s.visit(x.b);
    // Only a target written X.name is evaluated (after the value), and only a store X is written.
    if (target.kind != node_kind::path || target.count < 2) {
      return;
    }
    const name_id last = tree_.names[target.first + target.count - 1];
    if (target.count == 2) {
      switch (syms_.root(tree_.names[target.first])) {
      case root_kind::variable:
        s.emit(opcode::store_variable, last);
        return;
      case root_kind::temp:
        s.emit(opcode::store_temp, last);
        return;
      case root_kind::query:
        s.emit(opcode::push_object, static_cast<std::uint32_t>(store::query));
        s.emit(opcode::store_member, last);
        return;
      default:
        return; // math is read-only; other roots are 0
      }
    }
    prefix_stores_.push_back({target.first, target.count - 1});
    s.items.push_back(
        {task_kind::visit, -2 - static_cast<std::int32_t>(prefix_stores_.size() - 1), {}, -1});
    s.emit(opcode::store_member, last);
  }

  void call(const node& x, seq& s) {
    const node& callee = tree_.nodes[x.a];
    if (is_bare(x.a, "loop")) {
      const auto count = arg(x, 0);
      const auto body = arg(x, 1);
      count >= 0 ? s.visit(count) : s.emit(opcode::push_number, 0, 0.0);
      body >= 0 ? s.visit(body) : s.emit(opcode::push_number, 0, 0.0);
      s.emit(opcode::loop);
      return;
    }
    if (is_bare(x.a, "for_each")) {
      const auto var = arg(x, 0);
      if (var >= 0 && tree_.nodes[var].kind == node_kind::path && tree_.nodes[var].count >= 2) {
        for (std::uint32_t i = 1; i < 3 && i < x.count; ++i) {
          s.visit(arg(x, i)).emit(opcode::pop);
        }
      }
      s.emit(opcode::push_number, 0, 0.0);
      return;
    }
    if (callee.kind == node_kind::number || callee.kind == node_kind::string) {
      s.emit(opcode::push_number, 0, 0.0); // not a function: no argument is evaluated
      return;
    }
    if (callee.kind == node_kind::path) {
      const root_kind root = syms_.root(tree_.names[callee.first]);
      if (root == root_kind::other) {
        s.emit(opcode::push_number, 0, 0.0);
        return;
      }
      if (root == root_kind::math && callee.count == 2) {
        const auto m = syms_.math(tree_.names[callee.first + 1]);
        if (!m || *m == math_member::pi) {
          s.emit(opcode::push_number, 0, 0.0);
          return;
        }
        // Exactly the first `arity` arguments, missing ones 0; extra ones never run.
        const int n = arity(*m);
        for (int i = 0; i < n; ++i) {
          const auto a = arg(x, static_cast<std::uint32_t>(i));
          a >= 0 ? s.visit(a) : s.emit(opcode::push_number, 0, 0.0);
        }
        s.emit(opcode::math_call, static_cast<std::uint32_t>(*m));
        return;
      }
    }
    const auto argc = static_cast<std::uint16_t>(x.count);
    const auto end = new_label();
    const auto invoke = new_label();
    s.visit(x.a).jump(opcode::call_prep, end, argc);
    for (std::uint32_t i = 0; i < x.count; ++i) {
      s.jump(opcode::arg_guard, invoke, static_cast<std::uint16_t>(i)).visit(arg(x, i));
    }
    s.mark(invoke).emit(opcode::call_end, 0, 0.0, argc).mark(end);
  }

  void visit_any(std::int32_t n) {
    if (n <= -2) {
      const auto& p = prefix_stores_[static_cast<std::size_t>(-2 - n)];
      emit_path(p.first, p.count);
      return;
    }
    visit(n);
  }

  const ast& tree_;
  const symbol_table& syms_;
  std::vector<instr> code_;
  std::vector<code_unit> units_;
  std::vector<std::int32_t> pending_units_;
  std::vector<task> tasks_;
  std::vector<label> labels_;
  std::vector<std::pair<std::size_t, std::int32_t>> fixups_;
  struct path_ref {
    std::uint32_t first;
    std::uint32_t count;
  };
  std::vector<path_ref> prefix_stores_;
  std::int64_t depth_ = 0;
  std::int64_t max_depth_ = 0;
  bool reachable_ = true;
};

} // namespace

std::shared_ptr<const program> lower(const ast& tree, program_kind kind,
                                     const symbol_table& symbols, std::uint64_t op_bound) {
  return lowerer(tree, symbols).run(kind, op_bound);
}

} // namespace emote::molang
