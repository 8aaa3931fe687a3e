// emote-sim replay RECORDING [--emotes DIR] [--allow-content-change] (protocol.md §8).
#include "server/cli/commands.hpp"

#include "protocol/recording.hpp"
#include "server/cli/cli_args.hpp"
#include "server/cli/logging.hpp"
#include "server/host/build_info.hpp"
#include "server/qa/replay.hpp"
#include "server/qa/replay_setup.hpp"
#include "settings/config.hpp"

#include <cstdio>

namespace emote::server {

const cli_command& replay_cli() {
  static const cli_command command = [] {
    cli_command c;
    c.name = "replay";
    c.operands = "RECORDING";
    c.summary = "replay a recording and compare its frames";
    c.description =
        "Rebuilds the engine from the recording's header (seed, configuration), applies every\n"
        "recorded message at its tick and compares each recomputed frame with the recording,\n"
        "and each recomputed state digest with the recorded one; the first tick whose state\n"
        "diverged is printed with the difference against the nearest recorded state dump.\n"
        "Exit status: 0 identical, 1 diverged (the first divergent tick is printed) or the\n"
        "recording is damaged, 2 the content differs (without --allow-content-change) or the\n"
        "recording cannot be read, 3 identical as far as it goes but the recording ended early\n"
        "(a write error stopped it, or the server was killed before it could end it).\n";
    c.options = {
        value_option("emotes", "DIR", "load this folder instead of the one named in the header"),
        flag_option("allow-content-change",
                    "go on when the content's digest differs from the header's"),
        flag_option("check-caches", "recompute every memo hit, baked pose and kept player "
                                    "view; a mismatch stops the replay (exit 1)"),
        value_option("log-level", "L", "as for serve (default: warn)")};
    c.min_operands = 1;
    c.max_operands = 1;
    return c;
  }();
  return command;
}

static void print_state_divergence(const state_divergence& s) {
  std::printf("replay: state diverged at tick %lld (recorded state %s, replayed %s)\n",
              static_cast<long long>(s.tick), s.recorded_digest.c_str(), s.replayed_digest.c_str());
  if (s.dump_tick < 0) {
    std::printf("  (the recording holds no state dump to compare with)\n");
    return;
  }
  if (s.dump_tick == s.compared_tick) {
    std::printf("  state at tick %lld, the recorded dump against the replayed state:\n",
                static_cast<long long>(s.dump_tick));
  } else {
    std::printf("  the replayed state at tick %lld against the recorded dump of tick %lld "
                "(the last before the divergence; ordinary changes since then show too):\n",
                static_cast<long long>(s.compared_tick), static_cast<long long>(s.dump_tick));
  }
  std::fputs(s.details.empty() ? "  (no difference in the dumped fields)\n" : s.details.c_str(),
             stdout);
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
  // protocol.md §8: a damaged line ends what can be replayed; the verdict says so (exit 1).
  std::string damage_note;
  if (!rec->damage.empty()) {
    std::fprintf(stderr, "replay: %s; replaying the %lld ticks before it\n", rec->damage.c_str(),
                 static_cast<long long>(rec->last_tick + 1));
    damage_note = "; the recording is damaged at " + rec->damage;
  }

  // protocol.md §8: a recording that ended before the server stopped is not a whole session;
  // "identical" alone would hide the ticks that were never recorded.
  std::string end_note;
  if (rec->ended_early) {
    end_note = "; the recording ended early: nothing was recorded from tick " +
               std::to_string(rec->ended_early->tick) + " on (" + rec->ended_early->reason + ")";
  } else if (!rec->server_stopped && rec->damage.empty()) {
    end_note = "; the recording has no end: the server did not stop normally (killed, crashed or "
               "still recording)";
  }
  if (!end_note.empty()) {
    std::fprintf(stderr, "replay: note: %s\n", end_note.c_str() + 2);
  }

  auto host = prepare_replay(*rec, args.value("emotes"), args.has("allow-content-change"),
                             args.has("check-caches"));
  if (!host) {
    std::fprintf(stderr, "replay: %s\n", host.error().text.c_str());
    if (host.error().content_differs) {
      std::fprintf(stderr, "replay: stopped (use --allow-content-change to replay anyway)\n");
    }
    return 2;
  }
  if (!host->warning.empty()) {
    std::fprintf(stderr, "replay: %s\n", host->warning.c_str());
  }
  // Another build may legitimately behave differently (protocol.md §8): say so before and in the
  // verdict, so a divergence is read as "the build changed" rather than "nondeterminism".
  const std::string_view running = build_id();
  const std::string recorded_build =
      rec->header.build.empty() ? std::string("(not recorded)") : rec->header.build;
  std::string build_note;
  if (rec->header.build != running) {
    std::fprintf(stderr, "replay: warning: recorded by build %s, replayed by build %.*s\n",
                 recorded_build.c_str(), static_cast<int>(running.size()), running.data());
    build_note = " (recorded by another build: " + recorded_build + ")";
  }
  replay_result result;
  try {
    result = replay_recording(*rec, *host->host);
  } catch (const core::cache_mismatch& e) {
    std::printf("replay: stopped: %s\n", e.text().c_str());
    return 1;
  }
  if (!result.divergence && !result.state) {
    std::printf("replay: %lld ticks, identical%s%s%s\n", static_cast<long long>(result.ticks),
                build_note.c_str(), damage_note.c_str(), end_note.c_str());
    if (!damage_note.empty()) {
      return 1;
    }
    return end_note.empty() ? 0 : 3;
  }
  // In tick order; at the same tick the output's verdict first.
  const bool state_first =
      result.state && (!result.divergence || result.state->tick < result.divergence->tick);
  if (state_first) {
    print_state_divergence(*result.state);
  }
  if (!result.divergence) {
    std::printf("replay: the output stayed identical (%lld ticks replayed)%s\n",
                static_cast<long long>(result.ticks), build_note.c_str());
    return 1;
  }
  const auto& d = *result.divergence;
  if (d.reply_conn) {
    std::printf("replay: diverged at tick %lld: a reply on connection %lld differs%s\n",
                static_cast<long long>(d.tick), static_cast<long long>(*d.reply_conn),
                build_note.c_str());
    std::fputs(d.details.c_str(), stdout);
    if (result.state && !state_first) {
      print_state_divergence(*result.state);
    }
    return 1;
  }
  std::printf("replay: diverged at tick %lld%s\n", static_cast<long long>(d.tick),
              build_note.c_str());
  std::printf("  recorded digest: %s\n",
              d.recorded_digest.empty() ? "(no output)" : d.recorded_digest.c_str());
  std::printf("  replayed digest: %s\n",
              d.replayed_digest.empty() ? "(no output)" : d.replayed_digest.c_str());
  if (d.recorded_frame) {
    std::fputs(d.details.c_str(), stdout);
  } else if (!d.replayed_frame.empty()) {
    std::printf("  replayed frame: %s\n", d.replayed_frame.c_str());
  }
  if (result.state && !state_first) {
    print_state_divergence(*result.state);
  }
  return 1;
}

} // namespace emote::server
