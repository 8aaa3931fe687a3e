#pragma once
// The gate's players go through the same input path as a socket client's (gate.md §4, §9): each
// engine input a session produces becomes one protocol line (protocol.md §4, §5), applied,
// recorded and replayed like any client's.

#include "engine/api/types.hpp"

#include <string>
#include <string_view>

namespace emote::gate {

/// The request line (no newline) of a player.join / player.update / player.event / player.leave /
/// emote.play / emote.stop input; `id` when not empty becomes the request's id. Other inputs give
/// an empty string (the gate makes none).
std::string request_line(const api::input& in, std::string_view id = {});

} // namespace emote::gate
