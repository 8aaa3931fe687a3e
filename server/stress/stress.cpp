#include "server/stress/stress.hpp"

#include "server/stress/stress_common.hpp"
#include "server/stress/stress_harness.hpp"
#include "server/stress/stress_readers.hpp"

#include "engine/json/state_json.hpp"
#include "engine/json/writer.hpp"
#include "protocol/encode.hpp"
#include "render/stress_wire.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

namespace emote::server {
namespace {

using stress_common::ms_between;
using stress_common::now_ns;

/// Below this many bytes to read in one tick, waking the worker costs more than it saves.
constexpr std::uint64_t parallel_fanout_threshold = 256 * 1024;
/// Below this many instances the engine and encode work stays on one thread.
constexpr std::size_t parallel_instances_threshold = 256;

/// One share of a tick's instances, advanced, emitted and encoded by one thread, a few
/// instances at a time so that their events are encoded while they are still in cache.
struct share {
  static constexpr std::size_t batch = 64;

  sim::stress_run* run = nullptr;
  const core::cache_options* caches = nullptr; ///< the run's (the transform-text memo)
  std::size_t begin = 0, end = 0;
  sim::stress_run::part* part = nullptr;
  std::string text; ///< the share's events, comma-separated
  // With --wire-protocol: the share's framed packets instead (render.md §8).
  render::stress_wire* wire = nullptr;
  render::packet_framer* framer = nullptr;
  render::wire_output packets;
  std::uint64_t records = 0;
  std::int64_t engine_ns = 0; ///< advancing and emitting (the rest of work() is encoding)

  void work() {
    text.clear();
    packets.clear();
    part->ended.clear();
    records = 0;
    engine_ns = 0;
    for (std::size_t b = begin; b < end; b += batch) {
      const std::int64_t t0 = now_ns();
      part->events.clear();
      run->step_part(b, std::min(end, b + batch), *part);
      const std::int64_t t1 = now_ns();
      if (!part->events.empty()) {
        if (wire) {
          wire->encode(part->events, *framer, packets);
        } else {
          if (!text.empty()) {
            text.push_back(',');
          }
          protocol::encode_events(text, part->events, false, *caches);
        }
        records += part->events.size();
      }
      engine_ns += t1 - t0;
    }
  }
};

/// The second half of a line for one recipient, read from zero (combine() joins it).
struct half_reading {
  blocks_fn read = nullptr;
  std::span<const std::string_view> pieces;
  std::size_t begin = 0, end = 0;
  recipient sums;
  void work() { deliver_range(read, pieces, begin, end, std::span<recipient>(&sums, 1)); }
};

/// One share of a frame's recipients.
struct reading {
  blocks_fn read = nullptr;
  std::span<const std::string_view> pieces;
  std::span<recipient> rs;
  void work() const { deliver(read, pieces, rs); }
};

class driver final : public stress_mode {
public:
  driver(std::shared_ptr<const content::catalog> catalog, const stress_options& o)
      : options_(o), run_(std::move(catalog), o.instance_config),
        recipients_(o.transport != nullptr ? 0 : o.recipients), solo_(1),
        read_(reader_fn(best_reader(o.simd))) {
    if (o.parallel) {
      worker_ = std::make_unique<second_thread>();
    }
    if (o.wire_protocol) {
      // cmd_stress checked the protocol; render.md §8 with the default render configuration.
      wire_ = std::make_unique<render::stress_wire>(*render::find_version(*o.wire_protocol),
                                                    render::render_config{});
      for (std::size_t i = 0; i < 2; ++i) {
        framers_[i] = std::make_unique<render::packet_framer>(o.compression_threshold);
        shares_[i].wire = wire_.get();
        shares_[i].framer = framers_[i].get();
      }
    }
    const std::size_t n = run_.instance_count();
    const bool split = worker_ && n >= parallel_instances_threshold;
    const std::size_t mid = split ? n / 2 : n;
    shares_[0].run = shares_[1].run = &run_;
    shares_[0].caches = shares_[1].caches = &options_.instance_config.caches;
    shares_[0].part = &parts_[0];
    shares_[1].part = &parts_[1];
    shares_[0].begin = 0;
    shares_[0].end = mid;
    shares_[1].begin = mid;
    shares_[1].end = n;
    share_count_ = split ? 2 : 1;
  }

