#pragma once
// `emote-sim stress --players N` (a populated server): N viewers (render.md §2) walk over an
// S × S square while each plays an Animation, and the real Engine and renderer run them as
// `serve` does, so every tick builds the packet entries of render.md §6 with the tracking pass
// of render.md §4 changing every tick. One in-memory recipient reads every entry.
//
// Per tick (one sample, rules::stress_meter): every player takes one step of its random walk
// (player.update with position and yaw), players whose Animation ended in the previous frame
// play it again (emote.play, source api), the Engine steps (engine), the renderer turns the
// frame into packet entries (render), and the recipient reads them (read), all on one thread as
// `serve` steps them. `--pipelined`, a sample renders tick k on a second thread while this one
// runs the Engine for tick k+1 and reads tick k-1's entries: the same bytes in the same order,
// one sample per tick, and the packets of a tick leave one tick later.
//
// What each player does is fixed by the seed (core::java_random):
//   * the Animation: rules::stress_assignment over the catalog's Animations sorted by id;
//   * the start tick of its first play, in [0, warm-up); the warm-up ticks are not sampled;
//   * the start position, uniform over the square [-S/2, S/2]² around (0, 64, 0), and heading;
//   * each tick, a turn of the heading uniform in ±15°, then a step of `speed` blocks along
//     it (Minecraft's yaw: 0 faces +z); a step that would leave the square is mirrored at its
//     edge. The player's yaw is its heading.
// The Animations are played with `movement_distance` 0 (players.md §3.2: no MOVED stop; the
// scene follows the initiator, players.md §7.9) whatever their files say: the corpus sets 0.1
// to 0.3 blocks, which a walking player would exceed within two ticks.
//
// The recipient reads, per entry in list order: a 12-byte head (protocol, the number of
// recipients, the data size; each an unsigned 32-bit little-endian integer), the recipient
// indexes (join order, 32-bit little-endian each), then the packet bytes.

#include "engine/api/event.hpp"
#include "engine/rules/stress.hpp"
#include "render/renderer.hpp"
#include "server/stress/stress_harness.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace emote::content {
class catalog;
}
namespace emote::world {
struct player_state;
}

namespace emote::server {

struct populated_options {
  std::size_t players = 1000;
  double area = 2000;       ///< side S of the square, blocks
  std::int64_t ticks = 600; ///< sampled ticks
  std::int64_t warmup = 80; ///< ticks before sampling; first plays are spread over them
  std::int64_t seed = 0;    ///< of every choice above
  double speed = 0.2;       ///< blocks per tick
  double turn = 15;         ///< the heading turns by up to ± this many degrees per tick
  std::int32_t protocol = 775;
  std::int32_t view_distance = 10;
  std::int32_t entity_id_base = 1000; ///< player i has entity id base + i
  render::render_config render;       ///< render.md §2 (display_range 160, view distance 10)
  bool paced = true;                  ///< 20 TPS on absolute deadlines; false: back to back
  bool simd = true;                   ///< the recipient reads with AVX2/AVX-512 when it can
  /// `--pipelined`: render and read tick k on a second thread while the Engine runs tick k+1
  /// (the packets are the same; a sample is then the longer of the two, which serve, stepping
  /// both on one thread, does not reach; docs/guide/performance.md).
  bool pipelined = false;
  /// `--unread`: nobody receives packets (render.md §6): the renderer tracks as `serve` does
  /// with no packets subscriber, builds no packets, and the recipient reads nothing.
  bool unread = false;
};

/// The catalog's Animations (Sequences left out), each with `movement_distance` 0 so that its
/// scene follows a walking player (players.md §7.9); ids and everything else unchanged.
std::shared_ptr<const content::catalog> following_animations(const content::catalog& source);

/// The populated server, stepped one tick at a time (the test reads every tick's frame and
/// packets; run_populated measures).
class populated_run {
public:
  /// Builds the Engine and renderer and joins the players (in index order, at tick 0). The
  /// catalog must hold at least one Animation.
  populated_run(std::shared_ptr<const content::catalog> catalog, const populated_options& o);
  ~populated_run();
  populated_run(const populated_run&) = delete;
  populated_run& operator=(const populated_run&) = delete;

  /// Apply this tick's inputs: one walk step per player, then the plays that are due.
  void inputs();
  /// Step the Engine (the frame is frame() until the next call).
  void engine_step();
  /// Render the frame for the online players (the entries are packets() until the next call).
  void render_step();
  /// inputs(), engine_step(), render_step().
  void step();

  // The pipelined order (the renderer on another thread, one tick behind the Engine):
  /// Keep the last engine_step's frame and a copy of the players for render_held(); frame()
  /// is then empty.
  void snapshot();
  /// Render what snapshot() kept (may run while the next inputs() and engine_step() do).
  void render_held();

  [[nodiscard]] std::int64_t tick() const noexcept; ///< the tick now accepting inputs
  [[nodiscard]] const api::frame& frame() const noexcept;
  [[nodiscard]] const render::render_output& packets() const noexcept;
  /// The online players in join order as the last render_step saw them (a packet entry's
  /// recipient index is an index here).
  [[nodiscard]] std::span<const world::player_state* const> viewers() const noexcept;
  [[nodiscard]] std::size_t sessions() const noexcept;        ///< running playbacks
  [[nodiscard]] std::int64_t displays() const noexcept;       ///< live display entities
  [[nodiscard]] std::uint64_t plays() const noexcept;         ///< successful emote.play
  [[nodiscard]] std::uint64_t play_failures() const noexcept; ///< refused emote.play
  [[nodiscard]] std::uint64_t other_stops() const noexcept;   ///< stops other than FINISHED
  [[nodiscard]] const populated_options& options() const noexcept;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// The sampled ticks' figures (ticks, mspt, elapsed_s, observed_tps) are the harness's.
struct populated_report : sampled_ticks {
  std::size_t players = 0;
  double area = 0;
  std::int64_t warmup = 0;
  bool pipelined = false; ///< tick k rendered and read while the Engine ran tick k+1
  bool unread = false;    ///< nobody received packets (none built)
  double setup_ms = 0;    ///< joins and warm-up ticks
  struct {
    double engine = 0, render = 0, read = 0; ///< average per sampled tick
  } split_ms;
  struct {
    double avg = 0, min = 0;
  } sessions; ///< running playbacks per sampled tick
  struct {
    double avg = 0;
    std::int64_t max = 0;
  } displays;                      ///< live display entities per sampled tick
  per_tick entries;                ///< packet entries (render.md §6)
  per_tick packets;                ///< packets to clients: the sum of the entries' recipient counts
  per_tick packet_bytes;           ///< bytes to clients: each entry's data size × its recipients
  per_tick spawns;                 ///< spawn_entity packets to clients
  per_tick destroys;               ///< entity_destroy packets to clients
  per_tick read_bytes;             ///< what the recipient read (heads, recipient lists, packets)
  std::uint64_t plays = 0;         ///< emote.play accepted, first plays included
  std::uint64_t play_failures = 0; ///< emote.play refused
  std::uint64_t other_stops = 0;   ///< playbacks that ended other than FINISHED
  std::uint64_t checksum = 0;      ///< the recipient's, over every byte it read
};

populated_report run_populated(std::shared_ptr<const content::catalog> catalog,
                               const populated_options& options);

/// One JSON object, one line.
std::string populated_report_json(const populated_report& r);
/// The human-readable report.
std::string populated_report_text(const populated_report& r);

} // namespace emote::server
