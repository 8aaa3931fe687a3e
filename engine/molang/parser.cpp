#include "engine/molang/parser.hpp"

#include <utility>

namespace emote::molang {

int level(binary_op op) noexcept {
  switch (op) {
  case binary_op::coalesce:
    return 2;
  case binary_op::logical_or:
    return 3;
  case binary_op::logical_and:
    return 4;
  case binary_op::eq:
  case binary_op::ne:
    return 5;
  case binary_op::lt:
  case binary_op::le:
  case binary_op::gt:
  case binary_op::ge:
    return 6;
  case binary_op::add:
  case binary_op::sub:
    return 7;
  case binary_op::mul:
  case binary_op::div:
    return 8;
  case binary_op::arrow:
    return 9;
  }
  return 0;
}

namespace {

constexpr std::string_view gist_missing = "missing operand replaced by 0";
constexpr std::string_view gist_empty_statement = "empty statement";
constexpr std::string_view gist_non_ascii_digit = "non-ASCII digit in name";
constexpr std::string_view gist_paren_regroup = "parentheses ignored by ternary regrouping";

enum class marker_kind : std::uint8_t {
  bottom,      ///< the program; its items are the top-level statements
  paren,       ///< '(' expr ')'
  block,       ///< '{' stmt { ';' stmt } '}'
  call,        ///< callee '(' args ')': x = callee
  index,       ///< x '[' expr ']'
  neg,         ///< prefix '-'
  logical_not, ///< prefix '!'
  ret,         ///< 'return' expr
  ques,        ///< x '?' (true branch open)
  colon,       ///< x '?' y ':' (false branch open)
  binop,       ///< left operand op (right operand open)
  assign,      ///< left operand '=' (right operand open)
};

struct marker {
  marker_kind kind = marker_kind::bottom;
  binary_op op = binary_op::add;
  std::int32_t x = -1;
  std::int32_t y = -1;
  std::uint32_t items_begin = 0;
  std::uint32_t tok = 0;
};

bool counts_for_nesting(marker_kind k) noexcept {
  switch (k) {
  case marker_kind::paren:
  case marker_kind::block:
  case marker_kind::call:
  case marker_kind::index:
  case marker_kind::neg:
  case marker_kind::logical_not:
  case marker_kind::ret:
  case marker_kind::ques:
    return true;
  default:
    return false;
  }
}

bool binary_token(token_kind k, binary_op& op) noexcept {
  switch (k) {
  case token_kind::ques_ques:
    op = binary_op::coalesce;
    return true;
  case token_kind::bar_bar:
    op = binary_op::logical_or;
    return true;
  case token_kind::amp_amp:
    op = binary_op::logical_and;
    return true;
  case token_kind::eq_eq:
    op = binary_op::eq;
    return true;
  case token_kind::bang_eq:
    op = binary_op::ne;
    return true;
  case token_kind::less:
    op = binary_op::lt;
    return true;
  case token_kind::less_eq:
    op = binary_op::le;
    return true;
  case token_kind::greater:
    op = binary_op::gt;
    return true;
  case token_kind::greater_eq:
    op = binary_op::ge;
    return true;
  case token_kind::plus:
    op = binary_op::add;
    return true;
  case token_kind::minus:
    op = binary_op::sub;
    return true;
  case token_kind::star:
    op = binary_op::mul;
    return true;
  case token_kind::slash:
    op = binary_op::div;
    return true;
  case token_kind::arrow:
    op = binary_op::arrow;
    return true;
  default:
    return false;
  }
}

enum class state { operand, single_done, postfix, after, done };

class parser {
public:
  parser(const lex_result& lx, std::string_view src, symbol_table& syms)
      : lx_(lx), src_(src), syms_(syms) {}

  parse_output run() {
    if (cur().kind == token_kind::end) {
      return std::move(out_);
    }
    markers_.push_back({marker_kind::bottom});
    state s = state::operand;
    while (s != state::done) {
      if (cur().kind == token_kind::error) {
        fail(lx_.error);
        return std::move(out_);
      }
      switch (s) {
      case state::operand:
        s = operand();
        break;
      case state::single_done:
        s = single_done();
        break;
      case state::postfix:
        s = postfix();
        break;
      case state::after:
        s = after();
        break;
      case state::done:
        break;
      }
      if (!out_.error.empty()) {
        return std::move(out_);
      }
    }
    out_.too_deep = max_depth_ > max_nesting;
    return std::move(out_);
  }

private:
  const token& cur() const noexcept { return lx_.tokens[pos_]; }
  std::uint32_t here() const noexcept { return static_cast<std::uint32_t>(pos_); }

