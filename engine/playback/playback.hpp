#pragma once
// One running emote of one session (playback.md §1–§5): a standalone Animation in one of its
// four modes, a linear compiled Sequence, or a two-player Sequence (offer, WAITING, a branch).
// The engine drives it through the tick phases of §1.3 and collects its records:
//
//   P1  start(pool, ctx)               spawn pose 0 + `start` events (after admission, §4.1)
//   P3  follow(ctx, feet, yaw)         (a) root follow, (b) view follow — only if follows()
//       release_deferred_visibility(ctx) (c) first advancing tick only (later calls do nothing)
//       advance(ctx)                   (d) one tick (WAITING: nothing)
//       finished() / failed()          (e) → stop(ctx) with FINISHED / ERROR (engine's reason)
//   P4  offer_complete() → enter_waiting() | start_branch(matched|timeout, ctx)
//       activate_partner_space()       after a MATCHED branch start
//   any set_hand_items(who, right, left) on equipment changes (refresh records)
//   P5  emit(out)                      segment.started, display.spawn, .move, .view, .update,
//                                      .remove of this session, in protocol.md §6 order
//       release_handles(pool)          after the frame of the tick in which it stopped
//
// Command and callback records are appended to `tick_context::commands` at the moment their
// event runs (execution order across sessions is the engine's phase order).
// Steady-state ticks allocate nothing (beyond the caller's event vectors growing).

#include "engine/api/event.hpp"
#include "engine/core/java_random.hpp"
#include "engine/core/memo.hpp"
#include "engine/math/types.hpp"
#include "engine/molang/molang.hpp"
#include "engine/playback/evaluator.hpp"
#include "engine/playback/handles.hpp"
#include "engine/playback/prepared.hpp"
#include "engine/playback/roots.hpp"
#include "engine/playback/segments.hpp"
#include "engine/playback/selection.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace emote::playback {

/// players.md §7.1: SOLO for single-player playbacks; a two-player session moves OFFERING →
/// WAITING → MATCHED | TIMEOUT (or OFFERING → MATCHED).
enum class session_phase : std::uint8_t { solo, offering, waiting, matched, timeout };
std::string_view name(session_phase p) noexcept; ///< "SOLO", "OFFERING", …

/// Everything a playback needs to know at its start.
struct start_info {
  api::session_id session = 0;
  /// The caches' options (the engine's or stress run's configuration): the decomposition memo
  /// and baked poses are used, bypassed or checked (core::cache_mode).
  core::cache_options caches;
  std::string player;    ///< the initiating player's id (command records' `player`)
  std::string dimension; ///< the player's dimension at start
  core::dvec3 feet;      ///< the initiator's feet position at start
  float yaw = 0;         ///< the initiator's raw entity yaw at start (unwrapped)
  /// `api` placement (players.md §6.1): replaces feet and yaw as the scene root and disables
  /// following. Ignored by two-player Sequences.
  std::optional<api::placement> placement;
  std::int64_t game_time = 0;    ///< the world's game time in the start tick (server_sync)
  session_generators generators; ///< make_session_generators(server_seed, session number)
  api::item_stack right_hand;    ///< the initiator's hands (participant_hand items)
  api::item_stack left_hand;
};

/// This thread's matrix-decomposition memo (core::direct_memo): its size and use (metrics).
[[nodiscard]] core::memo_stats decomposition_memo_stats() noexcept;
/// Test only: flip a bit of one entry of this thread's decomposition memo (false: it is empty),
/// the corruption `--check-caches` exists to catch.
bool corrupt_decomposition_memo_for_test() noexcept;

/// The per-call environment of the phases that evaluate or run events.
struct tick_context {
  api::tick_number tick = 0;
  const molang::player_view* player = nullptr; ///< the initiator's Molang view; null: no player
  std::vector<api::event>* commands = nullptr; ///< command and callback records go here
  /// players.md §8.6: Molang operations a session may execute in one tick, and what the server
  /// has left in this tick (null: no server budget).
  std::uint64_t session_tick_ops = molang::unlimited_ops;
  std::uint64_t* server_ops_left = nullptr;
};

