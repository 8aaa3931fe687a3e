#pragma once
// A compiled Molang program (molang.md §6): an immutable, shareable flat instruction array with
// jump offsets. Unit 0 is the program's statement list; every block literal is a further unit.

#include "engine/molang/symbol_table.hpp"

#include <cstdint>
#include <vector>

namespace emote::molang {

/// `program`: initialize/tick programs (may write v.* and t.*). `track`: vector components,
/// visibility values and NBT selectors (only t.*; persistent writes are rejected at load).
enum class program_kind : std::uint8_t { program, track };

enum class opcode : std::uint8_t {
  push_number,    ///< num
  push_string,    ///< a = string id
  push_math,      ///< a = math_member (a function value)
  push_object,    ///< a = store
  push_block,     ///< a = unit
  load_variable,  ///< a = name: v.<name>
  load_temp,      ///< a = name: t.<name>
  load_query,     ///< a = name: q.<name>
  load_member,    ///< a = name: top = entry <name> of top if it is an object, else 0
  store_variable, ///< a = name: v.<name> = top (kept)
  store_temp,     ///< a = name: t.<name> = top (kept)
  store_member,   ///< a = name: pop X; if X is the v, t or q store, X.<name> = top (kept)
  pop,
  neg,
  logical_not,
  add,
  sub,
  mul,
  div,
  lt,
  le,
  gt,
  ge,
  eq,
  ne,
  and_test,       ///< a = target: pop; if false push 0 and jump
  or_test,        ///< a = target: pop; if true push 1 and jump
  to_bool,        ///< top = truth(top) as 1/0
  coalesce,       ///< a = target: if top is true jump (keeping it), else pop
  jump,           ///< a = target
  jump_if_false,  ///< a = target; pops the condition
  branch,         ///< branch rule: a function on top is invoked with no arguments
  ret,            ///< frame.ret = pop; push 0
  brk,            ///< frame.flag = break; push 0
  cont,           ///< frame.flag = continue; push 0
  call_prep,      ///< x = argc, a = end: callee on top; not a function -> 0 and jump to end
  arg_guard,      ///< x = index, a = call_end: skip the remaining arguments the callee ignores
  call_end,       ///< x = argc: invoke the callee with the arguments it evaluated
  math_call,      ///< a = math_member: pops arity numbers, pushes the result
  loop,           ///< pops count and body; runs the loop; pushes 0
  stmt_end_top,   ///< pop the statement value; stop when frame.ret is set
  stmt_end_block, ///< pop; stop when frame.ret or frame.flag is set
  unit_end,
};

struct instr {
  opcode op = opcode::pop;
  std::uint8_t reserved = 0;
  std::uint16_t x = 0;
  std::uint32_t a = 0;
  double num = 0;
};

struct code_unit {
  std::uint32_t begin = 0;     ///< first instruction
  std::uint32_t max_stack = 0; ///< most values the unit keeps on the value stack
  bool top_level = false;
};

/// Stores an object value can denote (molang.md §3.2).
enum class store : std::uint8_t { variable, query, temp, math };

class program {
public:
  program(program_kind kind, const symbol_table& symbols, std::vector<instr> code,
          std::vector<code_unit> units, std::uint64_t op_bound = ~std::uint64_t{0})
      : kind_(kind), symbols_(&symbols), code_(std::move(code)), units_(std::move(units)),
        op_bound_(op_bound) {}

  [[nodiscard]] program_kind kind() const noexcept { return kind_; }
  [[nodiscard]] const symbol_table& symbols() const noexcept { return *symbols_; }
  [[nodiscard]] const std::vector<instr>& code() const noexcept { return code_; }
  [[nodiscard]] const std::vector<code_unit>& units() const noexcept { return units_; }
  /// At least the operations (molang.md §6) of any one evaluation; ~0: no bound (cost.hpp).
  [[nodiscard]] std::uint64_t op_bound() const noexcept { return op_bound_; }

private:
  program_kind kind_;
  const symbol_table* symbols_;
  std::vector<instr> code_;
  std::vector<code_unit> units_;
  std::uint64_t op_bound_;
};

} // namespace emote::molang
