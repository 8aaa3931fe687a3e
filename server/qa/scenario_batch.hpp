#pragma once
// The part `emote-sim run` and `emote-sim bot` share: load each scenario file, run it, write the
// NDJSON output to --out (or stdout), then print `PASS name` / `FAIL name: why` per scenario and
// `N passed, M failed`.

#include "protocol/scenario.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>

namespace emote::server {

struct scenario_outcome {
  std::string output; ///< reply and frame lines, newline-terminated
  bool passed = false;
  std::string failure; ///< every unmet expectation (protocol::describe_unmet), or why the run could
                       ///< not happen
};

using scenario_driver = std::function<scenario_outcome(const protocol::scenario&)>;

/// Runs every file in order. `command` names the subcommand in error messages. `quiet` leaves the
/// output out unless `out_file` is given; when standard output is not a terminal the summary
/// lines also go to standard error (protocol.md §7). Returns the exit status: 0 iff every
/// scenario passes, 1 when one fails, 2 when `out_file` cannot be written.
int run_scenario_batch(std::string_view command, std::span<const std::filesystem::path> files,
                       const std::optional<std::string>& out_file, const scenario_driver& drive,
                       bool quiet = false);

} // namespace emote::server
