#pragma once
// The Engine: the one owner of simulation state (docs/architecture.md "Properties that matter").
// Single-threaded, no I/O, no clocks: callers apply inputs during a tick and then step it; the
// same inputs in the same ticks give the same frames, byte for byte.
//
//   tick N:  apply(input)...  -> replies stamped N      (phase P1, arrival order)
//            step()           -> frame N                (idle pass, P2 polls, P3 advance,
//                                                        P4 partner logic, P5 emit); then N+1
//
// reload(), replace_catalog() and shutdown() act in P1 of the current tick like inputs; their
// records go to the frame step() returns next.

#include "engine/api/event.hpp"
#include "engine/api/match.hpp"
#include "engine/api/types.hpp"
#include "engine/core/memo.hpp"
#include "engine/core/state_digest.hpp"
#include "engine/rules/access.hpp"
#include "engine/rules/cooldowns.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace emote::content {
class catalog;
}
namespace emote::world {
struct player_state;
}

namespace emote::sim {

using api::frame;
using api::input;
using api::reply;
using api::role;
using api::session_id;
using api::tick_number;

/// Config `cooldown_mode` (players.md §5.1).
using cooldown_mode = rules::cooldown_mode;

/// One entry of config `permissions` (players.md §6.4). `cooldown` is either a tick offset
/// ("95t" → subtract 95) or a factor ("x0.5"); `idle` is optional.
using access_rule = rules::access_rule;

struct engine_config {
  std::int64_t seed = 0;
  std::int32_t max_active_display_entities = 512; ///< 0 = unlimited
  sim::cooldown_mode cooldown_mode = sim::cooldown_mode::start;
  std::vector<std::string> disabled;
  std::vector<access_rule> permissions = default_permissions();
  std::int32_t max_players = 10000;
  /// Bytes of baked per-tick poses for Molang-free node chains (playback::library). 0 evaluates
  /// every pose each tick; the frames are the same byte for byte either way.
  std::size_t bake_budget = std::size_t{64} << 20;
  /// players.md §8.6: Molang operations one session may execute in one tick, and all sessions
  /// together (0 = unlimited). Counted, not timed: a replay stops the same sessions.
  std::uint64_t molang_session_tick_ops = default_molang_session_tick_ops;
  std::uint64_t molang_server_tick_ops = default_molang_server_tick_ops;
  /// The caches (memos, baked poses, players' Molang views): used, bypassed or checked
  /// (`--check-caches`: a step that finds a stale entry throws core::cache_mismatch with its
  /// tick, session and handle; the engine must not be used after that), and the memo sizes.
  core::cache_options caches;
  /// render.md §2: the entity ids of display entities, [first, last] (empty when last < first;
  /// the configuration sets [render.entity_id_base, base + M]). A player's `entity_id` inside
  /// them is refused `bad_request`: its viewers' clients would confuse it with a display.
  std::int64_t display_entity_ids_first = 0;
  std::int64_t display_entity_ids_last = -1;

  /// Test only, never set by configuration: ticks added to every effective cooldown, a
  /// perturbed rule whose replay diverges in state before it does in output (protocol.md §8).
  std::int64_t test_cooldown_skew = 0;

  static constexpr std::uint64_t default_molang_session_tick_ops = 250'000;
  static constexpr std::uint64_t default_molang_server_tick_ops = 2'000'000;

