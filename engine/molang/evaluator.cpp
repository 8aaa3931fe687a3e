#include "engine/molang/evaluator.hpp"

#include "engine/molang/math_functions.hpp"

#include <algorithm>
#include <cmath>

namespace emote::molang {

namespace detail {

namespace {
enum : std::uint8_t { flag_none = 0, flag_break = 1, flag_continue = 2 };

struct frame {
  bool has_ret = false;
  std::uint8_t flag = flag_none;
  value ret;
};

constexpr auto equipped = static_cast<std::uint32_t>(query_function::is_item_equipped);
constexpr auto charged = static_cast<std::uint32_t>(query_function::item_is_charged);
constexpr std::uint32_t all_arguments = 0xFFFFFFFFu;
} // namespace

class executor {
public:
  static eval_result evaluate(const program& code, session& s, const frame_queries& frame,
                              const player_view* player, core::java_random& rng,
                              std::uint64_t op_limit) {
    if (&code.symbols() != s.symbols_) {
      s.reset(code.symbols()); // another Animation's names: a new Molang session
    }
    s.fit();
    if (code.kind() == program_kind::program) {
      s.begin_frame(); // initialize and tick always follow the host setting the queries
    }
    s.eval_gen_ = ++s.counter_;
    return executor(s, frame, player, rng, op_limit).run(code);
  }

  executor(session& s, const frame_queries& fq, const player_view* player, core::java_random& rng,
           std::uint64_t op_limit)
      : s_(s), syms_(*s.symbols_), fq_(fq), player_(player), rng_(rng), op_limit_(op_limit) {
    budget_.limit = iteration_budget;
  }

  eval_result run(const program& p) {
    frame top;
    value last = value::of(0.0);
    sp_ = 0;
    const bool ok = run_unit(p, 0, top, &last);
    const std::uint64_t ops = ops_ + budget_.used;
    if (ops > op_limit_) {
      sp_ = 0;
      return {0.0, eval_status::op_limit_exceeded, ops};
    }
    if (!ok) {
      sp_ = 0;
      return {0.0, eval_status::budget_exceeded, ops};
    }
    return {to_number(top.has_ret ? top.ret : last), eval_status::ok, ops};
  }

private:
  // ---- values ---------------------------------------------------------------------------------

  double scalar(scalar_query q) const noexcept { return normalize(scalar_value(q, fq_, player_)); }

  double to_number(const value& v) const noexcept {
    switch (v.kind) {
    case value_kind::number:
      return v.number;
    case value_kind::query_function:
      if (v.index == equipped) {
        return scalar(scalar_query::is_item_equipped);
      }
      if (v.index == charged) {
        return scalar(scalar_query::item_is_charged);
      }
      return 0.0;
    default:
      return 0.0;
    }
  }

  bool truthy(const value& v) const noexcept {
    switch (v.kind) {
    case value_kind::number:
      return v.number != 0;
    case value_kind::string:
      return v.index != 0; // id 0 is the empty string
    case value_kind::math_function:
    case value_kind::block:
      return true;
    case value_kind::query_function:
      return to_number(v) != 0;
    case value_kind::object:
      return false;
    }
    return false;
  }

  static bool is_function(const value& v) noexcept {
    return v.kind == value_kind::math_function || v.kind == value_kind::query_function ||
           v.kind == value_kind::block;
  }

  /// How many leading arguments a callee evaluates.
  static std::uint32_t wanted(const value& fn) noexcept {
    switch (fn.kind) {
    case value_kind::math_function:
      return static_cast<std::uint32_t>(arity(static_cast<math_member>(fn.index)));
    case value_kind::query_function:
      return all_arguments;
    default:
      return 0;
    }
  }

  // ---- stores ---------------------------------------------------------------------------------

