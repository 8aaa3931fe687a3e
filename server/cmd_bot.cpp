// emote-sim bot --connect ADDR [--token T] [--out FILE] SCENARIO... (protocol.md §7, §9).
#include "server/commands.hpp"

#include "server/bot.hpp"
#include "server/cli_args.hpp"
#include "server/scenario_batch.hpp"

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace emote::server {

using protocol::parse_listen_address;

namespace {

constexpr cli_option bot_options_table[] = {
    {"connect"},
    {"token"},
    {"out"},
};

constexpr const char* bot_help =
    R"(usage: emote-sim bot --connect ADDR [--token T] [--out FILE] SCENARIO...

Plays scenario files against a live server (HOST:PORT or unix:PATH) over one controller
connection and checks their expectations, like `emote-sim run` does in process. The server must
run a manual clock (`emote-sim serve --clock manual`) with the scenario's content, seed and
configuration. Prints the replies and frames (or writes them to FILE), then `PASS name` or
`FAIL name: <first unmet expectation>` per scenario and `N passed, M failed`.
Exit status 0 iff every scenario passes. The token may also come from EMOTE_SIM_TOKEN.
)";

} // namespace

int cmd_bot(std::span<const std::string_view> argv) {
  auto parsed = cli_args::parse(argv, bot_options_table);
  if (!parsed) {
    std::fprintf(stderr, "emote-sim bot: %s (see emote-sim bot --help)\n", parsed.error().c_str());
    return 2;
  }
  const cli_args& args = *parsed;
  if (args.help()) {
    std::fputs(bot_help, stdout);
    return 0;
  }
  const auto connect = args.value("connect");
  if (!connect || args.positional().empty()) {
    std::fputs(bot_help, stderr);
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
  return run_scenario_batch("bot", files, args.value("out"), [&](const protocol::scenario& s) {
    bot_result r = run_bot(s, options);
    return scenario_outcome{std::move(r.output), r.passed, std::move(r.failure)};
  });
}

} // namespace emote::server