  stress_report run() {
    stress_report r;
    r.requested = options_.instance_config.instances;
    r.recipients =
        options_.transport != nullptr ? options_.transport->readers() : options_.recipients;

    const std::int64_t t0 = now_ns();
    send_whole(run_.create());
    const std::int64_t t1 = now_ns();
    r.creation_ms = ms_between(t0, t1);

    report_ = &r;
    static_cast<sampled_ticks&>(r) = run_sampled(*this, options_.ticks, options_.paced);
    report_ = nullptr;
    r.active = run_.active();

    const std::int64_t c0 = now_ns();
    send_whole(run_.finish());
    r.cleanup_ms = ms_between(c0, now_ns());

    r.failures = run_.failures();
    r.peak_displays = run_.peak_displays();
    r.split_ms.engine = r.mspt.emote_avg;
    r.split_ms.fanout = r.mspt.network_avg;
    if (r.ticks > 0) {
      const auto n = static_cast<double>(r.ticks);
      r.split_ms.encode = static_cast<double>(encode_ns_) / 1e6 / n;
      r.state.on = options_.state_digests;
      r.state.digest_ms = static_cast<double>(digest_ns_) / 1e6 / n;
      if (r.state.dumps > 0) {
        const auto d = static_cast<double>(r.state.dumps);
        r.state.dump_ms = static_cast<double>(dump_ns_) / 1e6 / d;
        r.state.dump_bytes = static_cast<double>(dump_bytes_) / d;
      }
      r.bytes_per_tick.avg = static_cast<double>(tick_bytes_) / n;
    }
    if (wire_) {
      const auto readers = static_cast<double>(recipients_.size());
      r.wire.protocol = *options_.wire_protocol;
      r.wire.compression_threshold = options_.compression_threshold;
      r.wire.packets = packets_;
      r.wire.dropped_packets = dropped_packets_;
      for (const auto& f : framers_) {
        r.wire.compressed_packets += f->compressed();
      }
      r.wire.bytes_per_tick.avg = r.bytes_per_tick.avg;
      r.wire.bytes_per_tick.max = r.bytes_per_tick.max;
      r.wire.bytes_per_tick.total_avg = r.bytes_per_tick.avg * readers;
      if (r.ticks > 0) {
        r.wire.packets_per_tick.avg =
            static_cast<double>(tick_packets_) / static_cast<double>(r.ticks);
      }
      r.wire.packets_per_tick.total_avg = r.wire.packets_per_tick.avg * readers;
    }
    r.records = records_;
    r.bytes = bytes_;
    const double fanout_s = r.mspt.network_avg * static_cast<double>(r.mspt.sampled) / 1e3;
    if (fanout_s > 0) {
      const auto readers = static_cast<double>(std::max<std::size_t>(r.recipients, 1));
      r.mib_per_s = static_cast<double>(tick_bytes_) * readers / (1024.0 * 1024.0) / fanout_s;
    }
    if (options_.transport != nullptr) {
      over_sockets(r);
    } else {
      const std::vector<recipient>& readers = recipients_.empty() ? solo_ : recipients_;
      r.checksum = readers.front().checksum();
      for (const recipient& x : readers) {
        r.recipients_agree =
            r.recipients_agree && x.checksum() == r.checksum && x.bytes == readers.front().bytes;
      }
    }
    r.peak_rss_mib = peak_rss_mib();
    return r;
  }

