#pragma once
// The server configuration of protocol.md §10, merged from layers with the precedence
// defaults < file < environment (`EMOTE_SIM_<KEY>`) < command line. Each layer overrides the
// earlier ones key by key; `build()` validates the merged view once and names the first invalid
// key together with the layer that set it. The result is the server's own settings plus the
// engine's `sim::engine_config`.

#include "engine/core/result.hpp"
#include "engine/sim/engine.hpp"
#include "protocol/listen_address.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace emote::protocol {

enum class clock_mode : std::uint8_t { realtime, manual };

struct limits_config {
  std::int64_t max_line_bytes = 1048576;
  std::int64_t max_inbound_messages = 65536;
  /// Extension: reading also pauses while a connection's unapplied lines hold more bytes than
  /// this, so `max_inbound_messages` long lines cannot exhaust memory either.
  std::int64_t max_inbound_bytes = 67108864;
  std::int64_t max_outbound_bytes = 16777216;
  std::int64_t max_connections = 256;
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
  auth_config auth;
  limits_config limits;
  std::optional<listen_address> metrics; ///< TCP address of the /metrics endpoint
  std::filesystem::path record;          ///< empty: no recording
  bool record_frames = false;
  /// The merged configuration as one JSON object in the file's shape, tokens blanked. Recordings
  /// store it in their header; `config_loader::add_json` reads it back.
  std::string effective_json;
};

struct config_error {
  std::string key;    ///< dotted key, e.g. `limits.max_line_bytes`, `permissions[0].idle.delay`
  std::string source; ///< the layer: a file name, `EMOTE_SIM_X`, `--flag`, ...
  std::string message;
  /// `config: limits.max_line_bytes (from EMOTE_SIM_LIMITS_MAX_LINE_BYTES): must be ...`
  [[nodiscard]] std::string text() const;
};

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

  /// Read a JSON config file (comments and trailing commas allowed). Relative paths in it are
  /// relative to its folder.
  std::optional<config_error> add_file(const std::filesystem::path& file);

  /// Add a layer from JSON text in the file's shape (scenario `config`, recording header).
  std::optional<config_error> add_json(std::string_view json, const std::string& source,
                                       const std::filesystem::path& base_dir);

  /// Add the `EMOTE_SIM_<KEY>` variables (`.` in a key becomes `_`:
  /// EMOTE_SIM_LIMITS_MAX_LINE_BYTES). EMOTE_SIM_CONFIG (the file) is read by the caller and
  /// ignored here.
  std::optional<config_error> add_environment(const env_lookup& lookup, const env_names& names);

  /// Set one key from text as given on a command line or in the environment: integers as
  /// decimal, lists as JSON or comma-separated, `permissions` as JSON. Relative paths are
  /// relative to the working directory.
  std::optional<config_error> set(std::string_view key, std::string_view text,
                                  const std::string& source);

  [[nodiscard]] core::result<server_config, config_error> build() const;

  /// Every key the loader knows, in the order `effective_json` writes them.
  static std::vector<std::string_view> keys();

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// The usual stack for `serve`: defaults, then `file` (when not empty), then the environment of
/// this process. Command-line keys are added by the caller with `set` before `build`.
std::optional<config_error> add_file_and_environment(config_loader& loader,
                                                     const std::filesystem::path& file);

} // namespace emote::protocol
