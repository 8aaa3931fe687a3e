#pragma once
// The live displays (render.md §3): each owned by its tracker row, found by handle and by
// session, with the sessions' emote and players (for skins and warnings) and the spawn count per
// handle (for display UUIDs). A part of the renderer (render/render_parts.hpp), with unit tests in
// tests/render/renderer_parts_test.cpp.

#include "engine/api/event.hpp"
#include "render/display_state.hpp"
#include "render/tracker_table.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace emote::render {

/// A session's emote and players, as the frames told them.
struct session_info {
  std::string emote, initiator, partner;
};

class display_registry {
public:
  /// The display with handle `h`, or null.
  [[nodiscard]] display* find(api::handle_id h) noexcept;
  /// Take `d` in: its tracker row (placed at its position), its handle and its session's list.
  display& add(std::unique_ptr<display> d);
  /// Let `d` go (its row, handle and session entry); `d` is destroyed.
  void remove(display* d);
  /// A session's displays, ascending handle (null: none).
  [[nodiscard]] const std::vector<display*>* of_session(api::session_id s) const noexcept;
  /// The live displays, ascending handle.
  [[nodiscard]] std::vector<const display*> by_handle() const;
  [[nodiscard]] std::size_t size() const noexcept { return live_; }

  /// The n-th spawn of handle `h` (1 for the first): part of the display's UUID (render.md §5.1).
  std::uint32_t count_spawn(api::handle_id h) { return ++spawn_counts_[h]; }

  /// Sessions: learnt from playback.started and partner events before a frame's displays are
  /// handled, forgotten when their initiator's playback stops after it.
  void learn_sessions(const api::frame& f);
  void end_sessions(const api::frame& f);
  [[nodiscard]] const session_info* session(api::session_id s) const noexcept;

  [[nodiscard]] tracker_table<display>& trackers() noexcept { return trackers_; }
  [[nodiscard]] const tracker_table<display>& trackers() const noexcept { return trackers_; }

private:
  void index_handle(api::handle_id h, display* d);

  tracker_table<display> trackers_;             ///< T(E) of every live display
  std::vector<std::unique_ptr<display>> owned_; ///< by tracker row
  /// Displays by handle: the engine's handles are the smallest free ids (playback.md §4.1), so
  /// a vector indexed by handle is compact; larger handles (another producer) go to the map.
  static constexpr api::handle_id direct_handles = api::handle_id{1} << 22;
  std::vector<display*> by_handle_direct_;
  std::unordered_map<api::handle_id, display*> by_handle_far_;
  std::size_t live_ = 0;
  std::unordered_map<api::session_id, std::vector<display*>> by_session_; ///< ascending handle
  std::unordered_map<api::handle_id, std::uint32_t> spawn_counts_;
  std::unordered_map<api::session_id, session_info> sessions_;
};

} // namespace emote::render
