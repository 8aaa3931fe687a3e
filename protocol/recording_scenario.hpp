#pragma once
// record-to-scenario (protocol.md §8, docs/guide/qa.md): a recording's input as one scenario
// script, remembering which recorded line each script entry comes from (for `shrink`) and which
// recorded reply answers which scenario id (for the generated expectations).

#include "engine/core/result.hpp"
#include "protocol/recording.hpp"
#include "protocol/scenario.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace emote::protocol {

/// The recorded messages of every connection become one script (in recorded order, at their
/// ticks), except the connection ops (hello, bye, subscribe, clock.step); a disconnect becomes
/// `player.leave` for the players that connection joined without `keep_on_disconnect`. Seed and
/// config come from the header; ticks = last recorded tick + 1.
///
/// Request ids are made unique across connections **(sim)**: a message's id becomes the string
/// `C/ID` (C: the recording's connection number, ID the id as written, an integer in decimal);
/// a use of an id that is already taken (a connection reusing its id) gets `~K` appended with the
/// least K ≥ 2 that is free; a message without an id that was answered (a failure) gets `C/~N`,
/// N its position among that connection's scripted messages, so its reply can be expected.
struct scenario_conversion {
  std::string name;                ///< default: "recorded <started>"
  std::vector<std::string> emotes; ///< folders as the scenario should name them
  std::string expect_json = "[]";  ///< the `expect` array written
};

/// Where a script entry comes from.
struct script_origin {
  std::size_t source = 0; ///< index in recording::entries: the message, or the disconnect
  std::string joins;      ///< the player a `player.join` entry names, else empty
  std::string leaves;     ///< the player a disconnect's `player.leave` takes along, else empty
};

/// A recorded reply and the scenario id of the message it answers.
struct converted_reply {
  std::int64_t tick = 0;
  std::string id;   ///< the scenario id (above)
  std::string json; ///< the recorded reply object, compact
};

struct converted_recording {
  scenario_text text;                   ///< with options.expect_json
  std::vector<script_origin> origins;   ///< one per text.script entry
  std::vector<converted_reply> replies; ///< recorded order
};

core::result<converted_recording, std::string>
convert_recording(const recording& r, const scenario_conversion& options);
/// convert_recording written as a scenario file.
core::result<std::string, std::string> recording_to_scenario(const recording& r,
                                                             const scenario_conversion& options);

} // namespace emote::protocol
