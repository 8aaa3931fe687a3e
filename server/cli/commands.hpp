#pragma once
// The emote-sim subcommands. Each lives in its own server/cmd_<name>.cpp, declares what it
// accepts as a `cli_command` (server/cli/cli_args.hpp: parsing and the generated help) and is
// listed in `command_table()` (server/cli/command_table.cpp), from which `--help`, the shell
// completions and the man page are generated (server/cli/cli_docs.hpp). `args` excludes the program
// and command names; the return value is the process exit status.

#include <span>
#include <string_view>

namespace emote::server {

struct cli_command;

using command_fn = int (*)(std::span<const std::string_view> args);

struct command_entry {
  command_fn run;
  const cli_command& (*cli)(); ///< name, summary and options for `emote-sim --help`
};

int cmd_check(std::span<const std::string_view> args);
int cmd_list(std::span<const std::string_view> args);
int cmd_run(std::span<const std::string_view> args);
int cmd_serve(std::span<const std::string_view> args);
int cmd_bot(std::span<const std::string_view> args);
int cmd_replay(std::span<const std::string_view> args);
int cmd_record_to_scenario(std::span<const std::string_view> args);
int cmd_stress(std::span<const std::string_view> args);
int cmd_health(std::span<const std::string_view> args);
int cmd_view(std::span<const std::string_view> args);
int cmd_shrink(std::span<const std::string_view> args);
int cmd_diff(std::span<const std::string_view> args);
int cmd_completion(std::span<const std::string_view> args);
int cmd_man(std::span<const std::string_view> args);

const cli_command& check_cli();
const cli_command& list_cli();
const cli_command& run_cli();
const cli_command& serve_cli();
const cli_command& bot_cli();
const cli_command& replay_cli();
const cli_command& record_to_scenario_cli();
const cli_command& stress_cli();
const cli_command& health_cli();
const cli_command& view_cli();
const cli_command& shrink_cli();
const cli_command& diff_cli();
const cli_command& completion_cli();
const cli_command& man_cli();

/// Every subcommand, in the order `emote-sim --help` lists them: the one CLI table.
std::span<const command_entry> command_table();

} // namespace emote::server