  value read_variable(name_id n) const noexcept {
    const auto& e = s_.variables_[n];
    return e.gen >= s_.session_gen_ ? e.v : value::of(0.0);
  }
  value read_temp(name_id n) const noexcept {
    const auto& e = s_.temps_[n];
    return e.gen == s_.eval_gen_ ? e.v : value::of(0.0);
  }
  value read_query(name_id n) const noexcept {
    const int c = syms_.query(n);
    if (c < 0) {
      const auto& e = s_.queries_[n];
      return e.gen >= s_.session_gen_ ? e.v : value::of(0.0);
    }
    const auto& o = s_.catalog_[static_cast<std::size_t>(c)];
    const auto& entry = query_catalog()[static_cast<std::size_t>(c)];
    const bool per_evaluation = entry.scalar == scalar_query::key_frame_lerp_time;
    if (per_evaluation ? o.gen == s_.eval_gen_ : o.gen > s_.host_gen_) {
      return o.v;
    }
    if (entry.function) {
      return value::make(value_kind::query_function, static_cast<std::uint32_t>(*entry.function));
    }
    return value::of(scalar(*entry.scalar));
  }
  value read_math(name_id n) const noexcept {
    const auto m = syms_.math(n);
    if (!m) {
      return value::of(0.0);
    }
    if (*m == math_member::pi) {
      return value::of(math::pi);
    }
    return value::make(value_kind::math_function, static_cast<std::uint32_t>(*m));
  }
  value member(const value& x, name_id n) const noexcept {
    if (x.kind != value_kind::object) {
      return value::of(0.0);
    }
    switch (static_cast<store>(x.index)) {
    case store::variable:
      return read_variable(n);
    case store::query:
      return read_query(n);
    case store::temp:
      return read_temp(n);
    case store::math:
      return read_math(n);
    }
    return value::of(0.0);
  }
  void write_variable(name_id n, const value& v) noexcept { s_.variables_[n] = {v, s_.eval_gen_}; }
  void write_temp(name_id n, const value& v) noexcept { s_.temps_[n] = {v, s_.eval_gen_}; }
  void write_query(name_id n, const value& v) noexcept {
    const int c = syms_.query(n);
    if (c < 0) {
      s_.queries_[n] = {v, s_.eval_gen_};
    } else {
      s_.catalog_[static_cast<std::size_t>(c)] = {v, s_.eval_gen_};
    }
  }
  void write_member(const value& x, name_id n, const value& v) noexcept {
    if (x.kind != value_kind::object) {
      return;
    }
    switch (static_cast<store>(x.index)) {
    case store::variable:
      write_variable(n, v);
      return;
    case store::query:
      write_query(n, v);
      return;
    case store::temp:
      write_temp(n, v);
      return;
    case store::math:
      return; // read-only
    }
  }

  // ---- functions ------------------------------------------------------------------------------

  double call_math(math_member m, const double* a) {
    using namespace math;
    switch (m) {
    case math_member::abs:
      return abs(a[0]);
    case math_member::acos:
      return acos(a[0]);
    case math_member::asin:
      return asin(a[0]);
    case math_member::atan:
      return atan(a[0]);
    case math_member::atan2:
      return atan2(a[0], a[1]);
    case math_member::sin:
      return sin(a[0]);
    case math_member::cos:
      return cos(a[0]);
    case math_member::ceil:
      return ceil(a[0]);
    case math_member::floor:
      return floor(a[0]);
    case math_member::round:
      return round(a[0]);
    case math_member::trunc:
      return trunc(a[0]);
    case math_member::clamp:
      return clamp(a[0], a[1], a[2]);
    case math_member::copy_sign:
      return copy_sign(a[0], a[1]);
    case math_member::exp:
      return exp(a[0]);
    case math_member::ln:
      return ln(a[0]);
    case math_member::sqrt:
      return sqrt(a[0]);
    case math_member::pow:
      return pow(a[0], a[1]);
    case math_member::hermite_blend:
      return hermite_blend(a[0]);
    case math_member::lerp:
      return lerp(a[0], a[1], a[2]);
    case math_member::inverse_lerp:
      return inverse_lerp(a[0], a[1], a[2]);
    case math_member::min_angle:
      return min_angle(a[0]);
    case math_member::lerprotate:
      return lerprotate(a[0], a[1], a[2]);
    case math_member::max:
      return max(a[0], a[1]);
    case math_member::min:
      return min(a[0], a[1]);
    case math_member::mod:
      return mod(a[0], a[1]);
    case math_member::sign:
      return sign(a[0]);
    case math_member::random:
      return random::random(rng_, a[0], a[1]);
    case math_member::random_integer:
      return random::random_integer(rng_, a[0], a[1]);
    case math_member::die_roll:
      return random::die_roll(rng_, a[0], a[1], a[2], budget_);
    case math_member::die_roll_integer:
      return random::die_roll_integer(rng_, a[0], a[1], a[2], budget_);
    case math_member::pi:
      return math::pi;
    default:
      break;
    }
    const int i = static_cast<int>(m) - static_cast<int>(math_member::ease_in_quad);
    return ease(static_cast<ease_family>(i / 3), static_cast<ease_form>(i % 3), a[0], a[1], a[2]);
  }

