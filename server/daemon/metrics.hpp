#pragma once
// Server metrics in the Prometheus text exposition format (protocol.md §10): tick duration
// histogram, ticks behind and skipped, sessions, players, displays, connections, bytes in/out,
// slow-consumer disconnects, lossy frame drops and errors by code. Updated and rendered on the
// server's one thread, so plain integers suffice.

#include "engine/api/types.hpp"
#include "engine/core/enum_names.hpp"
#include "engine/core/memo.hpp"

#include <array>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace emote::server {

/// A Prometheus histogram over fixed upper bounds (seconds; +Inf is implicit).
class histogram {
public:
  /// The tick's: quarter-millisecond steps below 1 ms and half-millisecond steps to 2.5 ms, where
  /// a healthy tick lies, so a p95 read from them (histogram_quantile) moves with the tick rather
  /// than with the bucket.
  static constexpr std::array<double, 15> tick_bounds{0.00025, 0.0005, 0.00075, 0.001, 0.0015,
                                                      0.002,   0.0025, 0.005,   0.01,  0.02,
                                                      0.035,   0.05,   0.1,     0.25,  1.0};
  /// `bounds` (ascending) must outlive the histogram.
  explicit histogram(std::span<const double> bounds = tick_bounds)
      : bounds_(bounds), buckets_(bounds.size()) {}
  void observe(double seconds) noexcept;
  /// The `# HELP`/`# TYPE` lines and the series without labels.
  void render(std::string& out, std::string_view name, std::string_view help) const;
  /// The series alone, each line with `labels` (`gate="lobby"`) when not empty.
  void render_series(std::string& out, std::string_view name, std::string_view labels) const;
  [[nodiscard]] std::uint64_t count() const noexcept { return count_; }

private:
  std::span<const double> bounds_;
  std::vector<std::uint64_t> buckets_; // non-cumulative
  std::uint64_t count_ = 0;
  double sum_ = 0;
};

struct metrics {
  histogram tick_duration;
  std::uint64_t ticks_total = 0;
  std::uint64_t ticks_skipped_total = 0;
  std::int64_t ticks_behind = 0;
  std::int64_t tick = 0;

  std::int64_t sessions = 0;
  std::int64_t players = 0;
  std::int64_t displays = 0;
  std::int64_t emotes = 0;

  std::int64_t connections_controller = 0;
  std::int64_t connections_observer = 0;
  std::int64_t connections_pending = 0; ///< accepted, no hello yet
  std::uint64_t connections_accepted_total = 0;
  std::uint64_t connections_refused_total = 0; ///< over max_connections
  std::uint64_t logins_failed_total = 0;       ///< hellos with a wrong or missing token
  std::uint64_t connections_evicted_total = 0; ///< pending ones closed to make room
  /// Refusals and failed logins without a log line of their own (protocol.md §2).
  std::uint64_t log_lines_suppressed_total = 0;
  std::uint64_t bytes_in_total = 0;
  std::uint64_t bytes_out_total = 0;
  std::uint64_t messages_total = 0;
  std::uint64_t frames_total = 0;
  std::uint64_t slow_consumer_disconnects_total = 0;
  std::uint64_t frames_dropped_total = 0;
  /// render.md §4 rules 5 and 6.
  std::uint64_t render_snapshots_total = 0;
  std::int64_t render_snapshots_waiting = 0;
  std::uint64_t render_resync_requests_total = 0;
  std::uint64_t render_resyncs_total = 0;
  std::uint64_t render_unbuilt_ticks_total = 0; ///< ticks whose packets nobody received
  std::uint64_t reloads_total = 0;
  std::uint64_t reload_failures_total = 0;
  /// `--record`: 1 once a write error stopped the recording (protocol.md §8); -1 when not
  /// recording (the series is then absent).
  std::int64_t recording_failed = -1;
  /// The server thread's memos (core::direct_memo), in memo_names order: size and use.
  static constexpr std::array<std::string_view, 2> memo_names{"decomposition", "transform_text"};
  std::array<core::memo_stats, 2> memos{};
  /// Error replies, indexed by api::error_code.
  std::array<std::uint64_t, core::enumerator_count<api::error_code>()> errors_total{};

  void count_error(api::error_code code) noexcept {
    ++errors_total[static_cast<std::size_t>(code)];
  }
  [[nodiscard]] std::uint64_t errors(api::error_code code) const noexcept {
    return errors_total[static_cast<std::size_t>(code)];
  }

  /// The Prometheus text format (version 0.0.4).
  [[nodiscard]] std::string render() const;
};

} // namespace emote::server
