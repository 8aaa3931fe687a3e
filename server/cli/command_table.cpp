// The one table of subcommands (server/cli/commands.hpp): main dispatches on it; `--help`, the
// shell completions and the man page (server/cli/cli_docs.hpp) are generated from it.
#include "server/cli/commands.hpp"

#include <array>

namespace emote::server {

std::span<const command_entry> command_table() {
  static constexpr std::array<command_entry, 14> commands{{
      {cmd_serve, serve_cli},
      {cmd_check, check_cli},
      {cmd_list, list_cli},
      {cmd_run, run_cli},
      {cmd_bot, bot_cli},
      {cmd_replay, replay_cli},
      {cmd_diff, diff_cli},
      {cmd_record_to_scenario, record_to_scenario_cli},
      {cmd_shrink, shrink_cli},
      {cmd_stress, stress_cli},
      {cmd_health, health_cli},
      {cmd_view, view_cli},
      {cmd_completion, completion_cli},
      {cmd_man, man_cli},
  }};
  return commands;
}

} // namespace emote::server