  /// Math function on the first `k` values of `args` (the rest 0), normalised.
  double math_on_values(math_member m, const value* args, std::uint32_t k) {
    double a[3] = {0.0, 0.0, 0.0};
    const auto n = std::min<std::uint32_t>(k, static_cast<std::uint32_t>(arity(m)));
    for (std::uint32_t i = 0; i < n; ++i) {
      a[i] = to_number(args[i]);
    }
    return normalize(call_math(m, a));
  }

  bool same(const value& a, const value& b) const noexcept {
    if (a.kind == value_kind::string || b.kind == value_kind::string) {
      return a.kind == b.kind && a.index == b.index;
    }
    return to_number(a) == to_number(b);
  }

  slot slot_of(const value* args, std::uint32_t k) const noexcept {
    if (k == 0) {
      return slot::main_hand;
    }
    const value& s = args[0];
    if (s.kind == value_kind::number) {
      return s.number == 1 ? slot::off_hand : slot::main_hand;
    }
    if (s.kind == value_kind::string) {
      return syms_.slot(s.index);
    }
    return slot::none;
  }

  double call_query(query_function f, const value* args, std::uint32_t k) const {
    const auto num = [&](std::uint32_t i) { return i < k ? to_number(args[i]) : 0.0; };
    const value zero = value::of(0.0);
    const value& subject = k > 0 ? args[0] : zero;
    switch (f) {
    case query_function::any:
      for (std::uint32_t i = 1; i < k; ++i) {
        if (same(subject, args[i])) {
          return 1.0;
        }
      }
      return 0.0;
    case query_function::all:
      for (std::uint32_t i = 1; i < k; ++i) {
        if (!same(subject, args[i])) {
          return 0.0;
        }
      }
      return 1.0;
    case query_function::approx_eq: {
      const double v = num(0);
      for (std::uint32_t i = 1; i < k; ++i) {
        const double c = to_number(args[i]);
        if (!(std::fabs(v - c) <= std::max(java_ulp(v), java_ulp(c)))) {
          return 0.0;
        }
      }
      return 1.0;
    }
    case query_function::in_range:
      return num(1) <= num(0) && num(0) <= num(2) ? 1.0 : 0.0;
    default:
      break;
    }
    if (player_ == nullptr) {
      return 0.0;
    }
    const player_view& p = *player_;
    switch (f) {
    case query_function::position:
    case query_function::position_delta:
    case query_function::movement_direction: {
      const core::dvec3& v = f == query_function::position ? p.position : p.velocity;
      const std::int32_t i = java_i32(num(0));
      if (i < 0 || i > 2) {
        return 0.0;
      }
      const double c = i == 0 ? v.x : i == 1 ? v.y : v.z;
      if (f != query_function::movement_direction) {
        return c;
      }
      const double d = std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
      return d < static_cast<double>(1e-5f) ? 0.0 : c / d;
    }
    case query_function::is_item_equipped:
      return item_in(p, slot_of(args, k)).empty() ? 0.0 : 1.0;
    case query_function::item_is_charged:
      return item_in(p, slot_of(args, k)).charged ? 1.0 : 0.0;
    case query_function::is_item_name_any: {
      const item_view& item = item_in(p, slot_of(args, k));
      const std::uint32_t from = k > 1 && args[1].kind == value_kind::number ? 2 : 1;
      for (std::uint32_t i = from; i < k; ++i) {
        if (args[i].kind == value_kind::string && syms_.string(args[i].index) == item.name) {
          return 1.0;
        }
      }
      return 0.0;
    }
    case query_function::scoreboard: {
      // Keyed: the scores are sorted by objective (player_view::scores).
      const std::string_view objective =
          k > 0 && args[0].kind == value_kind::string ? syms_.string(args[0].index) : "";
      const auto found = std::lower_bound(
          p.scores.begin(), p.scores.end(), objective,
          [](const auto& entry, std::string_view o) { return std::string_view(entry.first) < o; });
      return found != p.scores.end() && found->first == objective ? found->second : 0.0;
    }
    default:
      return 0.0;
    }
  }