  void advance() noexcept {
    prev_ = cur().kind;
    at_start_ = false;
    ++pos_;
  }

  state fail(std::string_view detail) {
    const token& t = cur();
    out_.error =
        std::string(detail) + " at " + std::to_string(t.line) + ":" + std::to_string(t.column);
    return state::done;
  }

  state unexpected() {
    return fail(std::string("unexpected ") + std::string(describe(cur().kind)));
  }

  std::int32_t add(const node& n) {
    out_.tree.nodes.push_back(n);
    return static_cast<std::int32_t>(out_.tree.nodes.size() - 1);
  }
  node& at(std::int32_t i) { return out_.tree.nodes[i]; }

  std::int32_t pop_operand() {
    const std::int32_t n = operands_.back();
    operands_.pop_back();
    return n;
  }

  void open(marker m) {
    if (counts_for_nesting(m.kind)) {
      ++depth_;
      if (depth_ > max_depth_) {
        max_depth_ = depth_;
      }
    }
    markers_.push_back(m);
  }

  void push_leaf(node_kind kind, double number = 0) {
    node n;
    n.kind = kind;
    n.number = number;
    n.tok = n.start = here();
    operands_.push_back(add(n));
  }

  void warn(std::string_view gist, std::uint32_t tok) { out_.warnings.push_back({gist, tok}); }

  // ---- states ---------------------------------------------------------------------------------

  state operand() {
    const token& t = cur();
    switch (t.kind) {
    case token_kind::number:
      push_leaf(node_kind::number, t.number);
      advance();
      return state::single_done;
    case token_kind::kw_true:
    case token_kind::kw_false:
      push_leaf(node_kind::number, t.kind == token_kind::kw_true ? 1.0 : 0.0);
      advance();
      return state::single_done;
    case token_kind::string: {
      push_leaf(node_kind::string);
      at(operands_.back()).str = syms_.intern_string(src_.substr(t.begin + 1, t.end - t.begin - 2));
      advance();
      return state::single_done;
    }
    case token_kind::kw_break:
      push_leaf(node_kind::brk);
      advance();
      return state::single_done;
    case token_kind::kw_continue:
      push_leaf(node_kind::cont);
      advance();
      return state::single_done;
    case token_kind::ident:
      return path();
    case token_kind::lparen:
      return open_and_advance(marker_kind::paren);
    case token_kind::lbrace:
      return open_and_advance(marker_kind::block);
    case token_kind::minus:
      return open_and_advance(marker_kind::neg);
    case token_kind::bang:
      return open_and_advance(marker_kind::logical_not);
    case token_kind::kw_return:
      return open_and_advance(marker_kind::ret);
    default:
      break;
    }
    // Nothing here can start a single: the operand is the literal 0 and nothing is consumed.
    const marker_kind top = markers_.back().kind;
    const bool after_separator = at_start_ || prev_ == token_kind::semicolon;
    if (top == marker_kind::bottom && t.kind == token_kind::semicolon && after_separator) {
      warn(gist_empty_statement, here());
    } else if (top == marker_kind::block && t.kind == token_kind::rbrace &&
               (prev_ == token_kind::lbrace || prev_ == token_kind::semicolon)) {
      // `{}` and a block's final empty statement after ';' are not reported
    } else {
      warn(gist_missing, here());
    }
    push_leaf(node_kind::number, 0.0);
    at(operands_.back()).missing = true;
    return state::single_done;
  }

  state open_and_advance(marker_kind kind) {
    marker m;
    m.kind = kind;
    m.tok = here();
    m.items_begin = static_cast<std::uint32_t>(pending_.size());
    open(m);
    advance();
    return state::operand;
  }