  static std::vector<access_rule> default_permissions();
};

/// Why a configuration cannot be used (a duplicate permission name, an invalid regular
/// expression, an invalid modifier or idle setting), with the JSON path of the offending value;
/// nullopt when it is valid. The engine constructor expects a valid configuration.
std::optional<std::string> validate(const engine_config& config);

/// What `state.get` reports (protocol.md §4).
struct state_snapshot {
  struct player_entry {
    std::string player;
    std::optional<session_id> session;
    std::optional<sim::role> role; ///< partner also while only reserved
    bool reserved = false;
    std::string dimension; ///< where the player stands, so a viewer can draw it
    core::dvec3 position;  ///< feet
    float yaw = 0;
    std::string name; ///< the username the join gave ("" when none): a viewer's name tag
  };
  struct session_entry {
    session_id session = 0;
    std::string emote;
    std::string state;     ///< SOLO, OFFERING, WAITING, MATCHED, TIMEOUT
    std::int64_t tick = 0; ///< ticks advanced since start
    std::string initiator;
    std::optional<std::string> partner; ///< the activated partner, or the reserved one
  };
  struct cooldown_entry {
    std::string player;
    std::string emote;
    std::string state; ///< "cooldown" | "in_use" | "cooling_down"
    std::int64_t remaining_ticks = 0;
  };
  std::vector<player_entry> players;
  std::vector<session_entry> sessions;
  std::vector<cooldown_entry> cooldowns;
  /// Paged: the last reported player's key when more players follow (protocol.md §4 state.get).
  std::optional<std::string> next;
};

/// Which players `state.get` reports (protocol.md §4): everyone in join order, one player, or a
/// page of at most `limit` players in ascending key order after the key `after`.
struct state_query {
  std::optional<std::string> player;
  std::optional<std::string> after; ///< paged: start after this key ("" or absent: the first)
  std::size_t limit = 0;            ///< paged when > 0
};

class engine {
public:
  /// `config` should pass validate(); otherwise the access rules fall back to the defaults.
  engine(std::shared_ptr<const content::catalog> catalog, engine_config config);
  ~engine();
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  /// The tick now accepting inputs (0 after construction).
  [[nodiscard]] tick_number tick() const noexcept;

  /// Apply one input in P1 of the current tick.
  reply apply(const input& in);

  /// After an apply() of an emote.play that started a two-player offer (role initiator): the
  /// nearest open offer of the same emote it did not join and the first condition that failed
  /// (players.md §7.3 "Why no match"); nullopt otherwise. Valid until the next apply().
  [[nodiscard]] const std::optional<api::unmatched_offer>& last_unmatched() const noexcept;

  /// Run the rest of the current tick (idle pass, P2..P5) and return its frame. The reference
  /// (and the string data inside) stays valid until the next call to apply() or step() (or
  /// reload(), replace_catalog(), shutdown()). The caller may append the records it derives
  /// from the frame (the renderer's render.warning, render.md §5.4).
  frame& step();

  /// Stop every playback with RELOAD (their records go to the next frame) and use `catalog`
  /// from now on. Cooldowns survive.
  void reload(std::shared_ptr<const content::catalog> catalog);

  /// Use `catalog` from now on without stopping anything (emote.register adds an entry):
  /// running playbacks keep the content they started with.
  void replace_catalog(std::shared_ptr<const content::catalog> catalog);

  /// Stop every playback with SERVER_STOPPING; call step() once more to collect the records.
  /// Later play requests are refused with `shutting_down`.
  void shutdown();

  [[nodiscard]] const content::catalog& catalog() const noexcept;
  [[nodiscard]] std::shared_ptr<const content::catalog> catalog_ptr() const noexcept;
  [[nodiscard]] state_snapshot state(const state_query& query) const;
  [[nodiscard]] state_snapshot state(const std::optional<std::string>& player) const {
    return state(state_query{player, std::nullopt, 0});
  }
  [[nodiscard]] std::int64_t active_displays() const noexcept;
  [[nodiscard]] std::size_t player_count() const noexcept;
  [[nodiscard]] std::size_t session_count() const noexcept;
  /// The online players in join order (for the renderer); valid until the next apply() or
  /// step().
  void players(std::vector<const world::player_state*>& out) const;

  /// The whole simulation state in a canonical order (protocol.md §8 "State digests"): clock and
  /// counters, players, offers (who participates in / is reserved by which session), sessions
  /// with their playbacks, cooldowns, the idle scheduler, display handles and the world. Call
  /// between ticks (after step()).
  void describe_state(core::state_sink& s) const;
  /// The 64-bit digest of describe_state. `fresh`: recompute the sub-digests the sessions keep
  /// between changes (core::state_hasher::set_fresh) — equal unless one was kept wrongly.
  [[nodiscard]] std::uint64_t state_digest(bool fresh = false) const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace emote::sim
