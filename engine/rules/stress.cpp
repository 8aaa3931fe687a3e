#include "engine/rules/stress.hpp"

#include <algorithm>
#include <cmath>

namespace emote::rules {

std::vector<std::string> stress_assignment(std::span<const std::string> sorted_ids, std::size_t n,
                                           core::java_random& g) {
  std::vector<std::string> out;
  if (sorted_ids.empty()) {
    return out;
  }
  out.reserve(n + sorted_ids.size());
  while (out.size() < n) {
    std::vector<std::string> copy(sorted_ids.begin(), sorted_ids.end());
    java_shuffle(copy, g);
    out.insert(out.end(), copy.begin(), copy.end());
  }
  out.resize(n);
  return out;
}

std::vector<std::int64_t> stress_phases(std::size_t n, core::java_random& g) {
  std::vector<std::int64_t> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (i == 0) {
      out.push_back(80);
    } else if (i == 1) {
      out.push_back(175);
    } else {
      out.push_back(80 + g.next_int(96));
    }
  }
  return out;
}

stress_plan make_stress_plan(std::vector<std::string> ids, std::size_t n) {
  std::sort(ids.begin(), ids.end());
  core::java_random g(stress_seed);
  stress_plan plan;
  plan.animations = stress_assignment(ids, n, g);
  plan.phases = stress_phases(plan.animations.size(), g);
  return plan;
}

std::size_t
stress_instances_for_displays(std::vector<std::string> ids,
                              const std::function<std::int64_t(const std::string&)>& displays,
                              std::int64_t target, std::size_t max) {
  std::sort(ids.begin(), ids.end());
  core::java_random g(stress_seed);
  // Assignment prefixes do not depend on N, so the longest one decides the count.
  const auto order = stress_assignment(ids, max, g);
  std::int64_t total = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    total += displays(order[i]);
    if (total >= target) {
      return i + 1;
    }
  }
  return order.size();
}

std::int64_t stress_start_tick(bool looping, std::int64_t phase, std::int64_t duration) noexcept {
  if (looping) {
    return phase;
  }
  return std::min(phase, duration - 1);
}

std::int64_t stress_grid_side(std::size_t n) noexcept {
  std::int64_t s = static_cast<std::int64_t>(std::sqrt(static_cast<double>(n)));
  while (s * s < static_cast<std::int64_t>(n)) {
    ++s;
  }
  while (s > 0 && (s - 1) * (s - 1) >= static_cast<std::int64_t>(n)) {
    --s;
  }
  return s;
}

grid_slot stress_grid_slot(std::size_t i, std::size_t n) noexcept {
  const std::int64_t side = std::max<std::int64_t>(1, stress_grid_side(n));
  const auto idx = static_cast<std::int64_t>(i);
  return {idx % side, idx / side};
}

core::dvec3 stress_grid_position(std::size_t i, std::size_t n, const core::dvec3& origin,
                                 float yaw) noexcept {
  const std::int64_t side = std::max<std::int64_t>(1, stress_grid_side(n));
  const grid_slot slot = stress_grid_slot(i, n);
  const double half = static_cast<double>(side - 1) / 2.0;
  const double a = static_cast<double>(slot.col) - half;
  const double b = static_cast<double>(slot.row) - half;
  const double rad = static_cast<double>(yaw) * (3.141592653589793 / 180.0);
  const double c = std::cos(rad);
  const double s = std::sin(rad);
  return {origin.x + a * c + b * -s, origin.y, origin.z + a * s + b * c};
}

double stress_mean(std::span<const double> samples) noexcept {
  if (samples.empty()) {
    return 0;
  }
  double sum = 0;
  for (double v : samples) {
    sum += v;
  }
  return sum / static_cast<double>(samples.size());
}

double stress_max(std::span<const double> samples) noexcept {
  double m = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    m = i == 0 ? samples[i] : std::max(m, samples[i]);
  }
  return m;
}

double stress_p95(std::vector<double> samples) {
  if (samples.empty()) {
    return 0;
  }
  std::sort(samples.begin(), samples.end());
  const double rank = std::ceil(0.95 * static_cast<double>(samples.size()));
  const auto idx = std::max<std::int64_t>(0, static_cast<std::int64_t>(rank) - 1);
  return samples[static_cast<std::size_t>(idx)];
}

double stress_median(std::vector<double> samples) {
  if (samples.empty()) {
    return 0;
  }
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  if (n % 2 == 1) {
    return samples[n / 2];
  }
  return (samples[n / 2 - 1] + samples[n / 2]) / 2.0;
}

double estimated_tps(double mspt) noexcept {
  if (!(mspt > 0)) {
    return 20;
  }
  return std::min(20.0, 1000.0 / mspt);
}

void tick_history::add(double ms) {
  values_[next_] = ms;
  next_ = (next_ + 1) % capacity;
  count_ = std::min(count_ + 1, capacity);
}

double tick_history::mean() const noexcept {
  if (count_ == 0) {
    return 0;
  }
  double sum = 0;
  for (std::size_t i = 0; i < count_; ++i) {
    sum += values_[i];
  }
  return sum / static_cast<double>(count_);
}

void stress_meter::tick_begin(core::tick_number tick, std::int64_t now_ns) {
  current_ = tick;
  begin_ns_ = now_ns;
  emote_ns_ = 0;
  network_ns_ = 0;
}

void stress_meter::tick_end(std::int64_t now_ns) {
  if (!current_) {
    return;
  }
  const core::tick_number tick = *current_;
  current_.reset();
  if (last_sampled_ && tick <= *last_sampled_) {
    return; // never sample a tick twice
  }
  const double ms = static_cast<double>(now_ns - begin_ns_) / 1e6;
  if (!(ms > 0)) {
    return;
  }
  last_sampled_ = tick;
  samples_.push_back(ms);
  emote_.push_back(static_cast<double>(emote_ns_) / 1e6);
  network_.push_back(static_cast<double>(network_ns_) / 1e6);
}

stress_summary summarize(const stress_meter& m, double baseline_ms) {
  stress_summary s;
  const auto& v = m.samples_ms();
  s.sampled = v.size();
  s.baseline = baseline_ms;
  if (v.empty()) {
    s.avg = s.p95 = s.max = baseline_ms;
    s.median = 0;
  } else {
    s.avg = stress_mean(v);
    s.p95 = stress_p95(v);
    s.median = stress_median(v);
    s.max = stress_max(v);
  }
  s.tps.baseline = estimated_tps(s.baseline);
  s.tps.average = estimated_tps(s.avg);
  s.tps.minimum = estimated_tps(s.max);
  s.tps.drop = s.tps.baseline - s.tps.average;
  s.emote_avg = stress_mean(m.emote_ms());
  s.emote_max = stress_max(m.emote_ms());
  s.network_avg = stress_mean(m.network_ms());
  s.network_max = stress_max(m.network_ms());
  return s;
}

} // namespace emote::rules
