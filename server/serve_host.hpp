#pragma once
// The engine binding of `serve` and `replay`: the real Engine with its content, seen through
// protocol::sim_host plus the two things only the server needs (shutdown, gauges). This is the
// only server file that knows the Engine exists; the hub and replay see the interfaces.

#include "engine/core/result.hpp"
#include "engine/sim/engine.hpp"
#include "protocol/runner.hpp"
#include "server/hub.hpp"

#include <filesystem>
#include <memory>
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

} // namespace emote::server