class playback {
public:
  playback(std::shared_ptr<const prepared_emote> emote, start_info info);
  ~playback();
  playback(const playback&) = delete;
  playback& operator=(const playback&) = delete;

  // ----- queries
  [[nodiscard]] const prepared_emote& emote() const noexcept { return *emote_; }
  [[nodiscard]] api::session_id session() const noexcept { return info_.session; }
  /// Handles this playback holds once started (non-anchor union nodes): the `own` term of the
  /// display-limit admission.
  [[nodiscard]] std::size_t handle_count() const noexcept { return emote_->handle_count(); }
  [[nodiscard]] const std::vector<api::handle_id>& handles() const noexcept { return handle_ids_; }
  [[nodiscard]] session_phase phase() const noexcept { return phase_; }
  [[nodiscard]] bool started() const noexcept { return started_; }
  /// The playback reached its end this tick (once, compiled Sequence, branch): stop FINISHED.
  [[nodiscard]] bool finished() const noexcept { return finished_; }
  /// A run-time failure (playback.md §2.8): stop with failure_reason().
  [[nodiscard]] bool failed() const noexcept { return failed_; }
  /// Why a failed playback stops: MOLANG_BUDGET when an evaluation ran out of this tick's
  /// operations (players.md §8.6), else ERROR.
  [[nodiscard]] api::stop_reason failure_reason() const noexcept {
    return ops_.exhausted ? api::stop_reason::molang_budget : api::stop_reason::error;
  }
  /// Whether a Molang evaluation failed on its own (recursion, a per-evaluation budget): the
  /// start is refused `molang_error` (players.md §6.2).
  [[nodiscard]] bool molang_failed() const noexcept { return ops_.evaluation_failed; }
  /// Whether the operations that ran out were the server's (players.md §8.6).
  [[nodiscard]] bool server_budget_exhausted() const noexcept { return ops_.by_server; }
  [[nodiscard]] bool stopped() const noexcept { return stopped_; }
  /// Two-player: the offer's last pose was applied (tick S + D_offer); phase 4 decides.
  [[nodiscard]] bool offer_complete() const noexcept { return offer_complete_; }
  /// Advances done since the start (`state.get` tick).
  [[nodiscard]] std::int64_t ticks_advanced() const noexcept { return advanced_; }
  /// Whether root and view follow the initiator (playback.md §4.7, §4.8, players.md §7.9).
  [[nodiscard]] bool follows() const noexcept;
  [[nodiscard]] float view_yaw() const noexcept { return view_yaw_; }
  [[nodiscard]] float relative_yaw() const noexcept { return rel_; }
  /// The rotation_deadzone in effect (playback.md §3.6).
  [[nodiscard]] double rotation_deadzone() const noexcept { return deadzone_; }
  [[nodiscard]] const root& space_root(api::space s) const noexcept {
    return roots_[static_cast<std::size_t>(s)];
  }
  [[nodiscard]] bool partner_space_active() const noexcept { return partner_active_; }

  /// Its cursors, generators, roots, view, flags and per-handle emitted state (protocol.md §8
  /// state digests; the evaluators' caches are derived and left out).
  /// Instantiated for core::state_sink (any sink) and core::state_hasher (inlined, every tick).
  template <class Sink>
  void describe(Sink& s) const;
  /// The digest of the display part of describe (roots, hands, nodes, handles), which a
  /// state_hasher mixes as one word: kept and recomputed only after one of them changed (`fresh`:
  /// recompute and leave the kept one alone, to check it).
  [[nodiscard]] std::uint64_t displays_digest(bool fresh) const;

  // ----- test hook
  /// Replace the selection generator (playback.md §3.1 allows a scripted source in tests). The
  /// source must outlive the playback.
  void set_selection_source(int_source* source) noexcept { selection_override_ = source; }

