#pragma once
// The configuration keys of protocol.md §10 that shape the engine (seed, display limit, cooldown
// mode, disabled ids, access rules, player limit), read from a JSON object onto an
// sim::engine_config. Scenario `config` overrides use it; the server's full configuration loader
// can too. The other §10 keys are checked for their JSON type and otherwise left alone; unknown
// keys are errors, named by their path.

#include "engine/core/result.hpp"
#include "engine/sim/engine.hpp"

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace emote::protocol {

/// Apply the members of `config` onto `out`. `path` names the object in errors ("$.config").
/// Returns "<path>.<key>: <message>" on the first invalid key.
std::optional<std::string> apply_engine_config(sim::engine_config& out,
                                               const rapidjson::Value& config,
                                               const std::string& path);

/// formats.md §2.3 time string ("20", "1.5s", "1d") to whole ticks, with field minimum `min`.
/// The error is the detail after "must be a valid Minecraft time: ".
core::result<std::int64_t, std::string> parse_time_string(std::string_view s, std::int64_t min);

} // namespace emote::protocol
