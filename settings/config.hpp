#pragma once
// The server configuration of protocol.md §10, merged from layers with the precedence
// defaults < file < environment (`EMOTE_SIM_<KEY>`) < command line.
//
// Every key is one row of one table (`config_keys()`): its name, type, bounds, default, the
// field it sets and how it is checked, its command-line flag, its environment variable and its
// help line. The file reader, the environment, the command-line options of every subcommand,
// `--help` and `effective_json` all walk that table. Each layer overrides the earlier ones key by
// key; `build()` validates the merged view once (access rules by engine/rules) and names the
// first invalid key together with where its value came from: `FILE:LINE:COLUMN`,
// `EMOTE_SIM_X` or `--flag`. The message is the same whichever layer set the value.

#include "engine/core/result.hpp"
#include "engine/sim/engine.hpp"
#include "render/renderer.hpp"
#include "settings/listen_address.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace emote::json {
class json_value;
}

namespace emote::settings {

enum class clock_mode : std::uint8_t { realtime, manual };

struct limits_config {
  std::int64_t max_line_bytes = 1048576;
  std::int64_t max_inbound_messages = 65536;
  /// Extension: reading also pauses while a connection's unapplied lines hold more bytes than
  /// this, so `max_inbound_messages` long lines cannot exhaust memory either.
  std::int64_t max_inbound_bytes = 67108864;
  std::int64_t max_outbound_bytes = 16777216;
  std::int64_t max_connections = 256;
  /// protocol.md §2: observers may hold at most max_connections minus this many connections (at
  /// least 1), so idle observers never keep the controller out.
  std::int64_t reserved_controller_connections = 4;
  /// protocol.md §2: connections waiting for their hello, at once and per peer address (the
  /// oldest is closed to make room for a new one).
  std::int64_t max_pending_connections = 64;
  std::int64_t max_pending_per_address = 8;
  /// protocol.md §2: a connection that has said hello and neither subscribes nor sends anything
  /// for this long is closed with `bye` `idle_timeout` (0: never).
  std::int64_t idle_timeout_seconds = 120;
  // gate.md §1, §8
  std::int64_t gate_max_frame_bytes = 2097151;
  std::int64_t gate_max_buffered_bytes = 16777216;
  std::int64_t gate_connect_timeout_ms = 5000;
  /// Connection pairs one gate holds at once; one more client is closed at once (gate.md §8).
  std::int64_t gate_max_connections = 1000;
};

/// One gate (gate.md §1): players accepted on `listen` are connected to `backend`.
struct gate_config {
  std::string name;
  listen_address listen;
  listen_address backend;
};

struct auth_config {
  std::string controller_token; ///< empty: controllers need no token
  std::string observer_token;   ///< empty: observers need no token
};

struct server_config {
  std::filesystem::path config_file; ///< empty when no file was read
  std::filesystem::path emotes;      ///< resolved against the layer that set it
  std::vector<listen_address> listen;
  clock_mode clock = clock_mode::realtime;
  std::int32_t tps = 20;
  sim::engine_config engine;
  render::render_config render; ///< render.md §2
  auth_config auth;
  limits_config limits;
  std::optional<listen_address> metrics; ///< TCP address of the /metrics endpoint
  std::optional<listen_address> http;    ///< TCP address of the viewer, its WebSocket and /metrics
  /// protocol.md §10: the web origins (`https://host[:port]`, or `*`) besides the listener's own
  /// whose pages may open `/ws`; their hosts are also accepted in `Host`.
  std::vector<std::string> http_origins;
  std::vector<gate_config> gates; ///< gate.md §1
  std::filesystem::path record;   ///< empty: no recording
  bool record_frames = false;
  /// protocol.md §8: a full state dump every this many ticks (0: digests only).
  std::int64_t record_state_every = 100;
  /// The merged configuration as one JSON object in the file's shape: the keys some layer set,
  /// tokens blanked, paths absolute. Recordings store it in their header;
  /// `config_loader::add_json` reads it back.
  std::string effective_json;
};

struct config_error {
  std::string key;    ///< dotted key, e.g. `limits.max_line_bytes`, `permissions[0].idle.delay`
  std::string source; ///< where the value came from: `FILE:LINE:COLUMN`, `EMOTE_SIM_X`, `--flag`
  std::string message;
  /// `config: limits.max_line_bytes (from EMOTE_SIM_LIMITS_MAX_LINE_BYTES): must be ...`, or
  /// `config: FILE:LINE:COLUMN: message` when no key is concerned (a syntax error).
  [[nodiscard]] std::string text() const;
};

/// How a key's value is written in a file, and read from environment and command-line text.
enum class config_type : std::uint8_t {
  integer,     ///< a JSON integer; text: decimal
  string,      ///< a JSON string; text: as given
  path,        ///< a string, relative to the file's folder (text: the working directory)
  boolean,     ///< true/false; text: true/false/1/0/yes/no; on a command line a flag without value
  string_list, ///< an array of strings; text: JSON, or comma separated; a repeatable option
  json,        ///< any JSON value (`permissions`); text: JSON
};

/// A value being checked: the JSON value and where it came from.
struct config_value;

/// Why a value is invalid: `path` below the key (`[1]`, `[0].idle.delay`; empty for the value
/// itself) and the message.
struct config_problem {
  std::string path;
  std::string message;
};

/// One row of the configuration table.
struct config_key {
  std::string_view name; ///< dotted: `limits.max_line_bytes`
  config_type type;
  std::int64_t min = 0; ///< integers: the accepted range
  std::int64_t max = 0;
  std::string_view default_json; ///< the default as JSON text (what `--help` shows)
  std::string_view flag;         ///< command-line option without `--`
  std::string_view env;          ///< environment variable
  std::string_view value_name;   ///< placeholder in help: `N`, `DIR`, `ADDR`
  std::string_view help;         ///< one line ('\n' continues it)
  /// Checks a value of this key and stores it in its field of the configuration.
  std::optional<config_problem> (*apply)(const config_key& key, const config_value& value,
                                         server_config& out) = nullptr;
};

/// The table: every key, in the order of config/emote-sim.json and `effective_json`.
std::span<const config_key> config_keys();

/// The row of `name`, or nullptr.
const config_key* find_config_key(std::string_view name);

/// Looks an environment variable up; nullopt when unset. Tests pass a map, main passes getenv.
using env_lookup = std::function<std::optional<std::string>(const std::string&)>;
/// Lists every `EMOTE_SIM_*` variable name that is set, so unknown ones are reported.
using env_names = std::function<std::vector<std::string>()>;

class config_loader {
public:
  config_loader();
  ~config_loader();
  config_loader(const config_loader&) = delete;
  config_loader& operator=(const config_loader&) = delete;

