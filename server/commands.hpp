#pragma once
// The emote-sim subcommands. Each lives in its own server/cmd_<name>.cpp and is listed in the
// table in main.cpp. `args` excludes the program and command names; the return value is the
// process exit status.

#include <span>
#include <string_view>

namespace emote::server {

using command_fn = int (*)(std::span<const std::string_view> args);

struct command_entry {
  std::string_view name;
  command_fn run;
  std::string_view synopsis; ///< one line for `emote-sim --help`
};

int cmd_check(std::span<const std::string_view> args);
int cmd_list(std::span<const std::string_view> args);
int cmd_run(std::span<const std::string_view> args);
int cmd_serve(std::span<const std::string_view> args);
int cmd_bot(std::span<const std::string_view> args);
int cmd_replay(std::span<const std::string_view> args);
int cmd_record_to_scenario(std::span<const std::string_view> args);
int cmd_stress(std::span<const std::string_view> args);

} // namespace emote::server
