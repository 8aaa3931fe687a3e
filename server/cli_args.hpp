#pragma once
// Command-line parsing for the subcommands: `--name value`, `--name=value`, repeatable options,
// boolean flags and positional arguments. Each command declares what it accepts; anything else is
// an error message naming the argument.

#include "engine/core/result.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace emote::server {

struct cli_option {
  std::string_view name; ///< without the leading "--"
  bool takes_value = true;
  bool repeatable = false;
};

class cli_args {
public:
  /// Parse `args` against `options`. `--help`/`-h` is always accepted (see `help()`).
  static core::result<cli_args, std::string> parse(std::span<const std::string_view> args,
                                                   std::span<const cli_option> options);

  [[nodiscard]] bool has(std::string_view name) const;
  /// The last value given for `name`.
  [[nodiscard]] std::optional<std::string> value(std::string_view name) const;
  /// Every value given for `name`, in order.
  [[nodiscard]] std::vector<std::string> values(std::string_view name) const;
  /// Options in the order given (for layering onto a config).
  [[nodiscard]] const std::vector<std::pair<std::string, std::string>>& ordered() const {
    return ordered_;
  }
  [[nodiscard]] const std::vector<std::string>& positional() const { return positional_; }
  [[nodiscard]] bool help() const { return help_; }

private:
  std::vector<std::pair<std::string, std::string>> ordered_;
  std::vector<std::string> positional_;
  bool help_ = false;
};

/// The configuration file a command reads: `--config FILE`, else $EMOTE_SIM_CONFIG, else
/// `fallback` when that file exists; empty for none (the built-in defaults).
std::filesystem::path config_file(const cli_args& args, const std::filesystem::path& fallback = {});

} // namespace emote::server