  /// Read a JSON config file (the dialect of hand-written files: comments and trailing commas
  /// allowed). Relative paths in it are relative to its folder; errors name FILE:LINE:COLUMN.
  std::optional<config_error> add_file(const std::filesystem::path& file);

  /// Add a layer from JSON text in the file's shape (recording header); errors name `source`.
  std::optional<config_error> add_json(std::string_view json, const std::string& source,
                                       const std::filesystem::path& base_dir);

  /// Add a layer from a parsed object in the file's shape whose values carry their line and
  /// column in `file` (a scenario's `config`); errors name FILE:LINE:COLUMN.
  std::optional<config_error> add_value(const json::json_value& object, const std::string& file,
                                        const std::filesystem::path& base_dir);

  /// Add the variables of the table (EMOTE_SIM_LIMITS_MAX_LINE_BYTES, ...). EMOTE_SIM_CONFIG
  /// (the file) is read by the caller and ignored here; any other EMOTE_SIM_ name is an error.
  std::optional<config_error> add_environment(const env_lookup& lookup, const env_names& names);

  /// Set one key from text as given in the environment or on a command line (see config_type).
  /// Relative paths are relative to the working directory.
  std::optional<config_error> set(std::string_view key, std::string_view text,
                                  const std::string& source);

  /// Set a list key (`listen`, `disabled`) from separate items, as a repeated command-line
  /// option gives them: every item is one element, taken as it is.
  std::optional<config_error> set_list(std::string_view key, const std::vector<std::string>& items,
                                       const std::string& source);

  [[nodiscard]] core::result<server_config, config_error> build() const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// The usual stack: defaults, then `file` (when not empty), then the environment of this
/// process. Command-line keys are added by the caller with `set` before `build`.
std::optional<config_error> add_file_and_environment(config_loader& loader,
                                                     const std::filesystem::path& file);

} // namespace emote::settings
