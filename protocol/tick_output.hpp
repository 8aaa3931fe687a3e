#pragma once
// One tick of the simulation as every consumer sees it (the server's fan-out and recordings, the
// gate, `run`, `replay`, the tests): the Engine's frame, the renderer's packet entries and the
// renderer's warnings, side by side. Nothing is appended into the Engine's frame: the wire puts
// the warnings after the frame's events (render.md §5.4), which the encoder does.

#include "engine/api/event.hpp"
#include "render/renderer.hpp"

#include <cstddef>
#include <span>
#include <string>

namespace emote::protocol {

/// The packet part of a tick (render.md §6): the renderer's output and the player keys its
/// recipient indexes refer to.
struct frame_packets {
  const render::render_output* output = nullptr;
  std::span<const std::string> names;
  [[nodiscard]] bool empty() const noexcept { return output == nullptr || output->entries.empty(); }
};

/// What one step of the simulation produced; valid until the host's next apply() or step().
struct tick_output {
  const api::frame* frame = nullptr; ///< the Engine's events of the tick
  frame_packets packets;             ///< the renderer's entries (empty: none built or none due)
  std::span<const api::ev_render_warning> warnings; ///< the renderer's, in its order

  tick_output() = default;
  /// A tick of a host without a renderer, or a frame encoded alone: the frame, nothing else.
  tick_output(const api::frame& f) noexcept : frame(&f) {} // NOLINT(google-explicit-constructor)

  [[nodiscard]] api::tick_number tick() const noexcept { return frame->tick; }
  /// Events on the wire: the frame's, then the warnings.
  [[nodiscard]] std::size_t event_count() const noexcept {
    return frame->events.size() + warnings.size();
  }
  [[nodiscard]] bool has_events() const noexcept { return event_count() != 0; }
};

} // namespace emote::protocol
