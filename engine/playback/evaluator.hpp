#pragma once
// One Animation cycle (playback.md §1.1, §2): the Molang session, the keyframe cursors and, per
// node, the evaluated world matrix, requested visibility and NBT state. A playback keeps one
// evaluator per Animation it plays and begins it again at every cycle or segment entry.
//
// Steady state allocates nothing: per-node arrays are sized once; NBT states only change (and
// may allocate) when an NBT keyframe is applied.

#include "engine/core/java_random.hpp"
#include "engine/core/memo.hpp"
#include "engine/core/snbt.hpp"
#include "engine/math/types.hpp"
#include "engine/molang/molang.hpp"
#include "engine/playback/molang_host.hpp"
#include "engine/playback/prepared.hpp"

#include <array>
#include <cstdint>
#include <vector>

namespace emote::playback {

/// What an evaluation reads from outside: the initiator's Molang view (null: no player), the
/// session generator G and the per-tick operation budgets (null: none).
struct eval_env {
  const molang::player_view* player = nullptr;
  core::java_random* rng = nullptr;
  op_budget* budget = nullptr;
  /// `check`: every baked pose is also evaluated and compared (core::cache_mismatch names the
  /// session and node); `off`: baked poses are used all the same (they are load-time content).
  core::cache_mode caches = core::cache_mode::on;
  api::session_id session = 0; ///< for the mismatch report
};

class evaluator {
public:
  explicit evaluator(const prepared_animation& animation);
  // Node states point at this evaluator's own runtime worlds.
  evaluator(const evaluator&) = delete;
  evaluator& operator=(const evaluator&) = delete;

  [[nodiscard]] const prepared_animation& animation() const noexcept { return *animation_; }

  /// Cycle begin begin(t0, n): a new Molang session, `initialize`, cursors reset to t0, NBT
  /// states emptied, then evaluate(t0) with delta_time 0. False on a run-time failure.
  bool begin(std::int64_t t0, std::int32_t loop_count, const eval_env& env);
  /// An advance: evaluate tick t (≥ the current tick) with delta_time 0.05.
  bool advance_to(std::int64_t t, const eval_env& env);

  [[nodiscard]] std::int64_t tick() const noexcept { return t_; }
  [[nodiscard]] std::int32_t loop_count() const noexcept { return loop_count_; }

  [[nodiscard]] const math::mat4f& world(std::int32_t node) const noexcept {
    return *state_[static_cast<std::size_t>(node)].pose;
  }
  /// Whether world(node) is a baked pose: an entry of the animation's table, which stays put
  /// and unchanged as long as the animation lives (else it is this evaluator's, rewritten by
  /// the next evaluation).
  [[nodiscard]] bool world_is_baked(std::int32_t node) const noexcept {
    const auto i = static_cast<std::size_t>(node);
    return state_[i].pose != &runtime_[i].world;
  }
  [[nodiscard]] bool visible(std::int32_t node) const noexcept {
    return state_[static_cast<std::size_t>(node)].visible;
  }
  [[nodiscard]] const core::nbt_compound& nbt(std::int32_t node) const noexcept {
    return runtime_[static_cast<std::size_t>(node)].nbt;
  }
  /// Changes whenever the node's NBT state changes (including when it is emptied).
  [[nodiscard]] std::uint64_t nbt_version(std::int32_t node) const noexcept {
    return state_[static_cast<std::size_t>(node)].nbt_version;
  }

private:
  /// What every evaluation reads and writes of a node (32 bytes: thousands of evaluators are
  /// walked every tick, and a baked node needs nothing else).
  struct node_state {
    /// The node's world matrix: a baked pose's entry in the animation's table (it outlives this
    /// evaluator; a baked node's tick writes one pointer, not 64 bytes), else its runtime world.
    const math::mat4f* pose = nullptr;
    std::uint64_t nbt_version = 0;
    std::uint32_t visible_key = 0;
    std::uint32_t nbt_next = 0; ///< the next NBT keyframe not yet applied in this cycle
    bool visible = true;
  };
  /// The rest: keyframe cursors and the pose of nodes evaluated at run time, the NBT state.
  struct node_runtime {
    std::uint32_t position = 0; ///< keyframe cursors
    std::uint32_t rotation = 0;
    std::uint32_t scale = 0;
    math::mat4f world;
    core::nbt_compound nbt;
  };

  bool evaluate(std::int64_t t, double delta, const eval_env& env);
  bool run(const content::program_ptr& p, const eval_env& env, double& out);
  bool component(const content::track_value& v, const eval_env& env, double& out);
  bool vector3(const content::track_vector& v, const eval_env& env, std::array<double, 3>& out);
  bool vector_channel(std::span<const content::vector_keyframe> keys, std::uint32_t& cursor,
                      const std::array<double, 3>& fallback, std::int64_t t, const eval_env& env,
                      std::array<double, 3>& out);
  bool rotation_channel(std::span<const content::vector_keyframe> keys, std::uint32_t& cursor,
                        const std::array<double, 3>& fallback, std::int64_t t, const eval_env& env,
                        math::quatf& out);
  bool apply_nbt(std::int32_t node, std::int64_t t, const eval_env& env);
  /// Node `i`'s world matrix at tick `t` the way unbaked nodes get it (its parent's world must
  /// be current); false on a run-time failure.
  bool runtime_world(std::int32_t i, std::int64_t t, const eval_env& env, std::uint32_t& position,
                     std::uint32_t& rotation, std::uint32_t& scale, math::mat4f& out);
  /// `check` mode: node `i`'s baked pose against runtime_world; throws core::cache_mismatch.
  void check_baked(std::int32_t i, std::int64_t t, const eval_env& env);

  const prepared_animation* animation_;
  molang_host molang_;
  molang::frame_queries queries_;
  std::vector<node_state> state_;
  std::vector<node_runtime> runtime_; ///< sized once: state_'s poses point into it
  std::int64_t t_ = 0;
  std::int32_t loop_count_ = 0;
  std::uint64_t version_counter_ = 0;
};

} // namespace emote::playback
