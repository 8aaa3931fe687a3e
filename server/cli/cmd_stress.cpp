// `emote-sim stress [--time 30s] [--instances N] [--recipients R] [--over tcp|unix]
// [--emotes DIR] [--json]` (protocol.md §9, players.md §8.3–8.4).
#include "server/cli/cli_args.hpp"
#include "server/cli/commands.hpp"
#include "server/cli/stress_options.hpp"
#include "server/host/content_loader.hpp"
#include "server/stress/stress.hpp"
#include "server/stress/stress_common.hpp"
#include "server/stress/stress_populated.hpp"
#include "server/stress/stress_sockets.hpp"

#include "engine/content/model.hpp"
#include "engine/core/memo.hpp"
#include "engine/core/time_string.hpp"
#include "render/framing.hpp"
#include "render/tables.hpp"
#include "settings/config.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace emote::server {
namespace {

namespace fs = std::filesystem;

/// Socket readers take two file descriptors each, in this one process.
constexpr std::size_t max_socket_readers = 10000;

bool parse_count(const std::string& text, std::size_t max, std::size_t& out) {
  std::size_t v = 0;
  if (!stress_common::parse_number(text, v) || v > max) {
    return false;
  }
  out = v;
  return true;
}

} // namespace

// The configuration keys stress reads: the content and what is disabled; over sockets, the
// connections' outbound budget.
constexpr std::string_view stress_config_keys[] = {"emotes", "disabled",
                                                   "limits.max_outbound_bytes"};

const cli_command& stress_cli() {
  static const cli_command command = [] {
    cli_command c;
    c.name = "stress";
    c.summary = "the stress test (docs/guide/performance.md)";
    c.max_operands = 0;
    c.description =
        "Plays N instances of the loaded Animations (fixed-seed assignment, start phases and grid\n"
        "of docs/spec/players.md §8.3) at 20 TPS; every tick's frame is encoded once and read by "
        "R\n"
        "in-memory recipients. Prints instances, peak displays, ticks sampled, MSPT avg / p95 /\n"
        "max, estimated TPS, the time split (engine, encode, fan-out), traffic, a checksum of\n"
        "every frame byte and the peak resident memory. With --over tcp|unix the recipients are\n"
        "readers on the other end of loopback TCP or Unix socket connections served by the real\n"
        "connection code (outbound budget limits.max_outbound_bytes, slow consumers closed);\n"
        "fan-out is then handing each frame to the connections. Figures and what they mean:\n"
        "docs/guide/performance.md. The emote folder and `disabled` come from the configuration, "
        "as\n"
        "for serve.\n";
    c.options = {
        value_option("time", "T", "test length: ticks (600t) or seconds (30s); default 30s"),
        value_option("instances", "N", "animation instances, 1..1000000 (default 100)"),
        value_option("recipients", "R", "in-memory recipients, 0..100000 (default 20)"),
        value_option("wire-protocol", "PROTOCOL",
                     "Minecraft packets of this protocol (767..775) instead of JSON frames,\n"
                     "as the mod's stress pipeline (docs/spec/render.md §8)"),
        value_option("compression-threshold", "N",
                     "with --wire-protocol: compress packets of at least N bytes (default 256,\n"
                     "-1 off; docs/spec/render.md §5.6)"),
        value_option("over", "tcp|unix",
                     "recipients are socket readers over loopback TCP or a Unix socket\n"
                     "(1..10000 of them)"),
        config_file_option(),
    };
    for (auto& o : config_cli_options(stress_config_keys)) {
      c.options.push_back(o);
    }
    const cli_option flags[] = {
        flag_option("json", "one JSON object instead of the text report"),
        flag_option("unpaced", "run ticks back to back instead of on 50 ms deadlines"),
        flag_option("serial", "read every recipient on this thread (no fan-out worker)"),
        flag_option("scalar", "recipients read without AVX2/AVX-512 (same checksum)"),
        flag_option("state-digests",
                    "compute the instances' state digest every tick and a state dump every\n"
                    "100 ticks, as serve --record does, inside the timed tick (protocol.md §8)"),
        flag_option("reference",
                    "the unoptimised path: no baked poses, no memoised decompositions\n"
                    "or transform texts (same bytes and checksum, for comparison)"),
    };
    c.options.insert(c.options.end(), std::begin(flags), std::end(flags));
    // Populated server mode (server/stress/stress_populated.hpp).
    for (const cli_option& o : populated_cli_options()) {
      c.options.push_back(o);
    }
    return c;
  }();
  return command;
}

