// `emote-sim check PATH... [--json] [--strict]`: load emote files as a reload would, register
// nothing, print every diagnostic and a summary (formats.md §1.3, protocol.md §9).
#include "server/cli_args.hpp"
#include "server/commands.hpp"

#include "engine/content/loader.hpp"
#include "engine/content/report.hpp"

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
        "PATHs load as one content set. Exit status 1 when there is any error (with --strict\n"
        "also any warning).\n";
    c.options = {flag_option("json", "one JSON object per problem, then a summary object"),
                 flag_option("strict", "warnings count as errors for the exit status")};
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
  const bool json = parsed->has("json");
  const bool strict = parsed->has("strict");
  const std::vector<std::filesystem::path> roots(parsed->positional().begin(),
                                                 parsed->positional().end());
  const auto catalog = content::load_paths(roots);
  const auto report =
      json ? content::check_report_json(*catalog) : content::check_report_text(*catalog);
  std::fwrite(report.data(), 1, report.size(), stdout);
  std::fflush(stdout);
  const std::size_t errors = catalog->error_count();
  const std::size_t warnings = catalog->warning_count();
  return errors > 0 || (strict && warnings > 0) ? 1 : 0;
}

} // namespace emote::server