  state path() {
    node n;
    n.kind = node_kind::path;
    n.tok = n.start = here();
    n.first = static_cast<std::uint32_t>(out_.tree.names.size());
    while (true) {
      const token& t = cur();
      out_.tree.names.push_back(syms_.intern_name(src_.substr(t.begin, t.end - t.begin)));
      if (t.non_ascii_digit) {
        warn(gist_non_ascii_digit, here());
      }
      advance();
      if (cur().kind != token_kind::dot) {
        break;
      }
      advance();
      if (cur().kind != token_kind::ident) {
        if (cur().kind == token_kind::error) {
          return fail(lx_.error);
        }
        return fail(std::string("expected a name after '.' but found ") +
                    std::string(describe(cur().kind)));
      }
    }
    n.count = static_cast<std::uint32_t>(out_.tree.names.size()) - n.first;
    operands_.push_back(add(n));
    return state::single_done;
  }

  state single_done() {
    while (markers_.back().kind == marker_kind::neg ||
           markers_.back().kind == marker_kind::logical_not) {
      reduce_top();
    }
    return state::postfix;
  }

  state postfix() {
    const token& t = cur();
    if (t.kind == token_kind::lparen) {
      const std::int32_t callee = pop_operand();
      marker m;
      m.kind = marker_kind::call;
      m.x = callee;
      m.tok = here();
      m.items_begin = static_cast<std::uint32_t>(pending_.size());
      open(m);
      advance();
      if (cur().kind == token_kind::rparen) {
        advance();
        finish_call();
        return state::postfix;
      }
      return state::operand;
    }
    if (t.kind == token_kind::lbracket) {
      const std::int32_t target = pop_operand();
      marker m;
      m.kind = marker_kind::index;
      m.x = target;
      m.tok = here();
      advance();
      if (cur().kind == token_kind::rbracket || cur().kind == token_kind::end) {
        return fail(std::string("expected an index expression but found ") +
                    std::string(describe(cur().kind)));
      }
      open(m);
      return state::operand;
    }
    return state::after;
  }

  state after() {
    const token& t = cur();
    binary_op op{};
    if (binary_token(t.kind, op)) {
      while (markers_.back().kind == marker_kind::binop && level(markers_.back().op) >= level(op)) {
        reduce_top();
      }
      marker m;
      m.kind = marker_kind::binop;
      m.op = op;
      m.tok = here();
      open(m);
      advance();
      return state::operand;
    }
    switch (t.kind) {
    case token_kind::eq:
    case token_kind::ques: {
      reduce_while([](marker_kind k) {
        return k == marker_kind::binop || k == marker_kind::assign || k == marker_kind::colon;
      });
      marker m;
      m.tok = here();
      if (t.kind == token_kind::eq) {
        m.kind = marker_kind::assign;
      } else {
        m.kind = marker_kind::ques;
        m.x = pop_operand();
      }
      open(m);
      advance();
      return state::operand;
    }
    case token_kind::colon: {
      reduce_while([](marker_kind k) {
        return k == marker_kind::binop || k == marker_kind::assign || k == marker_kind::colon ||
               k == marker_kind::ret || k == marker_kind::neg || k == marker_kind::logical_not;
      });
      marker& m = markers_.back();
      if (m.kind != marker_kind::ques) {
        return unexpected();
      }
      m.y = pop_operand();
      m.kind = marker_kind::colon;
      --depth_;
      advance();
      return state::operand;
    }
    case token_kind::rparen:
    case token_kind::rbracket:
    case token_kind::rbrace:
    case token_kind::comma:
    case token_kind::semicolon:
    case token_kind::end:
      return close(t.kind);
    default:
      return unexpected();
    }
  }

  template <class Pred>
  void reduce_while(Pred pred) {
    while (pred(markers_.back().kind)) {
      reduce_top();
    }
  }

