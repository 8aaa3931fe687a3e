// `emote-sim check PATH... [--json] [--strict]`: load emote files as a reload would, register
// nothing, print every diagnostic and a summary (formats.md §1.3, protocol.md §9).
#include "server/commands.hpp"

#include "engine/content/loader.hpp"
#include "engine/content/report.hpp"

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace emote::server {
namespace {

constexpr const char* check_usage =
    "usage: emote-sim check PATH... [--json] [--strict]\n"
    "  Validate Animation and Sequence files (directories are searched for *.json).\n"
    "  Several PATHs load as one content set. Exit status 1 when there is any error\n"
    "  (with --strict also any warning).\n"
    "  --json    one JSON object per problem, then a summary object\n"
    "  --strict  warnings count as errors for the exit status\n";

} // namespace

int cmd_check(std::span<const std::string_view> args) {
  bool json = false;
  bool strict = false;
  std::vector<std::filesystem::path> roots;
  for (auto a : args) {
    if (a == "--help" || a == "-h") {
      std::fputs(check_usage, stdout);
      return 0;
    }
    if (a == "--json") {
      json = true;
    } else if (a == "--strict") {
      strict = true;
    } else if (a.size() > 1 && a.front() == '-') {
      std::fprintf(stderr, "emote-sim check: unknown option '%.*s'\n%s", static_cast<int>(a.size()),
                   a.data(), check_usage);
      return 2;
    } else {
      roots.emplace_back(std::string(a));
    }
  }
  if (roots.empty()) {
    std::fputs(check_usage, stderr);
    return 2;
  }
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