  /// One sampled tick: engine and encode (each share advances, emits and encodes its
  /// instances), what a recording server adds (--state-digests), then fan-out.
  tick_spans tick() override {
    stress_report& r = *report_;
    const std::int64_t a = now_ns();
    const api::tick_number tick = run_.begin_step();
    if (share_count_ == 2) {
      auto second = [this] { shares_[1].work(); };
      worker_->run(second);
      shares_[0].work();
      worker_->wait();
    } else {
      shares_[0].work();
    }
    run_.end_step(std::span<sim::stress_run::part>(parts_, share_count_));
    // protocol.md §8: what a recording server adds to the tick.
    std::int64_t state_ns = 0;
    if (options_.state_digests) {
      const std::int64_t s0 = now_ns();
      r.state.last_digest = run_.state_digest();
      const std::int64_t s1 = now_ns();
      digest_ns_ += s1 - s0;
      if (options_.state_dump_every > 0 && tick % options_.state_dump_every == 0) {
        dump_.clear();
        json::state_json writer(dump_);
        run_.describe_state(writer);
        dump_ns_ += now_ns() - s1;
        dump_bytes_ += dump_.size();
        ++r.state.dumps;
      }
      state_ns = now_ns() - s0;
    }
    const std::int64_t b = now_ns();
    // The split: the engine is the longer of the shares' engine spans, encoding the rest of
    // this phase; fan-out is the delivery span.
    const std::int64_t eng = std::max(shares_[0].engine_ns, shares_[1].engine_ns);
    encode_ns_ += (b - a) - eng - state_ns;
    assemble(tick);
    for (std::size_t i = 0; i < share_count_; ++i) {
      records_ += shares_[i].records;
    }
    const std::int64_t c = now_ns();
    fan_out();
    const std::int64_t d = now_ns();
    bytes_ += line_bytes_;
    tick_bytes_ += line_bytes_;
    r.bytes_per_tick.max = std::max(r.bytes_per_tick.max, static_cast<std::int64_t>(line_bytes_));
    if (wire_) {
      std::uint64_t n = 0;
      for (std::size_t i = 0; i < share_count_; ++i) {
        n += shares_[i].packets.packets;
        count_packets(shares_[i].packets);
      }
      tick_packets_ += n;
      r.wire.packets_per_tick.max =
          std::max(r.wire.packets_per_tick.max, static_cast<std::int64_t>(n));
    }
    return {eng, d - c};
  }

  /// Between ticks: over sockets the connections write meanwhile, on this thread (as serve's
  /// one thread does between ticks).
  void idle_until(time_point t) override {
    if (options_.transport != nullptr) {
      options_.transport->run_until(t);
    } else {
      stress_mode::idle_until(t);
    }
  }

private:
  void count_packets(const render::wire_output& w) {
    packets_ += w.packets;
    dropped_packets_ += w.dropped;
  }

  /// The frame line's pieces: head, the shares' events (comma between non-empty ones), tail.
  /// With --wire-protocol: the shares' packets, in instance order.
  void assemble(api::tick_number tick) {
    if (wire_) {
      pieces_.clear();
      line_bytes_ = 0;
      for (std::size_t i = 0; i < share_count_; ++i) {
        if (!shares_[i].packets.bytes.empty()) {
          pieces_.emplace_back(shares_[i].packets.bytes);
          line_bytes_ += shares_[i].packets.bytes.size();
        }
      }
      return;
    }
    head_.clear();
    protocol::encode_frame_head(head_, tick);
    pieces_.clear();
    pieces_.emplace_back(head_);
    bool any = false;
    for (std::size_t i = 0; i < share_count_; ++i) {
      if (shares_[i].text.empty()) {
        continue;
      }
      if (any) {
        pieces_.emplace_back(",");
      }
      pieces_.emplace_back(shares_[i].text);
      any = true;
    }
    pieces_.emplace_back(protocol::frame_tail);
    line_bytes_ = 0;
    for (const std::string_view p : pieces_) {
      line_bytes_ += p.size();
    }
  }

  /// The socket readers' checksums, once every connection has closed and they read to its end.
  void over_sockets(stress_report& r) {
    const socket_fanout_totals t = options_.transport->finish();
    r.over = stress_over_names(options_.transport->over());
    r.disconnects = t.slow_consumers;
    r.checksum = t.readers.front().checksum;
    for (const socket_reader_total& x : t.readers) {
      r.recipients_agree = r.recipients_agree && x.checksum == r.checksum &&
                           x.bytes == t.readers.front().bytes && x.bytes == bytes_;
    }
  }

  /// Every recipient reads the line in pieces_ (line_bytes_ long); over sockets, the line is
  /// handed to every connection instead.
  void fan_out() {
    if (options_.transport != nullptr) {
      options_.transport->send(pieces_);
      return;
    }
    std::span<recipient> all(recipients_.empty() ? solo_ : recipients_);
    if (worker_ && all.size() == 1 && line_bytes_ >= parallel_fanout_threshold) {
      // One reader, a long line: the worker reads its second half into a fresh recipient, and
      // the halves' sums combine into exactly those of one reading.
      const std::size_t mid = line_bytes_ / 2 / line_blocks::block * line_blocks::block;
      half_reading tail{read_, pieces_, mid, line_bytes_, recipient{}};
      auto second = [&tail] { tail.work(); };
      worker_->run(second);
      deliver_range(read_, pieces_, 0, mid, all);
      worker_->wait();
      combine(all.front(), tail.sums,
              (line_bytes_ - mid + line_blocks::block - 1) / line_blocks::block);
      return;
    }
    if (worker_ && all.size() >= 2 && line_bytes_ * all.size() >= parallel_fanout_threshold) {
      const std::size_t half = all.size() / 2;
      const reading share{read_, pieces_, all.subspan(half)};
      auto second = [&share] { share.work(); };
      worker_->run(second);
      deliver(read_, pieces_, all.first(half));
      worker_->wait();
    } else {
      deliver(read_, pieces_, all);
    }
  }

