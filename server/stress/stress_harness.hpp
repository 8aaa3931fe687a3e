#pragma once
// The one harness of every `emote-sim stress` mode (server/stress/stress.hpp: instances;
// stress_populated.hpp: a populated server): the paced sampling loop (players.md §8.4), the second
// thread a mode may share a tick's work with, and the report writer. A mode supplies one tick's
// work; the harness paces the ticks, samples them and turns the samples into the report's
// timing figures, which every mode reports under the same keys.

#include "engine/json/writer.hpp"
#include "engine/rules/stress.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <semaphore>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace emote::server {

/// The parts of one tick a mode times: the engine's (players.md §8.4's "emote" span) and the
/// delivery's (its "network" span: encode-free hand-off to the recipients), in nanoseconds.
struct tick_spans {
  std::int64_t engine_ns = 0;
  std::int64_t deliver_ns = 0;
};

/// A stress mode, as the harness drives it.
class stress_mode {
public:
  using time_point = std::chrono::steady_clock::time_point;

  virtual ~stress_mode() = default;
  /// One tick's work, the whole of it inside the sample.
  virtual tick_spans tick() = 0;
  /// Between ticks until `t` (paced: the next deadline; unpaced: now). By default the thread
  /// sleeps; a mode with connections to serve serves them meanwhile.
  virtual void idle_until(time_point t);
  /// After each sample, outside it: per-tick figures the sample does not time.
  virtual void sampled() {}
};

/// What the sampling loop measured.
struct sampled_ticks {
  std::int64_t ticks = 0; ///< completed
  rules::stress_summary mspt;
  double elapsed_s = 0;
  double observed_tps = 0; ///< completed / elapsed
};

/// `ticks` ticks of `mode`, paced at 20 TPS on absolute deadlines or back to back, each one
/// sample (rules::stress_meter) covering the whole tick.
sampled_ticks run_sampled(stress_mode& mode, std::int64_t ticks, bool paced);

/// A second thread that runs one job at a time for the caller, which meanwhile does its own
/// work and then waits for the job.
class second_thread {
public:
  second_thread();
  ~second_thread();
  second_thread(const second_thread&) = delete;
  second_thread& operator=(const second_thread&) = delete;

  /// Start `f()` on the second thread; `f` must live until wait() returns.
  template <class F>
  void run(F& f) {
    fn_ = [](void* p) { (*static_cast<F*>(p))(); };
    arg_ = &f;
    go_.release();
  }
  void wait() { done_.acquire(); }

private:
  void loop();

  std::binary_semaphore go_{0}, done_{0};
  void (*fn_)(void*) = nullptr;
  void* arg_ = nullptr;
  std::atomic<bool> quit_{false};
  std::thread thread_; ///< last: starts after the rest is built
};

/// A per-tick count over the sampled ticks: its average and largest value.
struct per_tick {
  double avg = 0;
  std::uint64_t max = 0;
};

class per_tick_tally {
public:
  void add(std::uint64_t v) {
    sum_ += static_cast<double>(v);
    max_ = v > max_ ? v : max_;
    ++n_;
  }
  [[nodiscard]] per_tick result() const {
    return {n_ > 0 ? sum_ / static_cast<double>(n_) : 0, max_};
  }

private:
  double sum_ = 0;
  std::uint64_t max_ = 0;
  std::uint64_t n_ = 0;
};

/// The process's peak resident set (VmHWM) in MiB, 0 if unknown.
double peak_rss_mib();

/// Every stress report's JSON object, written member by member: separators and nesting are
/// the writer's, numbers are rounded to three decimals, the object ends with a newline.
class report_json {
public:
  report_json();
  void begin(std::string_view key); ///< a nested object
  void end();
  void number(std::string_view key, double v);
  void integer(std::string_view key, std::int64_t v);
  void count(std::string_view key, std::uint64_t v);
  void flag(std::string_view key, bool v);
  void text(std::string_view key, std::string_view v);
  void checksum(std::string_view key, std::uint64_t v); ///< 16 lower-case hex digits
  /// `{"avg":X,"max":N}`.
  void figure(std::string_view key, const per_tick& t);
  /// The timing every mode reports: `"mspt":{avg,p95,max,median[,baseline]},"tps":X`.
  void mspt(const rules::stress_summary& s, bool baseline);
  /// The text, one line.
  std::string done();

private:
  void key(std::string_view k);

  std::string out_;
  std::vector<json::separator> open_; ///< one per open object, the outermost first
};

/// The text report's lines every mode prints, each ending with a newline.
std::string ticks_line(const sampled_ticks& t, std::string_view after = {});
std::string mspt_line(const rules::stress_summary& s, bool baseline);
std::string checksum_line(std::uint64_t checksum, std::string_view note = {});

} // namespace emote::server
