#include "server/stress/stress_harness.hpp"

#include "server/stress/stress_common.hpp"

#include "engine/json/writer.hpp"

#include <charconv>
#include <cstdio>
#include <fstream>

namespace emote::server {

using stress_common::now_ns;

void stress_mode::idle_until(time_point t) {
  std::this_thread::sleep_until(t);
}

sampled_ticks run_sampled(stress_mode& mode, std::int64_t ticks, bool paced) {
  using clock_type = std::chrono::steady_clock;
  const auto period = std::chrono::milliseconds(50);
  sampled_ticks r;
  rules::stress_meter meter;
  auto deadline = clock_type::now();
  const std::int64_t begin = now_ns();
  for (std::int64_t k = 0; k < ticks; ++k) {
    if (paced) {
      deadline += period;
      mode.idle_until(deadline);
    } else {
      mode.idle_until(clock_type::now());
    }
    meter.tick_begin(k, now_ns());
    const tick_spans spans = mode.tick();
    const std::int64_t end = now_ns();
    // The meter adds span lengths; only their differences matter.
    meter.emote_begin(0);
    meter.emote_end(spans.engine_ns);
    meter.network_begin(0);
    meter.network_end(spans.deliver_ns);
    meter.tick_end(end);
    mode.sampled();
    ++r.ticks;
  }
  const std::int64_t end = now_ns();
  r.mspt = rules::summarize(meter, 0.0);
  r.elapsed_s = static_cast<double>(end - begin) / 1e9;
  r.observed_tps = r.elapsed_s > 0 ? static_cast<double>(r.ticks) / r.elapsed_s : 0;
  return r;
}

second_thread::second_thread() : thread_([this] { loop(); }) {}

second_thread::~second_thread() {
  quit_ = true;
  go_.release();
  thread_.join();
}

void second_thread::loop() {
  for (;;) {
    go_.acquire();
    if (quit_) {
      return;
    }
    fn_(arg_);
    done_.release();
  }
}

double peak_rss_mib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) {
      // "VmHWM:     12345 kB": a whole number of KiB.
      const auto digits = line.find_first_of("0123456789");
      std::uint64_t kib = 0;
      if (digits != std::string::npos) {
        std::from_chars(line.data() + digits, line.data() + line.size(), kib);
      }
      return static_cast<double>(kib) / 1024.0;
    }
  }
  return 0;
}

report_json::report_json() : out_("{"), open_(1) {}

void report_json::key(std::string_view k) {
  json::json_out o(out_);
  open_.back()(o);
  o.str(k);
  o.ch(':');
}

void report_json::begin(std::string_view k) {
  key(k);
  out_.push_back('{');
  open_.emplace_back();
}

void report_json::end() {
  out_.push_back('}');
  open_.pop_back();
}

void report_json::number(std::string_view k, double v) {
  key(k);
  json::json_out(out_).f64(stress_common::round3(v));
}

void report_json::integer(std::string_view k, std::int64_t v) {
  key(k);
  json::json_out(out_).i64(v);
}

void report_json::count(std::string_view k, std::uint64_t v) {
  key(k);
  json::json_out(out_).u64(v);
}

void report_json::flag(std::string_view k, bool v) {
  key(k);
  json::json_out(out_).boolean(v);
}

void report_json::text(std::string_view k, std::string_view v) {
  key(k);
  json::json_out(out_).str(v);
}

void report_json::checksum(std::string_view k, std::uint64_t v) {
  text(k, stress_common::checksum_hex(v).data());
}

void report_json::figure(std::string_view k, const per_tick& t) {
  begin(k);
  number("avg", t.avg);
  count("max", t.max);
  end();
}

void report_json::mspt(const rules::stress_summary& s, bool baseline) {
  begin("mspt");
  number("avg", s.avg);
  number("p95", s.p95);
  number("max", s.max);
  number("median", s.median);
  if (baseline) {
    number("baseline", s.baseline);
  }
  end();
  number("tps", s.tps.average);
}

std::string report_json::done() {
  out_ += "}\n";
  return std::move(out_);
}

std::string ticks_line(const sampled_ticks& t, std::string_view after) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "  ticks sampled     %zu of %lld in %.3f s (observed %.2f TPS)%.*s\n",
                t.mspt.sampled, static_cast<long long>(t.ticks), t.elapsed_s, t.observed_tps,
                static_cast<int>(after.size()), after.data());
  return buf;
}

std::string mspt_line(const rules::stress_summary& s, bool baseline) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "  MSPT              avg %.3f  p95 %.3f  median %.3f  max %.3f",
                s.avg, s.p95, s.median, s.max);
  std::string out = buf;
  if (baseline) {
    std::snprintf(buf, sizeof buf, "  (baseline %.3f)", s.baseline);
    out += buf;
  }
  out.push_back('\n');
  return out;
}

std::string checksum_line(std::uint64_t checksum, std::string_view note) {
  std::string out = "  checksum          ";
  out += stress_common::checksum_hex(checksum).data();
  if (!note.empty()) {
    out += " (";
    out += note;
    out += ')';
  }
  out.push_back('\n');
  return out;
}

} // namespace emote::server
