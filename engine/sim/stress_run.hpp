#pragma once
// The stress test's instances (players.md §8.3): N standalone Animations on a grid, assigned and
// phased by the fixed-seed plan of engine/rules/stress, advanced one tick at a time and emitted
// as display records into one frame per tick. No players, stop conditions, command events or
// callbacks; Molang player queries give 0. Deterministic and clock-free: the timing, encoding and
// fan-out around it belong to the caller (server/stress).
//
//   create()  the instances start (spawn records, start phases applied)      tick 0
//   step()    each instance advances; a finished one begins again at tick 0   ticks 1, 2, …
//   finish()  every instance stops (remove records), handles are released     the last tick

#include "engine/api/event.hpp"
#include "engine/core/memo.hpp"
#include "engine/core/state_digest.hpp"
#include "engine/core/vec.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace emote::content {
class catalog;
}

namespace emote::sim {

struct stress_config {
  std::size_t instances = 100;
  core::dvec3 origin{0.5, 64.0, 0.5}; ///< the grid centre O
  float yaw = 0;                      ///< the command yaw Y: every root's yaw
  std::string dimension = "minecraft:overworld";
  /// Bytes of baked per-tick poses (0: every pose is evaluated per tick; output is the same).
  std::size_t bake_budget = std::size_t{64} << 20;
  /// The decomposition memo: used (default), bypassed (`stress --reference`) or checked.
  core::cache_options caches;
};

class stress_run {
public:
  /// Plans the instances over the catalog's Animations (Sequences take no part). With no
  /// Animation the plan is empty and every frame is empty.
  stress_run(std::shared_ptr<const content::catalog> catalog, stress_config config);
  ~stress_run();
  stress_run(const stress_run&) = delete;
  stress_run& operator=(const stress_run&) = delete;

  /// Start every instance; the frame holds their spawn records. Once.
  const api::frame& create();
  /// One tick of every instance; the frame holds the changed values.
  const api::frame& step();
  /// step() in parts, for callers that spread the instances over threads: begin_step(), then
  /// step_part() for disjoint ranges of instance indices (concurrently if they like: a part
  /// touches only its own instances and `out`, to which it appends), then end_step() with every
  /// part. The events of the ranges, concatenated in index order, are exactly step()'s frame.
  struct part {
    std::vector<api::event> events;
    std::vector<std::size_t> ended; ///< instances that failed in this part
  };
  api::tick_number begin_step();
  void step_part(std::size_t begin, std::size_t end, part& out);
  void end_step(std::span<part> parts);
  [[nodiscard]] std::size_t instance_count() const noexcept;

  /// Stop every instance; the frame holds their remove records. Once; step() does nothing after.
  const api::frame& finish();

  [[nodiscard]] std::size_t requested() const noexcept;
  /// Instances running (created and not failed).
  [[nodiscard]] std::size_t active() const noexcept;
  /// Instances that could not start or failed at run time (their displays are removed).
  [[nodiscard]] std::size_t failures() const noexcept;
  /// Display entities held now, and the most held at once.
  [[nodiscard]] std::int64_t displays() const noexcept;
  [[nodiscard]] std::int64_t peak_displays() const noexcept;
  /// The instances' state as the engine describes its sessions' (protocol.md §8 state digests):
  /// the tick, each running instance's playback by index, the handle pool. Between ticks.
  void describe_state(core::state_sink& s) const;
  /// The 64-bit digest of describe_state (core::state_hasher; `fresh` as engine::state_digest).
  [[nodiscard]] std::uint64_t state_digest(bool fresh = false) const;

  /// The Animation each instance plays, in instance order.
  [[nodiscard]] const std::vector<std::string>& assignment() const noexcept;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace emote::sim