  // ----- phases
  /// P1: acquire handles, evaluate pose 0 (or the server_sync snapshot), queue the spawns, run
  /// the `start` events. False on a run-time failure (failed() is then true).
  bool start(handle_pool& pool, tick_context& ctx);
  /// P3a + P3b with the initiator's current feet and yaw; nothing when !follows() or in the
  /// tick the playback started.
  void follow(const tick_context& ctx, const core::dvec3& feet, float yaw);
  /// Stress instances (players.md §8.3), right after start() and before the first emit(): move
  /// a standalone Animation to its start phase. `once` and `hold` begin their cycle again at
  /// tick min(phase, D−1); looping modes advance `phase` times as if played from tick 0. False
  /// on a run-time failure.
  bool start_at_phase(std::int64_t phase, tick_context& ctx);
  /// Stress instances: a finished standalone Animation begins again at tick 0 (its displays
  /// stay; changed values go out as updates). False on a run-time failure.
  bool rewind(tick_context& ctx);
  /// P3c: on the first call after the start tick, handles take their effective visibility
  /// (playback.md §4.6).
  void release_deferred_visibility(const tick_context& ctx) noexcept;
  /// P3d: one advance. Nothing once finished, failed, stopped, while WAITING, or in the tick the
  /// playback (or its branch) started.
  void advance(tick_context& ctx);
  /// P4: the offer ended without a match: WAITING (the offer pose stays).
  void enter_waiting() noexcept;
  /// P4 (or P1 on a join): start the `matched` or `timeout` branch at its compiled tick 0.
  bool start_branch(api::branch which, tick_context& ctx);
  /// After a MATCHED branch start: partner-space nodes take their requested visibility.
  void activate_partner_space() noexcept;
  /// A participant's current hand items (participant_hand nodes of that participant's space).
  void set_hand_items(content::participant who, const api::item_stack& right,
                      const api::item_stack& left);
  /// stop(reason): the `stop` events run, then every handle gets `remove`. At most once (a
  /// later call changes nothing, the first reason is kept).
  void stop(tick_context& ctx, api::stop_reason reason = api::stop_reason::manual);
  [[nodiscard]] std::optional<api::stop_reason> stop_reason() const noexcept {
    return stop_reason_;
  }
  /// P5: append this session's display records in protocol.md §6 order.
  void emit(std::vector<api::event>& out);
  void emit(api::frame& frame) { emit(frame.events); }
  /// After the frame of the stop tick: return the handle ids to the pool.
  void release_handles(handle_pool& pool);

private:
  struct node_rt;
  struct handle_rt;
  struct handle_emitted;

  // standalone Animation
  bool begin_cycle(std::int64_t t0, std::int32_t loop_count, tick_context& ctx);
  bool restart(tick_context& ctx);
  void advance_animation(tick_context& ctx);
  // compiled Sequence
  bool start_compiled(std::span<const content::step> steps, bool have_pose, api::branch which,
                      tick_context& ctx);
  bool step(std::int64_t T, tick_context& ctx);
  bool enter(const segment& s, std::int64_t T, tick_context& ctx);
  void at_start(const segment& s);
  void pull_next_segment();

  evaluator& evaluator_for(std::int32_t animation);
  void apply_transforms(const evaluator& ev, std::int32_t interp);
  void apply_visibility(const evaluator& ev);
  void apply_nbt(const evaluator& ev);
  void fire_timeline(const prepared_animation& pa, std::size_t& cursor, std::int64_t local,
                     tick_context& ctx);
  void run_events(const std::vector<content::command_event>& events, const prepared_animation& pa,
                  tick_context& ctx);
  void run_event(const content::command_event& ev, const prepared_animation& pa, tick_context& ctx);
  [[nodiscard]] math::mat4f display_matrix(std::int32_t union_node) const noexcept;
  [[nodiscard]] bool effective_visible(const handle_rt& h) const noexcept;
  [[nodiscard]] const std::string& hand_item(const content::node& n) const noexcept;
  [[nodiscard]] std::int32_t teleport_duration() const noexcept;
  int_source& draws() noexcept;
  void fail() noexcept { failed_ = true; }
  /// The evaluation environment of this tick (the budgets start afresh in a new tick).
  eval_env env_for(const tick_context& ctx) noexcept;

