#pragma once
// A Molang session (molang.md §1, §3.2): the variable store `v`, the alias-written entries of
// the query store `q`, the temp store `t` of the evaluation now running, and the evaluator's
// value stack. Stores are dense arrays indexed by interned name; resets are O(1) generation
// bumps, so a reused session allocates nothing.

#include "engine/molang/queries.hpp"
#include "engine/molang/symbol_table.hpp"
#include "engine/molang/value.hpp"

#include <array>
#include <cstdint>
#include <vector>

namespace emote::molang {

namespace detail {
class executor;
}

class session {
public:
  /// Sized for `symbols`; the table must outlive the session (and so must every program whose
  /// values — blocks — the session may hold).
  explicit session(const symbol_table& symbols);

  /// Start a new Molang session: v, alias-written q entries and t become empty.
  void reset() noexcept;
  /// Start a new Molang session for another symbol table (e.g. the next Sequence segment).
  void reset(const symbol_table& symbols);

  /// The host has just set the queries (before `initialize` and before each frame): entries
  /// written through an alias (`t.a = q; t.a.anim_time = 1`) are replaced by the catalog values
  /// again. Evaluating a `program`-kind program implies this.
  void begin_frame() noexcept;

  /// Set a non-catalog query entry for this Molang session (host-defined queries; see
  /// compile_options::host_queries). Catalog names are ignored.
  void set_query(name_id name, double value);

  /// The current value of v.<name> (0 when unset).
  [[nodiscard]] value variable(name_id name) const noexcept;

  [[nodiscard]] const symbol_table& symbols() const noexcept { return *symbols_; }

private:
  friend class detail::executor;

  struct slot {
    value v;
    std::uint64_t gen = 0;
  };

  void fit(); ///< grow the stores if the symbol table grew (allocates only then)

  const symbol_table* symbols_;
  std::vector<slot> variables_;
  std::vector<slot> temps_;
  std::vector<slot> queries_;
  std::vector<slot> catalog_; ///< alias writes to catalog query names, by catalog index
  std::uint64_t counter_ = 1;
  std::uint64_t session_gen_ = 1; ///< v and non-catalog q entries written since then are live
  std::uint64_t host_gen_ = 1;    ///< catalog overrides written after this are live
  std::uint64_t eval_gen_ = 1;    ///< the evaluation now running (t entries)
  std::vector<value> stack_;
};

} // namespace emote::molang
