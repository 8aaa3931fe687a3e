#pragma once
// The engine binding of `serve` and `replay`: the real Engine with its content, seen through
// protocol::sim_host plus the two things only the server needs (shutdown, gauges). This is the
// only server file that knows the Engine exists; the hub and replay see the interfaces.

#include "engine/core/result.hpp"
#include "engine/sim/engine.hpp"
#include "protocol/recording.hpp"
#include "protocol/runner.hpp"
#include "server/hub.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace emote::server {

class serve_host {
public:
  virtual ~serve_host() = default;
  virtual protocol::sim_host& sim() = 0;
  virtual host_extras extras() = 0;
  /// The diagnostics of the startup load (its skipped files are logged).
  [[nodiscard]] virtual const core::diagnostics& startup_diagnostics() const = 0;
};

/// Load `emotes` and build the Engine. Fails when the folder cannot be read.
core::result<std::unique_ptr<serve_host>, std::string>
make_serve_host(const std::filesystem::path& emotes, const sim::engine_config& config,
                const render::render_config& render = {});

struct replay_host {
  std::unique_ptr<serve_host> host;
  std::string warning;          ///< the content differs from the recording's, allowed
  std::filesystem::path folder; ///< the content folder loaded
};

/// Why make_replay_host gave no engine.
struct replay_host_error {
  std::string text;
  /// The content differs from the recording's: the one refusal `allow_content_change` lifts.
  bool content_differs = false;
};

/// The engine as a recording's server had it (protocol.md §8): its header's configuration and
/// seed, on `emotes` (default: the configured folder). A content digest that differs from the
/// header's is an error unless `allow_content_change` (then a warning). `check_caches`
/// (`replay --check-caches`) checks every cache whatever the recorded configuration says.
core::result<replay_host, replay_host_error>
make_replay_host(const protocol::recording& rec, const std::optional<std::string>& emotes,
                 bool allow_content_change, bool check_caches = false);

/// docs/guide/qa.md: the warning `record-to-scenario` and `shrink` print when the emote folders a
/// scenario names (`emotes`, relative ones resolved against `scenario_dir`, the folder the
/// scenario is written to) do not hold the recording's content files (its header's digests):
/// "" when they do, or when the header lists no content.
std::string scenario_content_warning(const protocol::recording& rec,
                                     const std::vector<std::string>& emotes,
                                     const std::filesystem::path& scenario_dir);

} // namespace emote::server