  state close(token_kind k) {
    reduce_while([](marker_kind m) {
      return m == marker_kind::binop || m == marker_kind::assign || m == marker_kind::colon ||
             m == marker_kind::ret || m == marker_kind::neg || m == marker_kind::logical_not ||
             m == marker_kind::ques;
    });
    const marker top = markers_.back();
    switch (k) {
    case token_kind::rparen:
      if (top.kind == marker_kind::paren) {
        markers_.pop_back();
        --depth_;
        node& n = at(operands_.back());
        n.paren = true;
        n.paren_tok = top.tok;
        n.start = top.tok;
        advance();
        return state::single_done;
      }
      if (top.kind == marker_kind::call) {
        pending_.push_back(pop_operand());
        advance();
        finish_call();
        return state::postfix;
      }
      break;
    case token_kind::rbracket:
      if (top.kind == marker_kind::index) {
        markers_.pop_back();
        --depth_;
        node n;
        n.kind = node_kind::index;
        n.b = pop_operand();
        n.a = top.x;
        n.tok = top.tok;
        n.start = at(top.x).start;
        operands_.push_back(add(n));
        advance();
        return state::postfix;
      }
      break;
    case token_kind::rbrace:
      if (top.kind == marker_kind::block) {
        pending_.push_back(pop_operand());
        markers_.pop_back();
        --depth_;
        node n;
        n.kind = node_kind::block;
        n.tok = n.start = top.tok;
        take_items(top.items_begin, n);
        operands_.push_back(add(n));
        advance();
        return state::single_done;
      }
      break;
    case token_kind::comma:
      if (top.kind == marker_kind::call) {
        pending_.push_back(pop_operand());
        advance();
        return state::operand;
      }
      break;
    case token_kind::semicolon:
      if (top.kind == marker_kind::block) {
        pending_.push_back(pop_operand());
        advance();
        return state::operand;
      }
      if (top.kind == marker_kind::bottom) {
        pending_.push_back(pop_operand());
        advance();
        if (cur().kind == token_kind::end) {
          return finish();
        }
        return state::operand;
      }
      break;
    case token_kind::end:
      if (top.kind == marker_kind::bottom) {
        pending_.push_back(pop_operand());
        return finish();
      }
      return fail(std::string("unexpected end of input (unclosed ") +
                  std::string(describe(lx_.tokens[top.tok].kind)) + " at " +
                  std::to_string(lx_.tokens[top.tok].line) + ":" +
                  std::to_string(lx_.tokens[top.tok].column) + ")");
    default:
      break;
    }
    return unexpected();
  }

  void take_items(std::uint32_t begin, node& n) {
    auto& items = out_.tree.items;
    n.first = static_cast<std::uint32_t>(items.size());
    n.count = static_cast<std::uint32_t>(pending_.size()) - begin;
    items.insert(items.end(), pending_.begin() + begin, pending_.end());
    pending_.resize(begin);
  }

  void finish_call() {
    const marker m = markers_.back();
    markers_.pop_back();
    --depth_;
    node n;
    n.kind = node_kind::call;
    n.a = m.x;
    n.tok = m.tok;
    n.start = at(m.x).start;
    take_items(m.items_begin, n);
    operands_.push_back(add(n));
  }

  state finish() {
    node program;
    take_items(0, program);
    out_.tree.root_first = program.first;
    out_.tree.root_count = program.count;
    return state::done;
  }

  void reduce_top() {
    const marker m = markers_.back();
    markers_.pop_back();
    if (counts_for_nesting(m.kind)) {
      --depth_;
    }
    node n;
    n.tok = m.tok;
    switch (m.kind) {
    case marker_kind::binop:
    case marker_kind::assign:
      n.kind = m.kind == marker_kind::binop ? node_kind::binary : node_kind::assign;
      n.op = m.op;
      n.b = pop_operand();
      n.a = pop_operand();
      n.start = at(n.a).start;
      break;
    case marker_kind::colon:
      n.kind = node_kind::ternary;
      n.a = m.x;
      n.b = m.y;
      n.c = pop_operand();
      n.start = at(m.x).start;
      break;
    case marker_kind::ques:
      n.kind = node_kind::conditional;
      n.a = m.x;
      n.b = pop_operand();
      n.start = at(m.x).start;
      break;
    case marker_kind::ret:
      n.kind = node_kind::ret;
      n.a = pop_operand();
      n.start = m.tok;
      break;
    case marker_kind::neg:
    case marker_kind::logical_not: {
      n.a = pop_operand();
      n.start = m.tok;
      if (m.kind == marker_kind::neg && at(n.a).kind == node_kind::number) {
        // `-` on a number (parenthesised at any depth) folds into a negative literal.
        n.kind = node_kind::number;
        n.number = -at(n.a).number;
        n.a = -1;
      } else {
        n.kind = m.kind == marker_kind::neg ? node_kind::neg : node_kind::logical_not;
      }
      break;
    }
    default:
      return;
    }
    operands_.push_back(add(n));
  }

