#include "server/qa/scenario_batch.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <vector>

namespace emote::server {

int run_scenario_batch(std::string_view command, std::span<const std::filesystem::path> files,
                       const std::optional<std::string>& out_file, const scenario_driver& drive,
                       bool quiet) {
  std::ofstream file_out;
  if (out_file) {
    file_out.open(*out_file, std::ios::binary | std::ios::trunc);
    if (!file_out) {
      std::fprintf(stderr, "emote-sim %.*s: cannot write %s\n", static_cast<int>(command.size()),
                   command.data(), out_file->c_str());
      return 2;
    }
  }
  std::ostream& out = out_file ? static_cast<std::ostream&>(file_out) : std::cout;

  std::vector<std::string> summaries;
  int passed = 0;
  int failed = 0;
  for (const auto& f : files) {
    auto s = protocol::load_scenario(f);
    if (!s) {
      summaries.push_back("FAIL " + f.stem().string() + ": " + s.error());
      ++failed;
      continue;
    }
    const scenario_outcome r = drive(*s);
    if (out_file || !quiet) {
      out << r.output;
    }
    if (r.passed) {
      summaries.push_back("PASS " + s->name);
      ++passed;
    } else {
      summaries.push_back("FAIL " + s->name + ": " + r.failure);
      ++failed;
    }
  }
  out.flush();
  std::string verdict;
  for (const auto& line : summaries) {
    verdict += line + '\n';
  }
  verdict += std::to_string(passed) + " passed, " + std::to_string(failed) + " failed\n";
  std::cout << verdict;
  std::cout.flush();
  if (::isatty(STDOUT_FILENO) == 0) {
    // Piped to a file or a pager: the person at the terminal still sees the verdict.
    std::fputs(verdict.c_str(), stderr);
  }
  return failed == 0 ? 0 : 1;
}

} // namespace emote::server
