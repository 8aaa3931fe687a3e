// emote-sim record-to-scenario RECORDING [--out FILE] [--name NAME] [--emotes DIR]...
// [--expect all|lifecycle|none] [--replay-emotes DIR] (protocol.md §8, docs/guide/qa.md).
#include "server/cli/commands.hpp"

#include "engine/json/wire_reader.hpp"
#include "protocol/recording.hpp"
#include "protocol/recording_scenario.hpp"
#include "server/cli/cli_args.hpp"
#include "server/qa/recorded_expect.hpp"
#include "server/qa/replay_setup.hpp"

#include <cstdio>
#include <filesystem>

namespace emote::server {

const cli_command& record_to_scenario_cli() {
  static const cli_command command = [] {
    cli_command c;
    c.name = "record-to-scenario";
    c.operands = "RECORDING";
    c.summary = "a recording's input as a scenario";
    c.description =
        "Turns a recording into a scenario whose script is the recorded input (all connections\n"
        "as one, at their ticks; a disconnect becomes player.leave for the players it took\n"
        "along). Seed and configuration come from the recording's header. The scenario names\n"
        "the header's emote folder unless --emotes is given (write it relative to where the\n"
        "scenario will live). Request ids become C/ID (C: the connection), unique across\n"
        "connections. The expectations say what the recorded session did (--expect): all =\n"
        "every reply's ok/error code and every playback.* and partner.* event at its tick,\n"
        "with their totals; lifecycle = those events without the replies; none = []. The\n"
        "events come from replaying the recording here, on the header's content (or\n"
        "--replay-emotes); a recording this build does not replay identically is refused\n"
        "unless --expect none.\n";
    c.options = {
        value_option("out", "FILE", "write to FILE instead of stdout"),
        value_option("name", "NAME", "the scenario's name"),
        value_option("emotes", "DIR", "an emote folder for the scenario; repeat for several", true),
        value_option("expect", "all|lifecycle|none", "which expectations (default: all)"),
        value_option("replay-emotes", "DIR", "replay with this folder instead of the header's")};
    c.min_operands = 1;
    c.max_operands = 1;
    return c;
  }();
  return command;
}

int cmd_record_to_scenario(std::span<const std::string_view> argv) {
  auto parsed = parse_command_line(record_to_scenario_cli(), argv);
  if (!parsed) {
    return parsed.error();
  }
  const cli_args& args = *parsed;
  const std::string file = args.positional()[0];
  auto rec = protocol::read_recording(file);
  if (!rec) {
    std::fprintf(stderr, "record-to-scenario: %s: %s\n", file.c_str(), rec.error().c_str());
    return 2;
  }
  if (!rec->damage.empty()) {
    std::fprintf(stderr, "record-to-scenario: %s\n", rec->damage.c_str());
    return 2;
  }
  protocol::scenario_conversion options;
  options.name = args.value("name").value_or("");
  options.emotes = args.values("emotes");
  if (options.emotes.empty()) {
    rapidjson::Document cfg;
    if (!json::parse_wire(rec->header.config_json, cfg)) {
      if (const auto* e = json::find_member(cfg, "emotes"); e != nullptr && e->IsString()) {
        options.emotes.emplace_back(e->GetString(), e->GetStringLength());
      }
    }
  }
  const auto level = parse_expect_level(args.value("expect").value_or("all"));
  if (!level) {
    std::fprintf(stderr, "record-to-scenario: --expect must be all, lifecycle or none\n");
    return 2;
  }
  auto converted = protocol::convert_recording(*rec, options);
  if (!converted) {
    std::fprintf(stderr, "record-to-scenario: %s\n", converted.error().c_str());
    return 1;
  }
  if (*level != expect_level::none) {
    auto host = prepare_replay(*rec, args.value("replay-emotes"), false);
    if (!host) {
      std::fprintf(stderr, "record-to-scenario: %s\n(--expect none needs no replay)\n",
                   host.error().text.c_str());
      return 2;
    }
    auto expect = recorded_expectations(*rec, *converted, *host->host, *level);
    if (!expect) {
      std::fprintf(stderr, "record-to-scenario: %s\n", expect.error().c_str());
      return 1;
    }
    converted->text.expect_json = std::move(*expect);
  }
  // docs/guide/qa.md: a scenario naming a folder without the recorded content would not run as
  // recorded (an unknown_emote at the first play); say so before writing it.
  if (!args.values("emotes").empty()) {
    const auto out = args.value("out");
    const std::filesystem::path dir =
        out ? std::filesystem::absolute(*out).parent_path() : std::filesystem::current_path();
    if (const auto warn = scenario_content_warning(*rec, options.emotes, dir); !warn.empty()) {
      std::fprintf(stderr, "record-to-scenario: %s", warn.c_str());
    }
  }
  const auto text = protocol::write_scenario(converted->text);
  return write_command_output("record-to-scenario", args.value("out"), text);
}

} // namespace emote::server