  const lex_result& lx_;
  std::string_view src_;
  symbol_table& syms_;
  parse_output out_;
  std::vector<marker> markers_;
  std::vector<std::int32_t> operands_;
  std::vector<std::int32_t> pending_;
  std::size_t pos_ = 0;
  token_kind prev_ = token_kind::end;
  bool at_start_ = true;
  int depth_ = 0;
  int max_depth_ = 0;
};

} // namespace

parse_output parse(const lex_result& tokens, std::string_view source, symbol_table& symbols) {
  return parser(tokens, source, symbols).run();
}

void normalize(ast& tree, std::vector<parse_warning>& warnings) {
  std::vector<std::int32_t> stack;
  for (std::uint32_t i = 0; i < tree.root_count; ++i) {
    stack.push_back(tree.items[tree.root_first + tree.root_count - 1 - i]);
  }
  std::vector<std::int32_t> children;
  while (!stack.empty()) {
    const std::int32_t n = stack.back();
    stack.pop_back();
    // Rewrite this node until no rule applies; new subtrees are visited as children.
    while (true) {
      node& x = tree.nodes[n];
      if (x.kind == node_kind::call) {
        const node callee = tree.nodes[x.a];
        if (callee.kind == node_kind::neg || callee.kind == node_kind::logical_not) {
          // N1: (-e)(args) -> -(e(args))
          node inner = x;
          inner.a = callee.a;
          inner.paren = false;
          inner.start = tree.nodes[callee.a].start;
          tree.nodes.push_back(inner);
          node& y = tree.nodes[n];
          y.kind = callee.kind;
          y.a = static_cast<std::int32_t>(tree.nodes.size() - 1);
          y.first = y.count = 0;
          y.tok = callee.tok;
          y.start = callee.start;
          continue;
        }
        break;
      }
      if (x.kind != node_kind::ternary) {
        break;
      }
      const std::int32_t ci = x.a;
      const node cond = tree.nodes[ci];
      if (cond.kind == node_kind::ternary) {
        // N2: (a ? b : c) ? d : e -> a ? b : (c ? d : e)
        if (cond.paren) {
          warnings.push_back({gist_paren_regroup, cond.paren_tok});
        }
        node& inner = tree.nodes[ci];
        inner.a = cond.c;
        inner.b = x.b;
        inner.c = x.c;
        inner.paren = false;
        inner.tok = x.tok;
        inner.start = tree.nodes[cond.c].start;
        node& outer = tree.nodes[n];
        outer.a = cond.a;
        outer.b = cond.b;
        outer.c = ci;
        outer.tok = cond.tok;
        if (!outer.paren) {
          outer.start = tree.nodes[cond.a].start;
        }
        continue;
      }
      if (cond.kind == node_kind::assign) {
        // N3: (x = y) ? d : e -> x = (y ? d : e)
        if (cond.paren) {
          warnings.push_back({gist_paren_regroup, cond.paren_tok});
        }
        node& inner = tree.nodes[ci];
        inner.kind = node_kind::ternary;
        inner.a = cond.b;
        inner.b = x.b;
        inner.c = x.c;
        inner.paren = false;
        inner.tok = x.tok;
        inner.start = tree.nodes[cond.b].start;
        node& outer = tree.nodes[n];
        outer.kind = node_kind::assign;
        outer.a = cond.a;
        outer.b = ci;
        outer.c = -1;
        outer.tok = cond.tok;
        if (!outer.paren) {
          outer.start = tree.nodes[cond.a].start;
        }
        continue;
      }
      break;
    }
    children.clear();
    tree.for_each_child(n, [&](std::int32_t c) { children.push_back(c); });
    for (auto it = children.rbegin(); it != children.rend(); ++it) {
      stack.push_back(*it);
    }
  }
}

} // namespace emote::molang
