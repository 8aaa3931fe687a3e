#pragma once
// `emote-sim stress` (players.md §8.3–8.4, protocol.md §9): the stress instances of
// sim::stress_run driven tick by tick, each frame encoded once and handed to R in-memory
// recipients that read every byte, every tick measured as one sample.
//
// Each tick: engine (the instances advance and emit), encode (one frame line, the default
// subscription's bytes), fan-out (every recipient walks the line). With enough bytes to read the
// recipients are split between this thread and one worker, so the second core shares the
// fan-out; each recipient's checksum does not depend on which thread read it. With a transport
// (`--over tcp|unix`, server/stress/stress_sockets) fan-out hands the line to real connections
// instead, and their readers' checksums are reported.

#include "engine/rules/stress.hpp"
#include "engine/sim/stress_run.hpp"
#include "server/stress/stress_harness.hpp"
#include "server/stress/stress_sockets.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace emote::content {
class catalog;
}

namespace emote::server {

struct stress_options {
  std::int64_t ticks = 600; ///< sampled ticks (the test length)
  std::size_t recipients = 20;
  bool paced = true;                  ///< 20 TPS on absolute deadlines; false: ticks back to back
  bool parallel = true;               ///< share large fan-outs with a worker thread
  bool simd = true;                   ///< recipients read with AVX2/AVX-512 when the CPU has them
  sim::stress_config instance_config; ///< instances (default 100), grid, bake budget
  /// render.md §8: Minecraft packets of this protocol instead of JSON frames.
  std::optional<std::int32_t> wire_protocol;
  std::int32_t compression_threshold = 256; ///< render.md §5.6; < 0: off
  /// Not null: the frames go over real sockets to its readers (`--over`) instead of to in-memory
  /// recipients; `recipients` is then unused, and run_stress() calls its finish().
  socket_fanout* transport = nullptr;
  /// protocol.md §8: compute the instances' state digest every tick and a state dump every
  /// `state_dump_every` ticks, as `serve --record` does, inside the timed tick.
  bool state_digests = false;
  std::int64_t state_dump_every = 100;
};

/// A per-tick figure per recipient over the sampled ticks, and summed over the recipients.
struct per_tick_figure {
  double avg = 0;
  std::int64_t max = 0;
  double total_avg = 0; ///< avg × recipients (the mod sums its sinks)
};

/// The sampled ticks' figures (ticks, mspt, elapsed_s, observed_tps) are the harness's.
struct stress_report : sampled_ticks {
  std::size_t requested = 0;
  std::size_t active = 0; ///< running at the end of the test, before cleanup
  std::size_t failures = 0;
  std::size_t recipients = 0;
  std::int64_t peak_displays = 0;
  double creation_ms = 0, cleanup_ms = 0;
  struct {
    double engine = 0, encode = 0, fanout = 0; ///< average per sampled tick
  } split_ms;
  struct {
    double avg = 0;
    std::int64_t max = 0;
  } bytes_per_tick;
  /// With --wire-protocol (render.md §8): what each recipient gets per tick.
  struct {
    std::int32_t protocol = 0; ///< 0: JSON frames
    std::int32_t compression_threshold = 0;
    std::uint64_t packets = 0;            ///< creation and cleanup included
    std::uint64_t compressed_packets = 0; ///< of those, compressed
    std::uint64_t dropped_packets = 0;    ///< frames beyond a 21-bit length (not sent)
    per_tick_figure packets_per_tick, bytes_per_tick;
  } wire;
  std::uint64_t records = 0;  ///< events encoded, creation and cleanup included
  std::uint64_t bytes = 0;    ///< bytes of every frame line (each recipient reads them all)
  double mib_per_s = 0;       ///< bytes × recipients read per second of fan-out
  std::uint64_t checksum = 0; ///< every recipient's checksum over all frame bytes (equal)
  bool recipients_agree = true;
  double peak_rss_mib = 0;          ///< the process's peak resident set (VmHWM), 0 if unknown
  std::string_view over = "memory"; ///< "memory", or the transport's "tcp" / "unix"
  std::size_t disconnects = 0;      ///< connections closed as slow consumers (over sockets)
  /// With state digests (--state-digests): their cost, inside the MSPT figures.
  struct {
    bool on = false;
    double digest_ms = 0;          ///< average per sampled tick
    std::int64_t dumps = 0;        ///< dumps made in the sampled ticks
    double dump_ms = 0;            ///< average per dump
    double dump_bytes = 0;         ///< average size of a dump
    std::uint64_t last_digest = 0; ///< the digest after the last sampled tick
  } state;
};

stress_report run_stress(std::shared_ptr<const content::catalog> catalog,
                         const stress_options& options);

/// The protocol.md §9 JSON object (its keys first, then the rest of the report), one line.
std::string stress_report_json(const stress_report& r);
/// The human-readable report.
std::string stress_report_text(const stress_report& r);

} // namespace emote::server
