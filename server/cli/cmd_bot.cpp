// emote-sim bot --connect ADDR [--token T] [--out FILE] SCENARIO... (protocol.md §7, §9).
#include "server/cli/commands.hpp"

#include "server/cli/cli_args.hpp"
#include "server/qa/bot.hpp"
#include "server/qa/scenario_batch.hpp"

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace emote::server {

using settings::parse_listen_address;

const cli_command& bot_cli() {
  static const cli_command command = [] {
    cli_command c;
    c.name = "bot";
    c.operands = "SCENARIO...";
    c.summary = "the same script against a live server";
    c.description =
        "Plays scenario files against a live server over one controller connection and checks\n"
        "their expectations, like `emote-sim run` does in process. The server must run a manual\n"
        "clock (`emote-sim serve --clock manual`) with the scenario's content, seed and\n"
        "configuration. Prints the replies and frames (or writes them to FILE), then `PASS name`\n"
        "or `FAIL name: <unmet expectations>` per scenario and `N passed, M failed`.\n"
        "Exit status 0 iff every scenario passes.\n";
    c.options = {value_option("connect", "ADDR", "the server: HOST:PORT or unix:PATH (required)"),
                 value_option("token", "T", "the controller token (default: EMOTE_SIM_TOKEN)"),
                 value_option("out", "FILE", "write the output to FILE"),
                 flag_option("quiet", "leave the output out (--out still writes it)")};
    c.min_operands = 1;
    return c;
  }();
  return command;
}

int cmd_bot(std::span<const std::string_view> argv) {
  auto parsed = parse_command_line(bot_cli(), argv);
  if (!parsed) {
    return parsed.error();
  }
  const cli_args& args = *parsed;
  const auto connect = args.value("connect");
  if (!connect) {
    std::fprintf(stderr, "emote-sim bot: --connect ADDR is required (see emote-sim bot --help)\n");
    return 2;
  }
  auto address = parse_listen_address(*connect);
  if (!address) {
    std::fprintf(stderr, "emote-sim bot: --connect %s: %s\n", connect->c_str(),
                 address.error().c_str());
    return 2;
  }
  bot_options options;
  options.address = *address;
  options.token = args.value("token");
  if (!options.token) {
    if (const char* env = std::getenv("EMOTE_SIM_TOKEN"); env != nullptr) {
      options.token = env;
    }
  }

  std::vector<std::filesystem::path> files(args.positional().begin(), args.positional().end());
  return run_scenario_batch(
      "bot", files, args.value("out"),
      [&](const protocol::scenario& s) {
        bot_result r = run_bot(s, options);
        return scenario_outcome{std::move(r.output), r.passed, std::move(r.failure)};
      },
      args.has("quiet"));
}

} // namespace emote::server
