#pragma once
// The configuration keys of protocol.md §10 that shape the engine (seed, display limit, cooldown
// mode, disabled ids, access rules, player limit), read from a JSON object onto an
// sim::engine_config. Scenario `config` overrides use it; the server's full configuration loader
// can too. The other §10 keys are checked for their JSON type and otherwise left alone; unknown
// keys are errors, named by their path.

#include "engine/core/result.hpp"
#include "engine/sim/engine.hpp"

#include <rapidjson/document.h>

#include <optional>
#include <string>

namespace emote::protocol {

/// Apply the members of `config` onto `out`. `path` names the object in errors ("$.config").
/// Returns "<path>.<key>: <message>" on the first invalid key.
std::optional<std::string> apply_engine_config(sim::engine_config& out,
                                               const rapidjson::Value& config,
                                               const std::string& path);

} // namespace emote::protocol