  /// Invoke a function value; a block runs on `f`. False: budget exceeded.
  bool invoke(const value& fn, const value* args, std::uint32_t k, frame& f, value& result,
              bool counted) {
    switch (fn.kind) {
    case value_kind::block:
      if (counted && ++invocations_ > invocation_budget) {
        return false;
      }
      result = value::of(0.0);
      return run_unit(*fn.code, fn.index, f, nullptr);
    case value_kind::math_function:
      result = value::of(math_on_values(static_cast<math_member>(fn.index), args, k));
      return !budget_.exceeded;
    case value_kind::query_function: {
      const auto q = static_cast<query_function>(fn.index);
      if (q == query_function::scoreboard && player_ != nullptr) {
        // molang.md §6: a lookup is charged its probes, so the budget bounds its time.
        ops_ += score_lookup_ops(player_->scores.size());
        if (ops_ + budget_.used > op_limit_) {
          return false;
        }
      }
      result = value::of(normalize(call_query(q, args, k)));
      return true;
    }
    default:
      result = value::of(0.0);
      return true;
    }
  }

  // ---- the interpreter --------------------------------------------------------------------------

  bool run_unit(const program& p, std::uint32_t unit, frame& f, value* last) {
    if (depth_ >= max_invocation_depth) {
      return false;
    }
    const code_unit& cu = p.units()[unit];
    const std::size_t base = sp_;
    if (base + cu.max_stack + 1 > s_.stack_.size()) {
      s_.stack_.resize(std::max(base + cu.max_stack + 1, s_.stack_.size() * 2));
    }
    ++depth_;
    const bool ok = interpret(p, cu.begin, f, last, base);
    --depth_;
    sp_ = base;
    return ok;
  }

  bool interpret(const program& p, std::uint32_t pc, frame& f, value* last, std::size_t sp) {
    const instr* code = p.code().data();
    value* st = s_.stack_.data();
    bool skipped = false;     // an arg_guard jumped to call_end
    std::uint32_t skip_k = 0; // ... with this many arguments evaluated
    const auto nested = [&] { sp_ = sp; };
    const auto refresh = [&] { st = s_.stack_.data(); };
    while (true) {
      // Operations (molang.md §6): every instruction, plus the iterations and draws budget_ counts.
      if (++ops_ + budget_.used > op_limit_) {
        return false;
      }
      const instr& in = code[pc++];
      switch (in.op) {
      case opcode::push_number:
        st[sp++] = value::of(in.num);
        break;
      case opcode::push_string:
        st[sp++] = value::make(value_kind::string, in.a);
        break;
      case opcode::push_math:
        st[sp++] = value::make(value_kind::math_function, in.a);
        break;
      case opcode::push_object:
        st[sp++] = value::make(value_kind::object, in.a);
        break;
      case opcode::push_block: {
        value v = value::make(value_kind::block, in.a);
        v.code = &p;
        st[sp++] = v;
        break;
      }
      case opcode::load_variable:
        st[sp++] = read_variable(in.a);
        break;
      case opcode::load_temp:
        st[sp++] = read_temp(in.a);
        break;
      case opcode::load_query:
        st[sp++] = read_query(in.a);
        break;
      case opcode::load_member:
        st[sp - 1] = member(st[sp - 1], in.a);
        break;
      case opcode::store_variable:
        write_variable(in.a, st[sp - 1]);
        break;
      case opcode::store_temp:
        write_temp(in.a, st[sp - 1]);
        break;
      case opcode::store_member:
        --sp;
        write_member(st[sp], in.a, st[sp - 1]);
        break;
      case opcode::pop:
        --sp;
        break;
      case opcode::neg:
        st[sp - 1] = value::of(-to_number(st[sp - 1]));
        break;
      case opcode::logical_not:
        st[sp - 1] = value::of(truthy(st[sp - 1]) ? 0.0 : 1.0);
        break;
      case opcode::add:
      case opcode::sub:
      case opcode::mul:
      case opcode::div:
      case opcode::lt:
      case opcode::le:
      case opcode::gt:
      case opcode::ge:
      case opcode::eq:
      case opcode::ne: {
        --sp;
        const double a = to_number(st[sp - 1]);
        const double b = to_number(st[sp]);
        st[sp - 1] = value::of(arithmetic(in.op, a, b));
        break;
      }
      case opcode::and_test:
        --sp;
        if (!truthy(st[sp])) {
          st[sp++] = value::of(0.0);
          pc = in.a;
        }
        break;
      case opcode::or_test:
        --sp;
        if (truthy(st[sp])) {
          st[sp++] = value::of(1.0);
          pc = in.a;
        }
        break;
      case opcode::to_bool:
        st[sp - 1] = value::of(truthy(st[sp - 1]) ? 1.0 : 0.0);
        break;
      case opcode::coalesce:
        if (truthy(st[sp - 1])) {
          pc = in.a;
        } else {
          --sp;
        }
        break;
      case opcode::jump:
        pc = in.a;
        break;
      case opcode::jump_if_false:
        --sp;
        if (!truthy(st[sp])) {
          pc = in.a;
        }
        break;
      case opcode::branch:
        if (is_function(st[sp - 1])) {
          const value fn = st[--sp];
          value r;
          nested();
          if (!invoke(fn, nullptr, 0, f, r, true)) {
            return false;
          }
          refresh();
          st[sp++] = r;
        }
        break;
      case opcode::ret:
        f.ret = st[sp - 1];
        f.has_ret = true;
        st[sp - 1] = value::of(0.0);
        break;
      case opcode::brk:
        f.flag = flag_break;
        st[sp++] = value::of(0.0);
        break;
      case opcode::cont:
        f.flag = flag_continue;
        st[sp++] = value::of(0.0);
        break;
      case opcode::call_prep:
        if (!is_function(st[sp - 1])) {
          st[sp - 1] = value::of(0.0); // no argument is evaluated
          pc = in.a;
        }
        break;
      case opcode::arg_guard:
        if (in.x >= wanted(st[sp - 1 - in.x])) {
          skipped = true;
          skip_k = in.x;
          pc = in.a;
        }
        break;
      case opcode::call_end: {
        const std::uint32_t k = skipped ? skip_k : in.x;
        skipped = false;
        const value fn = st[sp - 1 - k];
        value r;
        nested();
        if (!invoke(fn, st + (sp - k), k, f, r, true)) {
          return false;
        }
        refresh();
        sp -= k + 1;
        st[sp++] = r;
        break;
      }
      case opcode::math_call: {
        const auto m = static_cast<math_member>(in.a);
        const auto n = static_cast<std::uint32_t>(arity(m));
        double a[3] = {0.0, 0.0, 0.0};
        for (std::uint32_t i = 0; i < n; ++i) {
          a[i] = to_number(st[sp - n + i]);
        }
        sp -= n;
        const double r = normalize(call_math(m, a));
        if (budget_.exceeded) {
          return false;
        }
        st[sp++] = value::of(r);
        break;
      }
      case opcode::loop: {
        const value body = st[sp - 1];
        const int n = loop_count(to_number(st[sp - 2]));
        sp -= 2;
        if (is_function(body)) {
          for (int i = 0; i < n; ++i) {
            if (!budget_.charge()) {
              return false;
            }
            frame fresh;
            value r;
            nested();
            if (!invoke(body, nullptr, 0, fresh, r, false)) {
              return false;
            }
            if (fresh.has_ret) {
              f.ret = fresh.ret;
              f.has_ret = true;
              break;
            }
            if (fresh.flag == flag_break) {
              break;
            }
          }
          refresh();
        }
        st[sp++] = value::of(0.0);
        break;
      }
      case opcode::stmt_end_top:
        *last = st[--sp];
        if (f.has_ret) {
          return true;
        }
        break;
      case opcode::stmt_end_block:
        --sp;
        if (f.has_ret || f.flag != flag_none) {
          return true;
        }
        break;
      case opcode::unit_end:
        return true;
      }
    }
  }

