// emote-sim: the command-line entry point; dispatches to the subcommands of server/commands.hpp.
#include "server/commands.hpp"

#include <array>
#include <cstdio>
#include <string_view>
#include <vector>

namespace emote::server {
namespace {

// Subcommands, in the order `--help` lists them.
constexpr std::array<command_entry, 8> commands{{
    {"serve", cmd_serve,
     "serve   [--config FILE] [--emotes DIR] [--listen ADDR]... [--clock realtime|manual]\n"
     "          [--seed N] [--record FILE [--record-frames]] [--metrics HOST:PORT]\n"
     "          [--log-level L]                       the socket server"},
    {"check", cmd_check, "check PATH... [--json] [--strict]   validate emote files"},
    {"list", cmd_list,
     "list [--emotes DIR] [--config FILE]  id, type, duration, standalone, two-player"},
    {"run", cmd_run,
     "run     SCENARIO... [--out FILE] [--emotes DIR]   in-process scripted run with expectations"},
    {"bot", cmd_bot,
     "bot     --connect ADDR [--token T] SCENARIO...      the same script against a live server"},
    {"replay", cmd_replay, "replay  RECORDING [--emotes DIR] [--allow-content-change]"},
    {"record-to-scenario", cmd_record_to_scenario,
     "record-to-scenario RECORDING [--out FILE]            a recording's input as a scenario"},
    {"stress", cmd_stress,
     "stress  [--time 30s] [--instances N] [--recipients R] [--emotes DIR] [--json]\n"
     "                                                the stress test (docs/guide/performance.md)"},
}};

void print_help(std::FILE* out) {
  std::fprintf(out, "emote-sim %s: a server-side playback simulator for the Emote mod\n\n",
               EMOTE_SIM_VERSION);
  std::fprintf(out, "usage: emote-sim COMMAND [ARGS...]\n\ncommands:\n");
  for (const auto& c : commands) {
    std::fprintf(out, "  %.*s\n", static_cast<int>(c.synopsis.size()), c.synopsis.data());
  }
  std::fprintf(out, "  --version | --help | COMMAND --help\n");
}

} // namespace
} // namespace emote::server

int main(int argc, char** argv) {
  using namespace emote::server;
  std::vector<std::string_view> args(argv + 1, argv + argc);
  if (args.empty()) {
    print_help(stderr);
    return 2;
  }
  if (args[0] == "--version") {
    std::printf("emote-sim %s\n", EMOTE_SIM_VERSION);
    return 0;
  }
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_help(stdout);
    return 0;
  }
  for (const auto& c : commands) {
    if (c.name == args[0]) {
      return c.run(std::span<const std::string_view>(args).subspan(1));
    }
  }
  std::fprintf(stderr, "emote-sim: unknown command '%.*s' (see emote-sim --help)\n",
               static_cast<int>(args[0].size()), args[0].data());
  return 2;
}
