#pragma once
// protocol::sim_host over the real Engine and a content_loader: what `emote-sim run` (and the
// server's request execution) drives.

#include "engine/sim/engine.hpp"
#include "protocol/runner.hpp"
#include "render/renderer.hpp"
#include "server/host/content_loader.hpp"
#include "server/host/tick_composer.hpp"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace emote::server {

class engine_host final : public protocol::sim_host {
public:
  /// Load the content and build an Engine on it.
  static core::result<std::unique_ptr<engine_host>, std::string>
  create(std::shared_ptr<content_loader> loader, std::vector<std::filesystem::path> roots,
         sim::engine_config config, render::render_config render = {});

  [[nodiscard]] api::tick_number tick() const override;
  api::reply apply(const api::input& in) override;
  [[nodiscard]] std::optional<api::unmatched_offer> last_unmatched() const override {
    return engine_->last_unmatched();
  }
  const protocol::tick_output& step() override;
  void want_packets(bool wanted) override { want_packets_ = wanted; }
  void shutdown() override { engine_->shutdown(); }
  [[nodiscard]] gauges gauge() const override;
  [[nodiscard]] sim::state_snapshot state(const sim::state_query& query) const override;
  [[nodiscard]] std::vector<protocol::emote_summary> list() const override;
  [[nodiscard]] std::optional<protocol::emote_details> info(std::string_view id) const override;
  [[nodiscard]] std::int64_t emote_count() const override;
  reload_outcome reload(const protocol::emote_reload_request& r) override;
  core::result<std::string, api::error> register_emote(std::string_view document_json) override;
  [[nodiscard]] std::vector<render::display_info> displays() const override;
  std::int64_t render_resync(const protocol::render_resync_request& r) override;
  [[nodiscard]] protocol::frame_packets packet_snapshot() override;
  [[nodiscard]] render::render_counts render_counts() const override;
  bool describe_state(core::state_sink& s) const override;
  [[nodiscard]] std::optional<std::uint64_t> state_digest() const override;

  [[nodiscard]] sim::engine& engine() noexcept { return *engine_; }
  /// The diagnostics of the load at create() (the skipped files and warnings).
  [[nodiscard]] const core::diagnostics& startup_diagnostics() const noexcept {
    return startup_diagnostics_;
  }

private:
  engine_host(std::shared_ptr<content_loader> loader, std::vector<std::filesystem::path> roots,
              sim::engine_config config, render::render_config render, loaded_content content);

  std::shared_ptr<content_loader> loader_;
  std::vector<std::filesystem::path> roots_;
  sim::engine_config config_;
  std::vector<std::string> registered_;     ///< emote.register documents, in order
  std::vector<std::string> registered_ids_; ///< their ids (same order)
  std::unique_ptr<sim::engine> engine_;
  core::diagnostics startup_diagnostics_;
  // Rendering (render.md): stepped after every engine step, whether or not anyone subscribed.
  tick_composer ticks_;
  bool want_packets_ = true;
};

/// Load `emotes` and build the Engine on them: what `serve` and a replay run. Fails when the
/// folder cannot be read.
core::result<std::unique_ptr<engine_host>, std::string>
make_engine_host(const std::filesystem::path& emotes, const sim::engine_config& config,
                 const render::render_config& render = {});

/// The hosts of in-process scenario runs (`run`, `view`): the Engine on the scenario's emotes
/// folders, else on `default_emotes`; `check_caches` (`run --check-caches`) checks every cache.
protocol::host_factory
scenario_host_factory(const std::vector<std::filesystem::path>& default_emotes,
                      bool check_caches = false);

} // namespace emote::server