  static double arithmetic(opcode op, double a, double b) noexcept {
    switch (op) {
    case opcode::add:
      return normalize(a + b);
    case opcode::sub:
      return normalize(a - b);
    case opcode::mul:
      return normalize(a * b);
    case opcode::div:
      return b == 0 ? 0.0 : normalize(a / b);
    case opcode::lt:
      return a < b ? 1.0 : 0.0;
    case opcode::le:
      return a <= b ? 1.0 : 0.0;
    case opcode::gt:
      return a > b ? 1.0 : 0.0;
    case opcode::ge:
      return a >= b ? 1.0 : 0.0;
    case opcode::eq:
      return a == b ? 1.0 : 0.0;
    case opcode::ne:
      return a != b ? 1.0 : 0.0;
    default:
      return 0.0;
    }
  }

  session& s_;
  const symbol_table& syms_;
  const frame_queries& fq_;
  const player_view* player_;
  core::java_random& rng_;
  draw_budget budget_;
  std::uint64_t op_limit_;
  std::uint64_t ops_ = 0; ///< instructions executed
  std::uint64_t invocations_ = 0;
  int depth_ = 0;
  std::size_t sp_ = 0; ///< stack top handed to a nested unit
};

} // namespace detail

eval_result evaluate(const program& code, session& s, const frame_queries& frame,
                     const player_view* player, core::java_random& rng, std::uint64_t op_limit) {
  return detail::executor::evaluate(code, s, frame, player, rng, op_limit);
}

} // namespace emote::molang
