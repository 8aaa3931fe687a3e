// emote-sim serve: the socket server (protocol.md §1–§6, §8, §10, §11).
#include "server/cli/commands.hpp"

#include "protocol/recording.hpp"
#include "server/cli/cli_args.hpp"
#include "server/cli/logging.hpp"
#include "server/daemon/fd_limit.hpp"
#include "server/daemon/gate_service.hpp"
#include "server/daemon/http_listener.hpp"
#include "server/daemon/hub.hpp"
#include "server/daemon/recorder.hpp"
#include "server/host/build_info.hpp"
#include "server/host/content_loader.hpp"
#include "server/host/engine_host.hpp"
#include "settings/config.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <spdlog/spdlog.h>

#include <cstdio>

namespace emote::server {

using settings::clock_mode;
using settings::server_config;

const cli_command& serve_cli() {
  static const cli_command command = [] {
    cli_command c;
    c.name = "serve";
    c.summary = "the socket server";
    c.max_operands = 0;
    c.description =
        "Starts the NDJSON socket server (docs/guide/proxy-and-bots.md). Configuration "
        "precedence:\n"
        "built-in defaults < the file (--config FILE, EMOTE_SIM_CONFIG, else config/emote-sim.json "
        "when\n"
        "it exists) < EMOTE_SIM_<KEY> environment variables < these options. Every key of the\n"
        "configuration is an option; `--opt=value` and `--opt value` are the same.\n";
    c.options.push_back(config_file_option());
    for (auto& o : config_cli_options()) {
      c.options.push_back(o);
    }
    c.options.push_back(value_option(
        "log-level", "L",
        "trace, debug, info, warn, error, critical, off (default: SPDLOG_LEVEL or info)"));
    c.options.push_back(value_option(
        "log-format", "F",
        "text (default) or json: one object per line, {\"time\",\"level\",\"message\"}"));
    c.options.back().choices = "text json";
    c.options[c.options.size() - 2].choices = "trace debug info warn error critical off";
    return c;
  }();
  return command;
}

int cmd_serve(std::span<const std::string_view> argv) {
  const cli_command& command = serve_cli();
  auto parsed = parse_command_line(command, argv);
  if (!parsed) {
    return parsed.error();
  }
  const cli_args& args = *parsed;
  if (auto err = setup_logging(args.value("log-level"), args.value("log-format"))) {
    std::fprintf(stderr, "emote-sim serve: %s\n", err->c_str());
    return 2;
  }
  auto cfg_result = load_config(args, command.options);
  if (!cfg_result) {
    spdlog::critical("{}", cfg_result.error());
    return 2;
  }
  const server_config& cfg = *cfg_result;
  if (!cfg.config_file.empty()) {
    spdlog::info("configuration: {}", cfg.config_file.string());
  }

  auto host = make_engine_host(cfg.emotes, cfg.engine, cfg.render);
  if (!host) {
    spdlog::critical("{}", host.error());
    return 1;
  }
  engine_host& simulation = **host;
  log_skipped_files("startup", simulation.startup_diagnostics());
  const std::int64_t skipped = skipped_count(simulation.startup_diagnostics());
  spdlog::log(simulation.emote_count() == 0 ? spdlog::level::warn : spdlog::level::info,
              "emote-sim {}: {} emotes from {} ({} files skipped)", EMOTE_SIM_VERSION,
              simulation.emote_count(), cfg.emotes.string(), skipped);

  std::unique_ptr<recorder> rec;
  if (!cfg.record.empty()) {
    protocol::recording_header header;
    header.server = EMOTE_SIM_VERSION;
    header.build = std::string(build_id());
    header.seed = cfg.engine.seed;
    header.config_json = cfg.effective_json;
    auto content = protocol::read_content_manifest({cfg.emotes});
    if (!content) {
      spdlog::critical("recording: {}", content.error());
      return 1;
    }
    header.content_digest = content->digest;
    header.content_files = std::move(content->files); // protocol.md §8
    header.started = iso8601_now();
    auto r = recorder::open(cfg.record, header, cfg.record_frames);
    if (!r) {
      spdlog::critical("{}", r.error());
      return 1;
    }
    rec = std::move(r).value();
    rec->set_state_every(cfg.record_state_every);
    spdlog::info("recording to {}{}", cfg.record.string(),
                 cfg.record_frames ? " (with frames)" : "");
  }

  // protocol.md §10: the soft descriptor limit is raised to the hard one and the connection caps
  // are fitted into it, so that accepting never fails for want of a descriptor.
  const descriptor_limit fds = raise_descriptor_limit();
  const bool metrics_apart = cfg.metrics && (!cfg.http || cfg.metrics->text() != cfg.http->text());
  const std::size_t http_listeners = (cfg.http ? 1U : 0U) + (metrics_apart ? 1U : 0U);
  const connection_caps caps = fit_connection_caps(
      fds.soft, cfg.limits.max_connections, http_settings{}.max_connections, http_listeners,
      static_cast<std::size_t>(cfg.limits.gate_max_connections), cfg.gates.size());
  spdlog::log(caps.lowered ? spdlog::level::warn : spdlog::level::info,
              "descriptor limit {} (was {}, hard {}): up to {} line connections{}{}{}", fds.soft,
              fds.before, fds.hard, caps.line,
              http_listeners > 0 ? ", " + std::to_string(caps.http) + " per HTTP listener" : "",
              cfg.gates.empty() ? "" : ", " + std::to_string(caps.gate) + " per gate",
              caps.lowered ? " (lowered to fit; raise the hard limit, e.g. ulimit -Hn)" : "");

  boost::asio::io_context io;
  metrics m;
  hub_settings settings;
  settings.clock = cfg.clock;
  settings.tps = cfg.tps;
  settings.auth = cfg.auth;
  settings.limits = cfg.limits;
  settings.limits.max_connections = caps.line;
  settings.idle_timeout = std::chrono::seconds(cfg.limits.idle_timeout_seconds);
  settings.caches = cfg.engine.caches;
  hub server(io, settings, simulation, m, rec.get());
  if (auto err = server.listen(cfg.listen)) {
    spdlog::critical("{}", *err);
    return 1;
  }
  // gate.md: each gate's players are the lines of an internal client; after every tick the
  // renderer's packets go to their Minecraft connections.
  std::unique_ptr<gate_service> gates;
  if (!cfg.gates.empty()) {
    gate_hub hooks;
    hooks.attach = [&server](std::string name, std::function<void(std::string_view)> on_line) {
      return server.attach_internal(std::move(name), std::move(on_line));
    };
    hooks.line = [&server](std::uint64_t id, std::string line) {
      server.internal_line(id, std::move(line));
    };
    auto gate_limits = cfg.limits;
    gate_limits.gate_max_connections = static_cast<std::int64_t>(caps.gate);
    gates = std::make_unique<gate_service>(io, std::move(hooks), simulation, gate_limits);
    server.on_tick([g = gates.get()](const protocol::tick_output& t) { g->after_tick(t); },
                   [g = gates.get()] { return g->wants_packets(); });
    if (auto err = gates->open(cfg.gates)) {
      spdlog::critical("{}", *err);
      return 1;
    }
  }
  // One HTTP listener per address (protocol.md §10): `http` serves the viewer, its observer
  // WebSocket and /metrics; `metrics`, when it is another address, only /metrics.
  std::vector<std::unique_ptr<http_listener>> http;
  auto render_metrics = [&server, &gates] {
    return server.render_metrics() + (gates ? gates->render_metrics() : std::string());
  };
  if (cfg.http) {
    http_routes routes;
    routes.metrics = render_metrics;
    routes.assets = find_viewer_assets();
    routes.documents.push_back({"/viewer.json", "application/json",
                                std::make_shared<const std::string>("{\"mode\":\"live\"}\n")});
    if (!routes.assets) {
      spdlog::warn("the viewer is not built (scripts/build-viewer): / says so");
    }
    routes.observer = [&server](connection::socket_type s, std::string peer) {
      server.accept(std::move(s), std::move(peer));
    };
    http_settings viewer_settings;
    viewer_settings.max_connections = caps.http;
    viewer_settings.origins = cfg.http_origins;
    auto h = http_listener::open(io, *cfg.http, std::move(routes), viewer_settings);
    if (!h) {
      spdlog::critical("{}", h.error());
      return 1;
    }
    http.push_back(std::move(h).value());
    spdlog::info("viewer at http://{}/", http.back()->bound().text());
  }
  if (metrics_apart) {
    http_routes routes;
    routes.metrics = render_metrics;
    http_settings metrics_settings;
    metrics_settings.name = "metrics";
    metrics_settings.max_connections = caps.http;
    auto h = http_listener::open(io, *cfg.metrics, std::move(routes), metrics_settings);
    if (!h) {
      spdlog::critical("{}", h.error());
      return 1;
    }
    http.push_back(std::move(h).value());
  }
  if (cfg.metrics) {
    spdlog::info("metrics at http://{}/metrics", http.back()->bound().text());
  }

  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  int signal_count = 0;
  std::function<void(const boost::system::error_code&, int)> on_signal =
      [&](const boost::system::error_code& ec, int sig) {
        if (ec) {
          return;
        }
        if (++signal_count > 1) {
          spdlog::warn("second signal: exiting now");
          io.stop();
          return;
        }
        spdlog::info("{} received", sig == SIGINT ? "SIGINT" : "SIGTERM");
        for (auto& h : http) {
          h->close();
        }
        if (gates) {
          gates->close(); // their players leave before the last frame
        }
        server.stop([&] {
          signals.cancel();
          io.stop();
        });
        signals.async_wait(on_signal);
      };
  signals.async_wait(on_signal);

  spdlog::info("{} clock at {} TPS; ready", cfg.clock == clock_mode::manual ? "manual" : "realtime",
               cfg.tps);
  server.start();
  int status = 0;
  try {
    io.run();
  } catch (const core::cache_mismatch& e) { // check_caches: the state is suspect, stop here
    spdlog::critical("check_caches: {}; stopping", e.text());
    status = 1;
  }
  spdlog::info("stopped at tick {}", simulation.tick());
  return status;
}

} // namespace emote::server
