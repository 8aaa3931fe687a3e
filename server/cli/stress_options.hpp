#pragma once
// The command line of `emote-sim stress`'s populated mode (server/stress/stress_populated.hpp):
// its options, whether they select the mode, and their values read into populated_options.

#include "server/cli/cli_args.hpp"
#include "server/stress/stress_populated.hpp"

#include <span>
#include <string>

namespace emote::server {

/// The command-line options of the populated mode (`--players`, `--area`, `--seed`).
std::span<const cli_option> populated_cli_options();
/// Whether `args` select the populated mode (`--players` given).
bool populated_selected(const cli_args& args);
/// Reads `--players`, `--area` and `--seed` into `o`; the message of the first bad value, or ""
/// when all are good.
std::string parse_populated_options(const cli_args& args, populated_options& o);

} // namespace emote::server
