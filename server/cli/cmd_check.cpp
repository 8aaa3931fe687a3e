// `emote-sim check PATH... [--format text|json|sarif] [--strict]`: load emote files as a reload
// would, register nothing, print every diagnostic (every error of a file) and a summary
// (formats.md §1.3, protocol.md §9; the formats: docs/guide/emote-files.md "Checking files").
#include "server/cli/cli_args.hpp"
#include "server/cli/commands.hpp"
#include "server/stress/stress_common.hpp"

#include "engine/content/loader.hpp"
#include "engine/content/report.hpp"
#include "engine/sim/engine.hpp"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace emote::server {
const cli_command& check_cli() {
  static const cli_command command = [] {
    cli_command c;
    c.name = "check";
    c.operands = "PATH...";
    c.summary = "validate emote files";
    c.description =
        "Validate Animation and Sequence files (directories are searched for *.json). Several\n"
        "PATHs load as one content set. Every error of a file is listed, not only the first\n"
        "(loading stops at the first, which is listed first). Every emote with Molang gets its\n"
        "worst-case Molang operations per tick (a q.scoreboard lookup counted at a player's\n"
        "1,024 scores, molang.md §6), and a warning when they exceed the per-tick session budget\n"
        "(players.md §8.6).\n"
        "Exit status: 0 no error, 1 an error (or, with --strict, a warning), 2 a usage error.\n";
    c.options = {value_option("format", "F",
                              "text (default); json: one object per problem with file, line,\n"
                              "column, path, code, message and suggestion, then a summary;\n"
                              "sarif: one SARIF 2.1.0 log for editors and CI annotations"),
                 flag_option("json", "the same as --format json"),
                 flag_option("strict", "warnings count as errors for the exit status"),
                 value_option("molang-budget", "N",
                              "warn above N Molang operations per tick (default: the session "
                              "budget, 250000; 0: never)")};
    c.options[0].choices = "text json sarif";
    c.min_operands = 1;
    return c;
  }();
  return command;
}

int cmd_check(std::span<const std::string_view> argv) {
  auto parsed = parse_command_line(check_cli(), argv);
  if (!parsed) {
    return parsed.error();
  }
  std::string format = parsed->value("format").value_or(parsed->has("json") ? "json" : "text");
  if (format != "text" && format != "json" && format != "sarif") {
    std::fprintf(stderr,
                 "emote-sim check: --format: expected text, json or sarif, got '%s' (see "
                 "emote-sim check --help)\n",
                 format.c_str());
    return 2;
  }
  if (parsed->has("json") && format != "json") {
    std::fprintf(stderr,
                 "emote-sim check: --json and --format %s disagree (see emote-sim check "
                 "--help)\n",
                 format.c_str());
    return 2;
  }
  const bool strict = parsed->has("strict");
  const std::vector<std::filesystem::path> roots(parsed->positional().begin(),
                                                 parsed->positional().end());
  content::check_options options;
  options.molang_tick_ops = sim::engine_config::default_molang_session_tick_ops;
  if (const auto budget = parsed->value("molang-budget")) {
    std::uint64_t n = 0;
    if (!stress_common::parse_number(*budget, n)) {
      std::fprintf(stderr, "check: --molang-budget: expected a whole number, got '%.*s'\n",
                   static_cast<int>(budget->size()), budget->data());
      return 2;
    }
    options.molang_tick_ops = n;
  }
  content::load_options load;
  load.all_errors = true; // every error of a rejected file (formats.md §1.3)
  const auto catalog = content::load_paths(roots, load);
  const content::check_findings findings = content::check_findings_of(*catalog, options);
  const auto report = format == "json" ? content::check_report_json(*catalog, findings)
                      : format == "sarif"
                          ? content::check_report_sarif(*catalog, findings, EMOTE_SIM_VERSION)
                          : content::check_report_text(*catalog, findings);
  std::fwrite(report.data(), 1, report.size(), stdout);
  std::fflush(stdout);
  const std::size_t errors = findings.errors;
  const std::size_t warnings = findings.warnings;
  return errors > 0 || (strict && warnings > 0) ? 1 : 0;
}

} // namespace emote::server
