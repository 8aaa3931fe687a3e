// emote-sim replay RECORDING [--emotes DIR] [--allow-content-change] (protocol.md §8).
#include "server/commands.hpp"

#include "protocol/config.hpp"
#include "protocol/recording.hpp"
#include "server/cli_args.hpp"
#include "server/logging.hpp"
#include "server/replay.hpp"
#include "server/serve_host.hpp"

#include <cstdio>

namespace emote::server {

using protocol::config_loader;

const cli_command& replay_cli() {
  static const cli_command command = [] {
    cli_command c;
    c.name = "replay";
    c.operands = "RECORDING";
    c.summary = "replay a recording and compare its frames";
    c.description =
        "Rebuilds the engine from the recording's header (seed, configuration), applies every\n"
        "recorded message at its tick and compares each recomputed frame with the recording.\n"
        "Exit status: 0 identical, 1 diverged (the first divergent tick is printed), 2 the\n"
        "content differs (without --allow-content-change) or the recording cannot be read.\n";
    c.options = {
        value_option("emotes", "DIR", "load this folder instead of the one named in the header"),
        flag_option("allow-content-change",
                    "go on when the content's digest differs from the header's"),
        value_option("log-level", "L", "as for serve (default: warn)")};
    c.min_operands = 1;
    c.max_operands = 1;
    return c;
  }();
  return command;
}

int cmd_replay(std::span<const std::string_view> argv) {
  auto parsed = parse_command_line(replay_cli(), argv);
  if (!parsed) {
    return parsed.error();
  }
  const cli_args& args = *parsed;
  if (auto err = setup_logging(args.value("log-level").value_or("warn"))) {
    std::fprintf(stderr, "emote-sim replay: %s\n", err->c_str());
    return 2;
  }
  const std::filesystem::path file = args.positional()[0];
  auto rec = protocol::read_recording(file);
  if (!rec) {
    std::fprintf(stderr, "replay: %s: %s\n", file.c_str(), rec.error().c_str());
    return 2;
  }
  if (rec->truncated_tail) {
    std::fprintf(stderr, "replay: note: the last line was incomplete and is ignored\n");
  }

  // The engine as the recording's server had it: its effective configuration and seed.
  config_loader loader;
  if (auto err = loader.add_json(rec->header.config_json, "the recording's header", "/")) {
    std::fprintf(stderr, "replay: %s\n", err->text().c_str());
    return 2;
  }
  auto cfg = loader.build();
  if (!cfg) {
    std::fprintf(stderr, "replay: %s\n", cfg.error().text().c_str());
    return 2;
  }
  cfg->engine.seed = rec->header.seed;
  const std::filesystem::path emotes = args.value("emotes").value_or(cfg->emotes.string());

  auto digest = protocol::content_digest({emotes});
  if (!digest) {
    std::fprintf(stderr, "replay: %s\n", digest.error().c_str());
    return 2;
  }
  if (*digest != rec->header.content_digest) {
    std::fprintf(stderr,
                 "replay: the content in %s differs from the recording's (recorded %s, now %s)\n",
                 emotes.c_str(), rec->header.content_digest.c_str(), digest->c_str());
    if (!args.has("allow-content-change")) {
      std::fprintf(stderr, "replay: stopped (use --allow-content-change to replay anyway)\n");
      return 2;
    }
  }

  auto host = make_serve_host(emotes, cfg->engine, cfg->render);
  if (!host) {
    std::fprintf(stderr, "replay: %s\n", host.error().c_str());
    return 2;
  }
  const auto extras = (*host)->extras();
  const auto result = replay_recording(*rec, (*host)->sim(), extras.shutdown);
  if (!result.divergence) {
    std::printf("replay: %lld ticks, identical\n", static_cast<long long>(result.ticks));
    return 0;
  }
  const auto& d = *result.divergence;
  std::printf("replay: diverged at tick %lld\n", static_cast<long long>(d.tick));
  std::printf("  recorded digest: %s\n",
              d.recorded_digest.empty() ? "(no output)" : d.recorded_digest.c_str());
  std::printf("  replayed digest: %s\n",
              d.replayed_digest.empty() ? "(no output)" : d.replayed_digest.c_str());
  if (d.recorded_frame) {
    std::fputs(d.details.c_str(), stdout);
  } else if (!d.replayed_frame.empty()) {
    std::printf("  replayed frame: %s\n", d.replayed_frame.c_str());
  }
  return 1;
}

} // namespace emote::server
