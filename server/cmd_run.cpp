// emote-sim run SCENARIO... [--out FILE] [--emotes DIR]: scenarios in process on a manual clock
// (protocol.md §7). Prints the NDJSON output (or writes it to FILE), then `PASS name` /
// `FAIL name: <first unmet expectation>` per scenario and `N passed, M failed`.
#include "server/commands.hpp"

#include "protocol/runner.hpp"
#include "protocol/scenario.hpp"
#include "server/engine_host.hpp"
#include "server/scenario_batch.hpp"

#include <cstdio>
#include <filesystem>
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

  const protocol::host_factory factory = engine_factory(default_emotes);
  return run_scenario_batch("run", files, out_file, [&](const protocol::scenario& s) {
    protocol::run_result r = protocol::run_scenario(s, factory);
    return scenario_outcome{std::move(r.output), r.passed, std::move(r.failure)};
  });
}

} // namespace emote::server