int cmd_stress(std::span<const std::string_view> argv) {
  const cli_command& command = stress_cli();
  auto parsed = parse_command_line(command, argv);
  if (!parsed) {
    return parsed.error();
  }
  const cli_args& args = *parsed;

  stress_options options;
  if (auto t = args.value("time")) {
    const auto ticks = core::parse_time(*t, 1);
    if (!ticks) {
      std::fprintf(stderr, "emote-sim stress: --time '%s': %s\n", t->c_str(),
                   std::string(core::time_error_detail(ticks.error())).c_str());
      return 2;
    }
    options.ticks = *ticks;
  }
  if (auto v = args.value("instances");
      v && (!parse_count(*v, 1000000, options.instance_config.instances) ||
            options.instance_config.instances == 0)) {
    std::fprintf(stderr, "emote-sim stress: --instances must be an integer 1..1000000\n");
    return 2;
  }
  if (auto v = args.value("recipients"); v && !parse_count(*v, 100000, options.recipients)) {
    std::fprintf(stderr, "emote-sim stress: --recipients must be an integer 0..100000\n");
    return 2;
  }
  if (auto v = args.value("wire-protocol")) {
    std::int32_t p = 0;
    if (!stress_common::parse_number(*v, p) || !render::find_version(p)) {
      std::fprintf(stderr, "emote-sim stress: --wire-protocol '%s': supported protocols are %s\n",
                   v->c_str(), std::string(render::supported_protocols_text()).c_str());
      return 2;
    }
    options.wire_protocol = p;
  }
  if (auto v = args.value("compression-threshold")) {
    std::int32_t t = 0;
    if (!stress_common::parse_number(*v, t) || t < -1 ||
        static_cast<std::size_t>(std::max(t, 0)) > render::max_frame_length) {
      std::fprintf(stderr, "emote-sim stress: --compression-threshold must be an integer -1..%zu\n",
                   render::max_frame_length);
      return 2;
    }
    if (!options.wire_protocol) {
      std::fprintf(stderr, "emote-sim stress: --compression-threshold needs --wire-protocol\n");
      return 2;
    }
    options.compression_threshold = t;
  }
  if (!populated_selected(args)) {
    for (const std::string_view only : {"area", "seed", "unread", "pipelined"}) {
      if (args.has(only)) {
        std::fprintf(stderr, "emote-sim stress: --%s needs --players\n", std::string(only).c_str());
        return 2;
      }
    }
  }
  options.paced = !args.has("unpaced");
  options.parallel = !args.has("serial");
  options.simd = !args.has("scalar");
  options.state_digests = args.has("state-digests");
  if (args.has("reference")) {
    options.instance_config.bake_budget = 0;
    options.instance_config.caches.mode = core::cache_mode::off;
  }

  std::optional<stress_over> over;
  if (auto v = args.value("over")) {
    over = stress_over_names.parse(*v);
    if (!over) {
      std::fprintf(stderr, "emote-sim stress: --over must be tcp or unix\n");
      return 2;
    }
    if (options.recipients == 0 || options.recipients > max_socket_readers) {
      std::fprintf(stderr, "emote-sim stress: --over needs --recipients 1..%zu\n",
                   max_socket_readers);
      return 2;
    }
    // The connections carry NDJSON lines (protocol.md §1); packets are not lines.
    if (options.wire_protocol) {
      std::fprintf(stderr, "emote-sim stress: --over sends JSON frame lines; it does not combine "
                           "with --wire-protocol\n");
      return 2;
    }
  }

  // The emote folder and `disabled` come from the same configuration stack as `serve`.
  auto cfg = load_config(args, command.options);
  if (!cfg) {
    std::fprintf(stderr, "emote-sim stress: %s\n", cfg.error().c_str());
    return 2;
  }
  auto loaded = make_content_loader()->load({cfg->emotes}, cfg->engine.disabled, {});
  if (!loaded) {
    std::fprintf(stderr, "emote-sim stress: %s\n", loaded.error().c_str());
    return 1;
  }
  if (loaded->catalog->animation_count() == 0) {
    std::fprintf(stderr, "emote-sim stress: no Animation loaded from %s\n",
                 cfg->emotes.string().c_str());
    return 1;
  }

  // Populated server mode (server/stress/stress_populated.hpp): --players selects it.
  if (populated_selected(args)) {
    populated_options popt;
    popt.ticks = options.ticks;
    popt.paced = options.paced;
    popt.simd = options.simd;
    if (const std::string bad = parse_populated_options(args, popt); !bad.empty()) {
      std::fprintf(stderr, "emote-sim stress: %s\n", bad.c_str());
      return 2;
    }
    const populated_report pr = run_populated(loaded->catalog, popt);
    const std::string text =
        args.has("json") ? populated_report_json(pr) : populated_report_text(pr);
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }

  std::unique_ptr<socket_fanout> transport;
  if (over) {
    socket_fanout_options so;
    so.over = *over;
    so.readers = options.recipients;
    so.max_outbound_bytes = static_cast<std::size_t>(cfg->limits.max_outbound_bytes);
    so.simd = options.simd;
    auto opened = socket_fanout::open(so);
    if (!opened) {
      std::fprintf(stderr, "emote-sim stress: --over %s: %s\n",
                   std::string(stress_over_names(*over)).c_str(), opened.error().c_str());
      return 1;
    }
    transport = std::move(opened).value();
    options.transport = transport.get();
  }

  const stress_report report = run_stress(loaded->catalog, options);
  const std::string out =
      args.has("json") ? stress_report_json(report) : stress_report_text(report);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return report.recipients_agree ? 0 : 1;
}

} // namespace emote::server
