// emote-sim run SCENARIO... [--out FILE] [--emotes DIR]: scenarios in process on a manual clock
// (protocol.md §7). Prints the NDJSON output (or writes it to FILE), then `PASS name` /
// `FAIL name: <first unmet expectation>` per scenario and `N passed, M failed`.
#include "server/commands.hpp"

#include "protocol/runner.hpp"
#include "protocol/scenario.hpp"
#include "server/engine_host.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace emote::server {
namespace {

constexpr const char* usage =
    "usage: emote-sim run SCENARIO... [--out FILE] [--emotes DIR]\n"
    "  Runs scenario files in process on a manual clock and checks their expectations.\n"
    "  --out FILE    write the NDJSON output (replies and frames) to FILE instead of stdout\n"
    "  --emotes DIR  content for scenarios that name no emotes folders\n"
    "  Exit status 0 iff every scenario passes.\n";

protocol::host_factory engine_factory(const std::vector<std::filesystem::path>& default_emotes) {
  return [default_emotes](const protocol::scenario& s)
             -> core::result<std::unique_ptr<protocol::sim_host>, std::string> {
    std::shared_ptr<content_loader> loader = make_content_loader();
    auto host = engine_host::create(loader, s.emotes.empty() ? default_emotes : s.emotes, s.engine);
    if (!host) {
      return core::failure{"cannot load content: " + host.error()};
    }
    return std::unique_ptr<protocol::sim_host>(std::move(*host));
  };
}

} // namespace

int cmd_run(std::span<const std::string_view> args) {
  std::vector<std::filesystem::path> files;
  std::optional<std::string> out_file;
  std::vector<std::filesystem::path> default_emotes;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << usage;
      return 0;
    }
    if (a == "--out" || a == "--emotes") {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "emote-sim run: %.*s needs a value\n%s", static_cast<int>(a.size()),
                     a.data(), usage);
        return 2;
      }
      const std::string value(args[++i]);
      if (a == "--out") {
        out_file = value;
      } else {
        default_emotes.emplace_back(value);
      }
      continue;
    }
    if (a.starts_with("--")) {
      std::fprintf(stderr, "emote-sim run: unknown option %.*s\n%s", static_cast<int>(a.size()),
                   a.data(), usage);
      return 2;
    }
    files.emplace_back(std::string(a));
  }
  if (files.empty()) {
    std::fputs(usage, stderr);
    return 2;
  }

  std::ofstream file_out;
  if (out_file) {
    file_out.open(*out_file, std::ios::binary | std::ios::trunc);
    if (!file_out) {
      std::fprintf(stderr, "emote-sim run: cannot write %s\n", out_file->c_str());
      return 2;
    }
  }
  std::ostream& out = out_file ? static_cast<std::ostream&>(file_out) : std::cout;

  const protocol::host_factory factory = engine_factory(default_emotes);
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
    const protocol::run_result r = protocol::run_scenario(*s, factory);
    out << r.output;
    if (r.passed) {
      summaries.push_back("PASS " + s->name);
      ++passed;
    } else {
      summaries.push_back("FAIL " + s->name + ": " + r.failure);
      ++failed;
    }
  }
  out.flush();
  for (const auto& line : summaries) {
    std::cout << line << '\n';
  }
  std::cout << passed << " passed, " << failed << " failed\n";
  std::cout.flush();
  return failed == 0 ? 0 : 1;
}

} // namespace emote::server
