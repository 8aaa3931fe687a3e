// emote-sim shrink RECORDING --expect FILE [--out FILE] [--name NAME] [--emotes DIR]...
// [--replay-emotes DIR] (docs/guide/qa.md "Shrink a recording to a scenario").
#include "server/cli/commands.hpp"

#include "engine/core/file_text.hpp"
#include "engine/json/source_reader.hpp"
#include "protocol/recording.hpp"
#include "protocol/recording_scenario.hpp"
#include "protocol/scenario.hpp"
#include "server/cli/cli_args.hpp"
#include "server/host/engine_host.hpp"
#include "server/qa/replay_setup.hpp"
#include "server/qa/shrink.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace emote::server {

const cli_command& shrink_cli() {
  static const cli_command command = [] {
    cli_command c;
    c.name = "shrink";
    c.operands = "RECORDING";
    c.summary = "the fewest recorded inputs that still meet expectations, as a scenario";
    c.description =
        "Delta-debugs (ddmin) the recording's inputs, as record-to-scenario scripts them, down\n"
        "to a set from which no single input can be removed and the scenario still meets the\n"
        "expectations of --expect FILE (a scenario file or a JSON array of expectations,\n"
        "protocol.md §7; reply ids as record-to-scenario writes them, C/ID). Each candidate\n"
        "runs in process on a fresh engine from the header (seed, configuration, the header's\n"
        "content or --replay-emotes). Writes the scenario (script and those expectations);\n"
        "-o is --out. Exit status: 0 written, 1 the whole recording does not meet the\n"
        "expectations, 2 a usage error or unreadable input.\n";
    c.options = {
        value_option("expect", "FILE", "the expectations to keep meeting (required)"),
        value_option("out", "FILE", "write to FILE instead of stdout"),
        value_option("name", "NAME", "the scenario's name"),
        value_option("emotes", "DIR", "an emote folder for the scenario; repeat for several", true),
        value_option("replay-emotes", "DIR", "run with this folder instead of the header's")};
    c.min_operands = 1;
    c.max_operands = 1;
    return c;
  }();
  return command;
}

namespace {

// The expectations of FILE: a scenario (its `expect`) or a bare array of expectations.
core::result<protocol::expectation_set, std::string>
read_expectations(const std::filesystem::path& file) {
  auto read = core::read_file_text(file);
  if (!read) {
    return core::failure{std::move(read.error())};
  }
  std::string text = std::move(*read);
  if (const auto parsed = json::parse_source(text, json::source_dialect::relaxed);
      parsed.ok && parsed.root.is_array()) {
    // Wrapped on the same line, so line numbers in errors stay those of the file.
    text = R"({"expect":)" + text + "\n}";
  }
  auto s = protocol::parse_scenario(text, file);
  if (!s) {
    return core::failure{s.error()};
  }
  if (s->expect.empty()) {
    return core::failure{file.string() + ": no expectations to meet"};
  }
  return std::move(s->expect);
}

} // namespace

int cmd_shrink(std::span<const std::string_view> argv) {
  // `-o OUT` is `--out OUT`.
  std::vector<std::string_view> translated(argv.begin(), argv.end());
  for (auto& a : translated) {
    if (a == "--") {
      break;
    }
    if (a == "-o") {
      a = "--out";
    }
  }
  auto parsed = parse_command_line(shrink_cli(), translated);
  if (!parsed) {
    return parsed.error();
  }
  const cli_args& args = *parsed;
  const auto expect_file = args.value("expect");
  if (!expect_file) {
    std::fprintf(stderr, "emote-sim shrink: --expect FILE is required (see emote-sim shrink "
                         "--help)\n");
    return 2;
  }
  const std::string file = args.positional()[0];
  auto rec = protocol::read_recording(file);
  if (!rec) {
    std::fprintf(stderr, "shrink: %s: %s\n", file.c_str(), rec.error().c_str());
    return 2;
  }
  if (!rec->damage.empty()) {
    std::fprintf(stderr, "shrink: %s\n", rec->damage.c_str());
    return 2;
  }
  auto expect = read_expectations(*expect_file);
  if (!expect) {
    std::fprintf(stderr, "shrink: %s\n", expect.error().c_str());
    return 2;
  }
  protocol::scenario_conversion options;
  options.name = args.value("name").value_or("");
  options.emotes = args.values("emotes");
  options.expect_json = expect_array_text(*expect);
  auto converted = protocol::convert_recording(*rec, options);
  if (!converted) {
    std::fprintf(stderr, "shrink: %s\n", converted.error().c_str());
    return 2;
  }
  // The content the recording was made with (checked as `replay` checks it).
  auto content = prepare_replay(*rec, args.value("replay-emotes"), false);
  if (!content) {
    std::fprintf(stderr, "shrink: %s\n", content.error().text.c_str());
    return 2;
  }
  // The engine as the written scenario configures it (header's configuration and seed).
  auto base = protocol::parse_scenario(protocol::write_scenario(converted->text), file);
  if (!base) {
    std::fprintf(stderr, "shrink: %s\n", base.error().c_str());
    return 2;
  }
  base->emotes = {content->folder};
  if (converted->text.emotes.empty()) { // as record-to-scenario: the folder the header names
    converted->text.emotes = {content->folder.string()};
  } else {
    // As record-to-scenario: the scenario's folders should hold the recorded content.
    const auto out = args.value("out");
    const std::filesystem::path dir =
        out ? std::filesystem::absolute(*out).parent_path() : std::filesystem::current_path();
    if (const auto warn = scenario_content_warning(*rec, options.emotes, dir); !warn.empty()) {
      std::fprintf(stderr, "shrink: %s", warn.c_str());
    }
  }
  const auto started = std::chrono::steady_clock::now();
  auto result = shrink_script(*converted, *base, scenario_host_factory({}));
  if (!result) {
    std::fprintf(stderr, "shrink: %s\n", result.error().c_str());
    if (result.error().find("no reply with this id") != std::string::npos) {
      std::fprintf(stderr, "shrink: note: reply ids are those record-to-scenario writes, C/ID "
                           "(id ID sent on connection C)\n");
    }
    return 1;
  }
  const auto seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::fprintf(
      stderr, "shrink: %zu of %zu recorded inputs kept (%zu script lines), %zu runs, %.2f s\n",
      result->units_after, result->units_before, result->script.size(), result->runs, seconds);
  if (result->tick_offset > 0) {
    std::fprintf(stderr,
                 "shrink: the script moved %lld ticks earlier (its first input at tick %lld)\n",
                 static_cast<long long>(result->tick_offset),
                 static_cast<long long>(result->script.front().tick));
  } else if (!result->not_rebased.empty()) {
    std::fprintf(stderr, "shrink: the script keeps its recorded ticks: %s\n",
                 result->not_rebased.c_str());
  }
  converted->text.script = std::move(result->script);
  converted->text.ticks = result->ticks;
  const std::string text = protocol::write_scenario(converted->text);
  return write_command_output("shrink", args.value("out"), text);
}

} // namespace emote::server
