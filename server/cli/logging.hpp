#pragma once
// spdlog setup for the executable: one stderr logger; the level comes from `--log-level`, else
// SPDLOG_LEVEL (spdlog's own syntax, e.g. "debug"), else info. `--log-format` chooses the line
// format: `text` (`2026-12-07T02:50:48.123 info message`, local time, coloured on a terminal) or
// `json`, one object per line: {"time":"2026-12-07T02:50:48.123Z","level":"info","message":"..."}
// (time in UTC with milliseconds; level one of trace, debug, info, warning, error, critical),
// documented in docs/guide/deployment.md.

#include <optional>
#include <string>
#include <string_view>

namespace emote::server {

/// Configure the default logger. Returns an error message for an unknown level or format name.
std::optional<std::string> setup_logging(const std::optional<std::string>& cli_level,
                                         const std::optional<std::string>& cli_format = {});

/// One log line in the `json` format, with its newline (what the json formatter writes).
std::string json_log_line(long long unix_ms, std::string_view level, std::string_view message);

} // namespace emote::server
