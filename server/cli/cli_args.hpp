#pragma once
// The one command-line parser of every subcommand: `--name value` and `--name=value`, repeatable
// options, boolean flags, positional operands and `--` (everything after it is an operand). Each
// command declares a `cli_command` (its operands, summary and options); the help text and the
// usage line are generated from that declaration, and anything undeclared is an error naming the
// argument. Options backed by configuration keys are declared from the configuration table
// (`config_cli_options`).

#include "engine/core/result.hpp"
#include "settings/config.hpp"

#include <cstddef>
#include <filesystem>
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
  std::string_view value = "VALUE"; ///< the placeholder in help, e.g. `FILE`
  std::string_view help;            ///< lines for --help; '\n' starts a continuation line
  /// The configuration key the option sets (settings::config_key::name), empty for none.
  std::string_view config_key;
  std::string_view default_json; ///< the key's default, shown in help
  /// The values it accepts, space separated, for shell completion (empty: any, completed as a
  /// file).
  std::string_view choices;
};

/// `--name VALUE`, for help `help`; `repeatable` options may be given several times.
constexpr cli_option value_option(std::string_view name, std::string_view value,
                                  std::string_view help, bool repeatable = false) {
  return cli_option{name, true, repeatable, value, help, {}, {}, {}};
}

/// `--name` without a value.
constexpr cli_option flag_option(std::string_view name, std::string_view help) {
  return cli_option{name, false, false, {}, help, {}, {}, {}};
}

/// What a subcommand accepts, for parsing and for its generated help.
struct cli_command {
  std::string_view name;        ///< "run"
  std::string_view operands;    ///< as shown in the usage line, e.g. "SCENARIO..."
  std::string_view summary;     ///< one line for `emote-sim --help`
  std::string_view description; ///< paragraphs printed between the usage line and the options
  std::vector<cli_option> options;
  std::size_t min_operands = 0;
  std::size_t max_operands = static_cast<std::size_t>(-1);
  /// The operands it accepts, space separated, for shell completion (empty: files).
  std::string_view operand_choices;
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

/// `usage: emote-sim NAME [--opt V]... OPERANDS`, the description and one line per option.
std::string cli_help(const cli_command& command);

/// `NAME OPERANDS [OPTIONS]` padded, then the summary: one line of `emote-sim --help`.
std::string cli_synopsis(const cli_command& command);

/// Parse a subcommand's arguments. On `--help` the help goes to stdout and the failure is exit
/// status 0; on a usage error (unknown option, missing value, wrong number of operands) a message
/// `emote-sim NAME: ... (see emote-sim NAME --help)` goes to stderr and the failure is 2.
core::result<cli_args, int> parse_command_line(const cli_command& command,
                                               std::span<const std::string_view> args);

/// One option per configuration key in `keys` (all keys when empty), from the configuration
/// table: `--limits-max-line-bytes N`, `--record-frames`, ... (settings::config_keys()).
/// Write a command's result: to the file `out` names (created or truncated), else to stdout.
/// The exit status: 0, or 2 after `COMMAND: cannot write FILE` on stderr.
int write_command_output(std::string_view command, const std::optional<std::string>& out,
                         std::string_view text);

std::vector<cli_option> config_cli_options(std::span<const std::string_view> keys = {});

/// The configuration file a command reads: `--config FILE`, else $EMOTE_SIM_CONFIG, else
/// config/emote-sim.json when it exists; empty for none (the built-in defaults).
std::filesystem::path config_file(const cli_args& args);

/// The configuration of every command that reads one (serve, list, stress): the defaults, the
/// file of `config_file`, the `EMOTE_SIM_*` environment of this process, then the options of
/// `args` declared with a `config_key`, validated once. The error is the message to print.
core::result<settings::server_config, std::string> load_config(const cli_args& args,
                                                               std::span<const cli_option> options);

/// The `--config FILE` option of the commands that read a configuration.
cli_option config_file_option();

} // namespace emote::server
