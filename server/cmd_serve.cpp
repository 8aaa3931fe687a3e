// emote-sim serve: the socket server (protocol.md §1–§6, §8, §10, §11).
#include "server/commands.hpp"

#include "protocol/config.hpp"
#include "protocol/recording.hpp"
#include "server/cli_args.hpp"
#include "server/hub.hpp"
#include "server/logging.hpp"
#include "server/metrics_http.hpp"
#include "server/recorder.hpp"
#include "server/serve_host.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <spdlog/spdlog.h>

#include <cstdio>

namespace emote::server {

using protocol::add_file_and_environment;
using protocol::clock_mode;
using protocol::config_error;
using protocol::config_loader;
using protocol::server_config;

namespace {

constexpr cli_option serve_options[] = {
    {"config"}, {"emotes"}, {"listen", true, true},   {"clock"},   {"tps"},
    {"seed"},   {"record"}, {"record-frames", false}, {"metrics"}, {"log-level"},
};

constexpr const char* serve_help =
    R"(usage: emote-sim serve [--config FILE] [--emotes DIR] [--listen ADDR]...
                       [--clock realtime|manual] [--tps N] [--seed N]
                       [--record FILE [--record-frames]] [--metrics HOST:PORT] [--log-level L]

Starts the NDJSON socket server (docs/guide/proxy-and-bots.md). Precedence: built-in defaults <
--config FILE (or EMOTE_SIM_CONFIG) < EMOTE_SIM_<KEY> environment variables < these options.

  --config FILE       JSON configuration (config/emote-sim.json shows every key)
  --emotes DIR        the emote folder to load
  --listen ADDR       HOST:PORT or unix:/path/to.sock; repeat for several (replaces the config's list)
  --clock C           realtime (20 TPS on absolute deadlines) or manual (clock.step)
  --tps N             ticks per second of the realtime clock (default 20)
  --seed N            the server seed
  --record FILE       record the session as NDJSON (replay with `emote-sim replay FILE`)
  --record-frames     store whole frames in the recording, not only their digests
  --metrics HOST:PORT serve Prometheus metrics at GET /metrics
  --log-level L       trace, debug, info, warn, error, critical, off (default: SPDLOG_LEVEL or info)
)";

// Command-line options as config keys (the last layer).
std::optional<config_error> add_cli_layer(config_loader& loader, const cli_args& args) {
  const std::pair<std::string_view, std::string_view> simple[] = {
      {"emotes", "emotes"}, {"clock", "clock"},   {"tps", "tps"},
      {"seed", "seed"},     {"record", "record"}, {"metrics", "metrics"},
  };
  for (const auto& [flag, key] : simple) {
    if (auto v = args.value(flag)) {
      if (auto err = loader.set(key, *v, "--" + std::string(flag))) {
        return err;
      }
    }
  }
  const auto listen = args.values("listen");
  if (!listen.empty()) {
    std::string joined = "[";
    for (std::size_t i = 0; i < listen.size(); ++i) {
      joined += (i ? "," : "") + std::string("\"");
      for (const char c : listen[i]) {
        if (c == '"' || c == '\\') {
          joined += '\\';
        }
        joined += c;
      }
      joined += "\"";
    }
    joined += "]";
    if (auto err = loader.set("listen", joined, "--listen")) {
      return err;
    }
  }
  if (args.has("record-frames")) {
    if (auto err = loader.set("record_frames", "true", "--record-frames")) {
      return err;
    }
  }
  return std::nullopt;
}

} // namespace

core::result<server_config, std::string> load_serve_config(const cli_args& args) {
  const std::filesystem::path file = config_file(args);
  config_loader loader;
  if (auto err = add_file_and_environment(loader, file)) {
    return core::failure{err->text()};
  }
  if (auto err = add_cli_layer(loader, args)) {
    return core::failure{err->text()};
  }
  auto cfg = loader.build();
  if (!cfg) {
    return core::failure{cfg.error().text()};
  }
  cfg->config_file = file;
  return std::move(cfg).value();
}

int cmd_serve(std::span<const std::string_view> argv) {
  auto parsed = cli_args::parse(argv, serve_options);
  if (!parsed) {
    std::fprintf(stderr, "emote-sim serve: %s (see emote-sim serve --help)\n",
                 parsed.error().c_str());
    return 2;
  }
  const cli_args& args = *parsed;
  if (args.help()) {
    std::fputs(serve_help, stdout);
    return 0;
  }
  if (!args.positional().empty()) {
    std::fprintf(stderr, "emote-sim serve: unexpected argument '%s'\n",
                 args.positional()[0].c_str());
    return 2;
  }
  if (auto err = setup_logging(args.value("log-level"))) {
    std::fprintf(stderr, "emote-sim serve: %s\n", err->c_str());
    return 2;
  }
  auto cfg_result = load_serve_config(args);
  if (!cfg_result) {
    spdlog::critical("{}", cfg_result.error());
    return 2;
  }
  const server_config& cfg = *cfg_result;
  if (!cfg.config_file.empty()) {
    spdlog::info("configuration: {}", cfg.config_file.string());
  }

  auto host = make_serve_host(cfg.emotes, cfg.engine);
  if (!host) {
    spdlog::critical("{}", host.error());
    return 1;
  }
  serve_host& sh = **host;
  spdlog::info("emote-sim {}: {} emotes from {}", EMOTE_SIM_VERSION, sh.sim().emote_count(),
               cfg.emotes.string());

  std::unique_ptr<recorder> rec;
  if (!cfg.record.empty()) {
    protocol::recording_header header;
    header.server = EMOTE_SIM_VERSION;
    header.seed = cfg.engine.seed;
    header.config_json = cfg.effective_json;
    auto digest = protocol::content_digest({cfg.emotes});
    if (!digest) {
      spdlog::critical("recording: {}", digest.error());
      return 1;
    }
    header.content_digest = *digest;
    header.started = iso8601_now();
    auto r = recorder::open(cfg.record, header, cfg.record_frames);
    if (!r) {
      spdlog::critical("{}", r.error());
      return 1;
    }
    rec = std::move(r).value();
    spdlog::info("recording to {}{}", cfg.record.string(),
                 cfg.record_frames ? " (with frames)" : "");
  }

  boost::asio::io_context io;
  metrics m;
  hub_settings settings;
  settings.clock = cfg.clock;
  settings.tps = cfg.tps;
  settings.auth = cfg.auth;
  settings.limits = cfg.limits;
  hub server(io, settings, sh.sim(), sh.extras(), m, rec.get());
  if (auto err = server.listen(cfg.listen)) {
    spdlog::critical("{}", *err);
    return 1;
  }
  std::unique_ptr<metrics_http> http;
  if (cfg.metrics) {
    auto h = metrics_http::open(io, *cfg.metrics, [&server] { return server.render_metrics(); });
    if (!h) {
      spdlog::critical("{}", h.error());
      return 1;
    }
    http = std::move(h).value();
    spdlog::info("metrics at http://{}/metrics", http->bound().text());
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
        if (http) {
          http->close();
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
  io.run();
  if (rec) {
    rec->flush();
  }
  spdlog::info("stopped at tick {}", sh.sim().tick());
  return 0;
}

} // namespace emote::server
