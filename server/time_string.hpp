#pragma once
// Minecraft time strings ("3600t", "2.5s", "1d") as formats.md §2.3 defines them, for the
// configuration's `permissions` entries (idle delay, cooldown modifier).

#include "engine/core/result.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace emote::server {

/// Ticks for `text`, or the detail of formats.md §2.3 ("expected float", "invalid float",
/// "invalid unit", "tick count too low", "trailing input"). `minimum` is the field minimum m.
core::result<std::int64_t, std::string> parse_time_string(std::string_view text,
                                                          std::int64_t minimum);

} // namespace emote::server