  // What every tick of every playback reads comes first, up to and including info_'s session and
  // caches, on as few cache lines as it can be. The rest is read at starts, segment entries,
  // changes and for state digests.
  std::shared_ptr<const prepared_emote> emote_;
  op_budget ops_;                  ///< this tick's operation budgets
  api::tick_number ops_tick_ = -1; ///< the tick ops_ belongs to
  // union nodes and handles
  std::vector<node_rt> nodes_;
  std::vector<handle_rt> handles_;
  std::vector<api::handle_id> handle_ids_;
  std::uint64_t nbt_counter_ = 0;
  api::tick_number start_tick_ = 0; ///< tick of the start or the last branch start
  /// Bumped by every change to what describe_displays walks (roots_, root_offsets_, space_used_,
  /// emitted_position_, hands_, nodes_' and handles_' described fields, handle_ids_); the kept
  /// digest is valid for one version.
  std::uint64_t displays_version_ = 0;
  // standalone Animation state
  evaluator* cycle_ = nullptr;
  std::int64_t t_ = 0;
  std::int64_t remaining_ = 0;
  std::size_t event_cursor_ = 0;
  std::int32_t loop_count_ = 0;
  bool in_delay_ = false;
  // compiled Sequence state read every tick
  bool compiled_ = false;
  evaluator* segment_eval_ = nullptr;
  std::vector<api::ev_segment_started> segment_records_;
  // phase and flags
  session_phase phase_ = session_phase::solo;
  std::int64_t advanced_ = 0;
  bool started_ = false;
  bool deferred_ = true;
  bool deferred_released_ = false;
  bool partner_active_ = false;
  bool finished_ = false;
  bool failed_ = false;
  bool stopped_ = false;
  bool offer_complete_ = false;
  bool spawn_pending_ = false;
  bool remove_emitted_ = false;
  // view
  std::array<bool, 3> space_used_{};
  std::int8_t emitted_pack_ = 0;
  float view_yaw_ = 0;
  float rel_ = 0;
  double deadzone_ = 50;
  // roots (index = api::space), their rotations and the positions last emitted
  std::array<root, 3> roots_{};
  std::array<core::dvec3, 3> emitted_position_{};
  std::array<math::mat4f, 3> root_rot_{};
  start_info info_; ///< session and caches first: the end of what every tick reads

  core::java_random session_rng_;
  java_int_source selection_;
  int_source* selection_override_ = nullptr;
  std::array<core::dvec3, 3> root_offsets_{}; ///< the roots' offsets from the scene root
  bool external_placement_ = false;

  std::vector<math::mat4f> own_worlds_;        ///< union index → a run-time world's copy
  std::vector<core::nbt_compound> node_nbt_;   ///< union index → merged NBT-track state
  std::vector<handle_emitted> handle_emitted_; ///< beside handles_: emitted NBT and item
  std::vector<std::int32_t> handle_of_node_;   ///< union index → index in handles_, or -1
  bool handles_released_ = false;
  std::array<std::array<std::string, 2>, 2> hands_; ///< [participant][0 right, 1 left] SNBT
  mutable std::uint64_t displays_digest_ = 0;
  mutable std::uint64_t displays_digest_version_ = ~std::uint64_t{0};
  template <class Sink>
  void describe_displays(Sink& s) const;

  // evaluators, one per prepared animation (created on first use)
  std::vector<std::unique_ptr<evaluator>> evaluators_;

  // compiled Sequence state
  api::branch branch_ = api::branch::main;
  segment_compiler compiler_;
  std::optional<segment> active_;
  std::optional<segment> next_;
  std::int64_t T_ = 0;

  std::optional<api::stop_reason> stop_reason_;
};

} // namespace emote::playback
