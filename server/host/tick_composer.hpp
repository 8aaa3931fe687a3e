#pragma once
// One tick composition: the Engine steps, then the renderer renders that frame for the online
// players in join order (render.md §4), and the two come out side by side as one
// protocol::tick_output — the Engine's frame untouched, the renderer's packets and warnings next to
// it. The engine host (serve, run, replay, the tests) and the populated stress run step through
// it; the stress run calls the two halves apart to time them.

#include "engine/sim/engine.hpp"
#include "protocol/tick_output.hpp"
#include "render/renderer.hpp"

#include <span>
#include <string>
#include <vector>

namespace emote::server {

class tick_composer {
public:
  explicit tick_composer(const render::render_config& config) : renderer_(config) {}

  /// Step `engine` and render its frame. With `want_packets` false the renderer builds no
  /// entries, with the same tracking and warnings (render.md §6). Valid until the next step().
  const protocol::tick_output& step(sim::engine& engine, bool want_packets) {
    engine_step(engine);
    return render_step(engine, want_packets);
  }
  /// step()'s first half: the Engine steps; its frame (the Engine's own, as sim::engine::step
  /// hands it out) is what render_step() renders.
  api::frame& engine_step(sim::engine& engine);
  /// step()'s second half: the renderer renders the last engine_step()'s frame for the Engine's
  /// online players in join order.
  const protocol::tick_output& render_step(const sim::engine& engine, bool want_packets);
  /// A snapshot for a new packets subscriber after the last step() (render.md §4 rule 6), naming
  /// the same players as its packets; valid until the next step() or snapshot().
  protocol::frame_packets snapshot();

  /// The online players in join order as the last render_step() saw them (a packet entry's
  /// recipient indexes point into this list).
  [[nodiscard]] std::span<const world::player_state* const> players() const noexcept {
    return players_;
  }
  [[nodiscard]] render::renderer& renderer() noexcept { return renderer_; }
  [[nodiscard]] const render::renderer& renderer() const noexcept { return renderer_; }

private:
  void name_players();

  render::renderer renderer_;
  const api::frame* frame_ = nullptr;               ///< the last engine_step()'s
  std::vector<const world::player_state*> players_; ///< join order, at the last step
  std::vector<std::string> names_;                  ///< their keys (made when there are entries)
  render::render_output packets_;
  render::render_output snapshot_;
  protocol::tick_output out_;
};

} // namespace emote::server