  /// Creation and cleanup frames: encoded whole on this thread.
  void send_whole(const api::frame& f) {
    whole_.clear();
    if (wire_) {
      whole_packets_.clear();
      wire_->encode(f.events, *framers_[0], whole_packets_);
      count_packets(whole_packets_);
      whole_.swap(whole_packets_.bytes);
    } else {
      protocol::encode_frame(whole_, f, false, options_.instance_config.caches);
    }
    records_ += f.events.size();
    bytes_ += whole_.size();
    pieces_.clear();
    pieces_.emplace_back(whole_);
    line_bytes_ = whole_.size();
    fan_out();
  }

  stress_options options_;
  sim::stress_run run_;
  std::vector<recipient> recipients_;
  std::vector<recipient> solo_; ///< reads the output when there is no recipient
  blocks_fn read_;
  std::unique_ptr<second_thread> worker_;
  share shares_[2];
  std::size_t share_count_ = 1;
  sim::stress_run::part parts_[2];
  std::string head_, whole_;
  std::vector<std::string_view> pieces_;
  std::uint64_t line_bytes_ = 0;
  stress_report* report_ = nullptr; ///< the report run() fills, while it samples
  std::uint64_t records_ = 0;
  std::uint64_t bytes_ = 0;
  std::int64_t encode_ns_ = 0;
  std::uint64_t tick_bytes_ = 0;   ///< bytes of the sampled ticks' frames
  std::uint64_t tick_packets_ = 0; ///< packets of the sampled ticks (--wire-protocol)
  std::string dump_;               ///< --state-digests: the last state dump
  std::int64_t digest_ns_ = 0, dump_ns_ = 0;
  std::uint64_t dump_bytes_ = 0;
  // --wire-protocol (render.md §8)
  std::unique_ptr<render::stress_wire> wire_;
  std::unique_ptr<render::packet_framer> framers_[2];
  render::wire_output whole_packets_;
  std::uint64_t packets_ = 0, dropped_packets_ = 0;
};

} // namespace

stress_report run_stress(std::shared_ptr<const content::catalog> catalog,
                         const stress_options& options) {
  driver d(std::move(catalog), options);
  return d.run();
}

std::string stress_report_json(const stress_report& r) {
  report_json j;
  j.count("instances", r.requested);
  j.count("active", r.active);
  j.count("recipients", r.recipients);
  j.integer("peak_displays", r.peak_displays);
  j.integer("ticks", r.ticks);
  j.mspt(r.mspt, true);
  j.begin("split_ms");
  j.number("engine", r.split_ms.engine);
  j.number("encode", r.split_ms.encode);
  j.number("fanout", r.split_ms.fanout);
  j.end();
  j.begin("bytes_per_tick");
  j.number("avg", r.bytes_per_tick.avg);
  j.integer("max", r.bytes_per_tick.max);
  j.end();
  if (r.wire.protocol != 0) {
    // render.md §8: the packet pipeline's figures.
    j.begin("wire");
    j.integer("protocol", r.wire.protocol);
    j.integer("compression_threshold", r.wire.compression_threshold);
    j.count("packets", r.wire.packets);
    j.count("compressed_packets", r.wire.compressed_packets);
    j.count("dropped_packets", r.wire.dropped_packets);
    j.end();
    const auto figure = [&](std::string_view key, const per_tick_figure& f) {
      j.begin(key);
      j.number("avg", f.avg);
      j.integer("max", f.max);
      j.number("total_avg", f.total_avg);
      j.end();
    };
    figure("packets_per_tick", r.wire.packets_per_tick);
    figure("wire_bytes_per_tick", r.wire.bytes_per_tick);
  }
  j.count("failures", r.failures);
  j.number("elapsed_s", r.elapsed_s);
  j.number("observed_tps", r.observed_tps);
  j.begin("estimated_tps");
  j.number("baseline", r.mspt.tps.baseline);
  j.number("average", r.mspt.tps.average);
  j.number("minimum", r.mspt.tps.minimum);
  j.number("drop", r.mspt.tps.drop);
  j.end();
  j.number("creation_ms", r.creation_ms);
  j.number("cleanup_ms", r.cleanup_ms);
  j.begin("traffic");
  j.count("records", r.records);
  j.count("bytes", r.bytes);
  j.number("fanout_mib_per_s", r.mib_per_s);
  j.end();
  j.checksum("checksum", r.checksum);
  j.flag("recipients_agree", r.recipients_agree);
  j.number("peak_rss_mib", r.peak_rss_mib);
  j.text("over", r.over);
  j.count("disconnects", r.disconnects);
  if (r.state.on) {
    j.begin("state_digests");
    j.number("digest_ms", r.state.digest_ms);
    j.integer("dumps", r.state.dumps);
    j.number("dump_ms", r.state.dump_ms);
    j.number("dump_bytes", r.state.dump_bytes);
    j.text("last_digest", core::state_digest_hex(r.state.last_digest));
    j.end();
  }
  return j.done();
}

std::string stress_report_text(const stress_report& r) {
  char buf[2048];
  std::snprintf(buf, sizeof buf,
                "stress: %zu instances requested, %zu active, %zu failed; %zu recipients\n"
                "  peak displays     %lld\n",
                r.requested, r.active, r.failures, r.recipients,
                static_cast<long long>(r.peak_displays));
  std::string out = buf;
  out += ticks_line(r);
  out += mspt_line(r.mspt, true);
  std::snprintf(
      buf, sizeof buf,
      "  estimated TPS     average %.2f  minimum %.2f  drop %.2f\n"
      "  split per tick    engine %.3f ms  encode %.3f ms  fan-out %.3f ms\n"
      "  creation/cleanup  %.3f ms / %.3f ms\n"
      "  traffic           %llu records, %llu bytes per recipient, %.0f B/tick avg, %lld max, "
      "fan-out %.1f MiB/s\n",
      r.mspt.tps.average, r.mspt.tps.minimum, r.mspt.tps.drop, r.split_ms.engine, r.split_ms.encode,
      r.split_ms.fanout, r.creation_ms, r.cleanup_ms, static_cast<unsigned long long>(r.records),
      static_cast<unsigned long long>(r.bytes), r.bytes_per_tick.avg,
      static_cast<long long>(r.bytes_per_tick.max), r.mib_per_s);
  out += buf;
  out += checksum_line(r.checksum,
                       r.recipients_agree ? "every recipient agrees" : "RECIPIENTS DISAGREE");
  std::snprintf(buf, sizeof buf, "  peak RSS          %.1f MiB\n", r.peak_rss_mib);
  out += buf;
  if (r.wire.protocol != 0) {
    std::snprintf(buf, sizeof buf,
                  "  packets           protocol %d, compression threshold %d: %.1f packets/tick "
                  "avg, %lld max (%.0f summed over recipients); %.0f B/tick avg, %lld max "
                  "(%.0f summed); %llu packets, %llu compressed, %llu dropped\n",
                  r.wire.protocol, r.wire.compression_threshold, r.wire.packets_per_tick.avg,
                  static_cast<long long>(r.wire.packets_per_tick.max),
                  r.wire.packets_per_tick.total_avg, r.wire.bytes_per_tick.avg,
                  static_cast<long long>(r.wire.bytes_per_tick.max),
                  r.wire.bytes_per_tick.total_avg, static_cast<unsigned long long>(r.wire.packets),
                  static_cast<unsigned long long>(r.wire.compressed_packets),
                  static_cast<unsigned long long>(r.wire.dropped_packets));
    out += buf;
  }
  if (r.over != "memory") {
    std::snprintf(buf, sizeof buf,
                  "  over sockets      %.*s: %zu readers, %zu slow-consumer disconnects\n",
                  static_cast<int>(r.over.size()), r.over.data(), r.recipients, r.disconnects);
    out += buf;
  }
  if (r.state.on) {
    std::snprintf(buf, sizeof buf,
                  "  state digests     %.3f ms/tick (in the MSPT); %lld dumps, %.3f ms and %.0f "
                  "bytes each; last %s\n",
                  r.state.digest_ms, static_cast<long long>(r.state.dumps), r.state.dump_ms,
                  r.state.dump_bytes, core::state_digest_hex(r.state.last_digest).c_str());
    out += buf;
  }
  return out;
}

} // namespace emote::server
