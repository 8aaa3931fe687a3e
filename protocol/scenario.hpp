#pragma once
// Scenario files (protocol.md §7): a scripted client with expectations. Loading resolves the
// emotes folders against the file's folder, applies config overrides and the seed onto an
// engine_config, orders the script by tick (file order within a tick) and parses the
// expectations. Script entries stay client lines (compact JSON without `tick`): `run` decodes
// them like a connection would, `bot` sends them as they are.

#include "engine/core/result.hpp"
#include "engine/sim/engine.hpp"
#include "protocol/expect.hpp"

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace emote::protocol {

struct script_entry {
  std::int64_t tick = 0;
  std::string line;      ///< the client message, compact JSON, without `tick`
  std::size_t index = 0; ///< position in the file's `script` array
};

struct scenario {
  std::string name;
  std::filesystem::path file;
  /// Content folders, resolved against the scenario's folder. Empty: the runner's default.
  std::vector<std::filesystem::path> emotes;
  std::int64_t seed = 0;
  std::string config_json = "{}";   ///< the `config` overrides as written (compact)
  sim::engine_config engine;        ///< defaults + `config` overrides + `seed`
  std::int64_t ticks = 200;         ///< total ticks from tick 0
  std::vector<script_entry> script; ///< ordered by tick, file order within a tick
  expectation_set expect;
};

/// The keys of a scenario file's root object; any other is an error "unknown key". The JSON
/// Schema schemas/scenario.schema.json lists the same (the test `schemas` compares them).
inline constexpr std::array<std::string_view, 9> scenario_keys = {
    "scenario", "name", "description", "emotes", "seed", "config", "ticks", "script", "expect"};

/// Parse a scenario from its text; `file` names it (default name: the file's stem) and anchors
/// the relative emotes folders. Errors read "<file>: <json path>: <message>".
core::result<scenario, std::string> parse_scenario(std::string_view text,
                                                   const std::filesystem::path& file);
/// Read and parse a scenario file (at most 64 MiB).
core::result<scenario, std::string> load_scenario(const std::filesystem::path& file);

/// Ops a script may not contain: the runner (or `bot`) owns the connection and the clock.
[[nodiscard]] bool script_op_allowed(std::string_view op) noexcept;

/// The scenario as JSON text (`scenario: 1`, name, emotes as given, seed, config, ticks,
/// script, expect), one script entry per line; used by record-to-scenario.
struct scenario_text {
  std::string name;
  std::vector<std::string> emotes;
  std::int64_t seed = 0;
  std::string config_json = "{}";
  std::int64_t ticks = 0;
  std::vector<script_entry> script;
  std::string expect_json = "[]";
};
std::string write_scenario(const scenario_text& s);

} // namespace emote::protocol
