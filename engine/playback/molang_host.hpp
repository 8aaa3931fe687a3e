#pragma once
// The playback's view of Molang: one Molang session bound to an Animation's symbol table, and
// the evaluation of one compiled program against it (molang.md §1, §5.1). Everything Molang the
// playback does goes through here.

#include "engine/content/model.hpp"
#include "engine/core/java_random.hpp"
#include "engine/molang/molang.hpp"

#include <memory>

namespace emote::playback {

/// The per-tick operation budgets an evaluation draws on (players.md §8.6): what the session has
/// left in this tick and, when set, what the whole server has left. Every evaluation takes its
/// operations (molang.md §6) from both.
struct op_budget {
  std::uint64_t session_left = molang::unlimited_ops;
  std::uint64_t* server_left = nullptr; ///< null: no server budget
  bool exhausted = false;               ///< an evaluation ran out of operations
  bool by_server = false;               ///< ... and it was the server's budget that ran out
  /// An evaluation failed on its own (recursion too deep, over a per-evaluation budget,
  /// molang.md §6), not for want of this tick's operations.
  bool evaluation_failed = false;
};

class molang_host {
public:
  explicit molang_host(const content::animation& animation);
  ~molang_host();
  molang_host(const molang_host&) = delete;
  molang_host& operator=(const molang_host&) = delete;
  molang_host(molang_host&&) noexcept;
  molang_host& operator=(molang_host&&) noexcept;

  /// Start a new Molang session: `v.*` and alias-written `q.*` entries are forgotten.
  void new_session();
  /// The host has just set the frame queries (before `initialize` and before every frame).
  void begin_frame();

  /// Evaluate `program` with these frame queries; false on a run-time failure (a budget), with
  /// `out` untouched. `player` may be null (no player). Random draws come from `rng`. With a
  /// `budget`, the operations are taken from it and running out sets `budget->exhausted`.
  bool run(const molang::program& program, const molang::frame_queries& queries,
           const molang::player_view* player, core::java_random& rng, double& out,
           op_budget* budget = nullptr);

private:
  std::unique_ptr<molang::session> session_;
};

} // namespace emote::playback
