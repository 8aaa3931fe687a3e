#pragma once
// Shell completions (bash, zsh, fish) and the man page, generated from the one CLI table
// (`command_table()`, server/cli/commands.hpp): every subcommand with its options and operands, as
// `emote-sim COMMAND --help` shows them. `emote-sim completion SHELL` and `emote-sim man` print
// them; the build writes them to BUILD/share (cmake/install.cmake installs them), and
// scripts/check-completions (CTest `completions`) fails when one misses a subcommand or an option.

#include "server/cli/commands.hpp"

#include <span>
#include <string>

namespace emote::server {

std::string bash_completion(std::span<const command_entry> table);
std::string zsh_completion(std::span<const command_entry> table);
std::string fish_completion(std::span<const command_entry> table);
/// emote-sim(1) in roff (man(7) macros).
std::string man_page(std::span<const command_entry> table);

} // namespace emote::server
