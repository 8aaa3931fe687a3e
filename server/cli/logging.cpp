#include "server/cli/logging.hpp"

#include "engine/json/writer.hpp"

#include <spdlog/cfg/env.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <ctime>

namespace emote::server {

namespace {

// The `json` format: one object per line (json_log_line).
class json_formatter final : public spdlog::formatter {
public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(msg.time.time_since_epoch()).count();
    const auto level = spdlog::level::to_string_view(msg.level);
    const std::string line =
        json_log_line(static_cast<long long>(ms), std::string_view(level.data(), level.size()),
                      std::string_view(msg.payload.data(), msg.payload.size()));
    dest.append(line.data(), line.data() + line.size());
  }
  [[nodiscard]] std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<json_formatter>();
  }
};

} // namespace

std::string json_log_line(long long unix_ms, std::string_view level, std::string_view message) {
  const std::time_t seconds =
      static_cast<std::time_t>(unix_ms >= 0 ? unix_ms / 1000 : (unix_ms - 999) / 1000);
  const int millis = static_cast<int>(unix_ms - static_cast<long long>(seconds) * 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char time[96]; // room for any int in each field, so the format is never cut
  std::snprintf(time, sizeof time, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, millis);
  std::string out;
  json::json_out w(out);
  w.raw("{\"time\":");
  w.str(time);
  w.raw(",\"level\":");
  w.str(level);
  w.raw(",\"message\":");
  w.str(message);
  w.raw("}\n");
  return out;
}

std::optional<std::string> setup_logging(const std::optional<std::string>& cli_level,
                                         const std::optional<std::string>& cli_format) {
  const std::string format = cli_format.value_or("text");
  if (format != "text" && format != "json") {
    return "unknown log format '" + format + "' (text, json)";
  }
  std::shared_ptr<spdlog::logger> logger;
  if (format == "json") {
    logger = std::make_shared<spdlog::logger>("emote-sim",
                                              std::make_shared<spdlog::sinks::stderr_sink_mt>());
    logger->set_formatter(std::make_unique<json_formatter>());
  } else {
    logger = std::make_shared<spdlog::logger>(
        "emote-sim", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
  }
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
