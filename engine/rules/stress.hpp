#pragma once
// The stress test's deterministic parts and its statistics (players.md §8.3–8.4): which
// Animation each instance plays, when it starts, where it stands, and how tick samples become
// the report's figures. Running the instances and the fan-out is the caller's.

#include "engine/core/java_random.hpp"
#include "engine/core/tick.hpp"
#include "engine/core/vec.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace emote::rules {

inline constexpr std::int64_t stress_seed = 0xE607E;
inline constexpr std::size_t stress_max_instances = 500;
inline constexpr std::size_t stress_max_fanout = 500;
inline constexpr std::size_t stress_default_instances = 100;
inline constexpr std::size_t stress_default_fanout = 20;

/// Java's `Collections.shuffle(list, g)`: for i = |L|−1 down to 1, swap i with g.nextInt(i+1).
template <class T>
void java_shuffle(std::vector<T>& v, core::java_random& g) {
  for (std::size_t i = v.size(); i > 1; --i) {
    const auto j = static_cast<std::size_t>(g.next_int(static_cast<std::int32_t>(i)));
    std::swap(v[i - 1], v[j]);
  }
}

/// Append copies of `sorted_ids`, each shuffled with `g`, until `n` entries exist; the first
/// `n` are the assignment. Empty when `sorted_ids` is.
std::vector<std::string> stress_assignment(std::span<const std::string> sorted_ids, std::size_t n,
                                           core::java_random& g);

/// Start phases in index order: instance 0 at 80, instance 1 at 175, instance i ≥ 2 at
/// `80 + g.nextInt(96)`.
std::vector<std::int64_t> stress_phases(std::size_t n, core::java_random& g);

struct stress_plan {
  std::vector<std::string> animations; ///< per instance
  std::vector<std::int64_t> phases;    ///< per instance
};

/// The whole plan with `G = java.util.Random(0xE607E)`: L = `ids` sorted, then the assignment,
/// then the phases drawn from the same generator.
stress_plan make_stress_plan(std::vector<std::string> ids, std::size_t n);

/// For `Nd` loads: instances in assignment order until their displays reach at least `target`,
/// or `max` instances. `displays(id)` gives an Animation's display count.
std::size_t
stress_instances_for_displays(std::vector<std::string> ids,
                              const std::function<std::int64_t(const std::string&)>& displays,
                              std::int64_t target, std::size_t max = stress_max_instances);

/// The tick an instance starts at: `once` and `hold` use `min(phase, D − 1)`; a looping
/// Animation starts as if advanced `phase` ticks from tick 0 (the caller advances it).
std::int64_t stress_start_tick(bool looping, std::int64_t phase, std::int64_t duration) noexcept;

/// `side = ceil(sqrt(N))`, exactly.
std::int64_t stress_grid_side(std::size_t n) noexcept;

struct grid_slot {
  std::int64_t col = 0;
  std::int64_t row = 0;
};
/// `col = i mod side`, `row = i div side`.
grid_slot stress_grid_slot(std::size_t i, std::size_t n) noexcept;

/// `O + (col − (side−1)/2)·(cos Y, 0, sin Y) + (row − (side−1)/2)·(−sin Y, 0, cos Y)`, Y the
/// origin yaw in degrees (binary64 trigonometry).
core::dvec3 stress_grid_position(std::size_t i, std::size_t n, const core::dvec3& origin,
                                 float yaw) noexcept;

// ---- statistics (players.md §8.4) ----

double stress_mean(std::span<const double> samples) noexcept; ///< 0 if empty
double stress_max(std::span<const double> samples) noexcept;  ///< 0 if empty
/// Sorted samples at index `max(0, ceil(0.95·n) − 1)`; 0 for an empty list.
double stress_p95(std::vector<double> samples);
/// The middle value, or the mean of the two middle ones; 0 if empty.
double stress_median(std::vector<double> samples);
/// `mspt ≤ 0 ? 20 : min(20, 1000/mspt)`.
double estimated_tps(double mspt) noexcept;
/// The test ends when `completed ≥ duration`.
constexpr bool stress_complete(std::int64_t completed, std::int64_t duration) noexcept {
  return completed >= duration;
}

/// Tick durations before a test: the baseline is the mean of the last ≤ 100 (0 if none).
class tick_history {
public:
  static constexpr std::size_t capacity = 100;
  void add(double ms);
  [[nodiscard]] double mean() const noexcept;
  [[nodiscard]] std::size_t size() const noexcept { return count_; }

private:
  double values_[capacity] = {};
  std::size_t next_ = 0;
  std::size_t count_ = 0;
};

/// Per-tick measurement during a test, from monotonic nanosecond readings supplied by the
/// caller. A sample is the whole tick (P1–P5, stress advance and fan-out included); the stress
/// advance ("emote") and fan-out ("network") spans inside it are recorded beside it.
class stress_meter {
public:
  void tick_begin(core::tick_number tick, std::int64_t now_ns);
  void emote_begin(std::int64_t now_ns) { emote_start_ = now_ns; }
  void emote_end(std::int64_t now_ns) { emote_ns_ += now_ns - emote_start_; }
  void network_begin(std::int64_t now_ns) { network_start_ = now_ns; }
  void network_end(std::int64_t now_ns) { network_ns_ += now_ns - network_start_; }
  /// Ends the tick: keeps its sample unless the tick was already sampled or the sample is ≤ 0.
  void tick_end(std::int64_t now_ns);

  [[nodiscard]] const std::vector<double>& samples_ms() const noexcept { return samples_; }
  [[nodiscard]] const std::vector<double>& emote_ms() const noexcept { return emote_; }
  [[nodiscard]] const std::vector<double>& network_ms() const noexcept { return network_; }

private:
  std::optional<core::tick_number> current_;
  std::optional<core::tick_number> last_sampled_;
  std::int64_t begin_ns_ = 0;
  std::int64_t emote_start_ = 0, network_start_ = 0;
  std::int64_t emote_ns_ = 0, network_ns_ = 0;
  std::vector<double> samples_, emote_, network_;
};

struct stress_summary {
  std::size_t sampled = 0;
  double baseline = 0, avg = 0, p95 = 0, median = 0, max = 0; ///< MSPT
  struct {
    double baseline = 20, average = 20, minimum = 20, drop = 0;
  } tps; ///< estimated TPS; minimum from max; drop = baseline − average
  double emote_avg = 0, emote_max = 0, network_avg = 0, network_max = 0;
};

/// The report's figures; with no samples avg, p95 and max report the baseline.
stress_summary summarize(const stress_meter& m, double baseline_ms);

} // namespace emote::rules
