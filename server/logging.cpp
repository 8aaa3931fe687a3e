#include "server/logging.hpp"

#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace emote::server {

std::optional<std::string> setup_logging(const std::optional<std::string>& cli_level) {
  auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  auto logger = std::make_shared<spdlog::logger>("emote-sim", std::move(sink));
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::info);
  spdlog::cfg::load_env_levels(); // SPDLOG_LEVEL
  if (cli_level) {
    const auto level = spdlog::level::from_str(*cli_level);
    // from_str maps unknown names to "off"; only accept "off" when it was asked for.
    if (level == spdlog::level::off && *cli_level != "off") {
      return "unknown log level '" + *cli_level +
             "' (trace, debug, info, warn, error, critical, off)";
    }
    spdlog::set_level(level);
  }
  return std::nullopt;
}

} // namespace emote::server
