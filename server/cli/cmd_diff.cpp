// emote-sim diff A B (protocol.md §8): two recordings or two scenario outputs compared.
#include "server/cli/commands.hpp"

#include "server/cli/cli_args.hpp"
#include "server/qa/diff.hpp"

#include <cstdio>

namespace emote::server {

const cli_command& diff_cli() {
  static const cli_command command = [] {
    cli_command c;
    c.name = "diff";
    c.operands = "A B";
    c.summary = "compare two recordings (or two scenario outputs) tick by tick";
    c.description =
        "A and B are two recordings (serve --record) or two scenario outputs (run --out, bot\n"
        "--out) of the same inputs, e.g. made by two builds. Prints the first tick where they\n"
        "diverge and, each at its first tick, the differing inputs, replies, output events and\n"
        "state (the difference between the state dumps both hold at or after that tick);\n"
        "differing headers (build, seed, configuration, content files) are noted first.\n"
        "A damaged line is named FILE:LINE:COLUMN and the ticks before it are compared.\n"
        "Exit status: 0 identical, 1 diverged (or damaged, or one stops before the other\n"
        "without ending normally), 2 usage error or a file that cannot be read.\n";
    c.min_operands = 2;
    c.max_operands = 2;
    return c;
  }();
  return command;
}

int cmd_diff(std::span<const std::string_view> argv) {
  auto parsed = parse_command_line(diff_cli(), argv);
  if (!parsed) {
    return parsed.error();
  }
  const auto& files = parsed->positional();
  diff_timeline sides[2];
  for (int i = 0; i < 2; ++i) {
    auto t = read_timeline(files[static_cast<std::size_t>(i)]);
    if (!t) {
      std::fprintf(stderr, "diff: %s\n", t.error().c_str());
      return 2;
    }
    if (!t->damage.empty()) {
      std::fprintf(stderr, "diff: %s\n", t->damage.c_str());
    }
    sides[i] = std::move(t).value();
  }
  if (sides[0].recording != sides[1].recording) {
    std::fprintf(stderr, "diff: cannot compare a recording with a scenario output (%s is a %s)\n",
                 files[0].c_str(), sides[0].recording ? "recording" : "scenario output");
    return 2;
  }
  const diff_report report = diff_timelines(sides[0], sides[1], files[0], files[1]);
  std::fputs(report.text.c_str(), stdout);
  return report.status;
}

} // namespace emote::server
