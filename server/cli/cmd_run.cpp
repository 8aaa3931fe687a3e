// emote-sim run SCENARIO... [--out FILE] [--emotes DIR]...: scenarios in process on a manual clock
// (protocol.md §7). Prints the NDJSON output (or writes it to FILE), then `PASS name` /
// `FAIL name: <unmet expectations>` per scenario and `N passed, M failed`.
#include "server/cli/cli_args.hpp"
#include "server/cli/commands.hpp"

#include "protocol/runner.hpp"
#include "protocol/scenario.hpp"
#include "server/host/engine_host.hpp"
#include "server/qa/scenario_batch.hpp"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace emote::server {

const cli_command& run_cli() {
  static const cli_command command = [] {
    cli_command c;
    c.name = "run";
    c.operands = "SCENARIO...";
    c.summary = "in-process scripted run with expectations";
    c.description = "Runs scenario files in process on a manual clock and checks their\n"
                    "expectations. Exit status 0 iff every scenario passes.\n";
    c.options = {
        value_option("out", "FILE",
                     "write the NDJSON output (replies and frames) to FILE instead of stdout"),
        value_option("emotes", "DIR", "content for scenarios that name no emotes folders", true),
        flag_option("quiet", "leave the NDJSON output out (--out still writes it); the "
                             "PASS/FAIL lines remain"),
        flag_option("check-caches",
                    "recompute every memo hit, baked pose and kept player view; "
                    "a mismatch fails the scenario with its tick, session, handle")};
    c.min_operands = 1;
    return c;
  }();
  return command;
}

int cmd_run(std::span<const std::string_view> argv) {
  auto parsed = parse_command_line(run_cli(), argv);
  if (!parsed) {
    return parsed.error();
  }
  const std::vector<std::filesystem::path> files(parsed->positional().begin(),
                                                 parsed->positional().end());
  std::vector<std::filesystem::path> default_emotes;
  for (const auto& e : parsed->values("emotes")) {
    default_emotes.emplace_back(e);
  }
  const std::optional<std::string> out_file = parsed->value("out");

  const protocol::host_factory factory =
      scenario_host_factory(default_emotes, parsed->has("check-caches"));
  return run_scenario_batch(
      "run", files, out_file,
      [&](const protocol::scenario& s) {
        try {
          protocol::run_result r = protocol::run_scenario(s, factory);
          return scenario_outcome{std::move(r.output), r.passed, std::move(r.failure)};
        } catch (const core::cache_mismatch& e) {
          return scenario_outcome{{}, false, "stopped: " + e.text()};
        }
      },
      parsed->has("quiet"));
}

} // namespace emote::server
