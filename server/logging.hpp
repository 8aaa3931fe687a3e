#pragma once
// spdlog setup for the executable: one stderr logger; the level comes from `--log-level`, else
// SPDLOG_LEVEL (spdlog's own syntax, e.g. "debug"), else info.

#include <optional>
#include <string>

namespace emote::server {

/// Configure the default logger. Returns an error message for an unknown level name.
std::optional<std::string> setup_logging(const std::optional<std::string>& cli_level);

} // namespace emote::server
