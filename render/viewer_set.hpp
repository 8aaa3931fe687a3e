#pragma once
// The viewers (render.md §4 rules 3-5): who is a viewer this step, its slot in the tracker table,
// its ranges, its resync, the step's players by id, and the viewers by cell (viewer_grid). A part
// of the renderer (render/render_parts.hpp), with unit tests in
// tests/render/renderer_parts_test.cpp.

#include "engine/api/event.hpp"
#include "engine/world/player.hpp"
#include "render/display_cells.hpp"
#include "render/display_state.hpp"
#include "render/renderer.hpp"
#include "render/tables.hpp"
#include "render/tracker_table.hpp"
#include "render/viewer_grid.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace emote::render {

class output_assembler;

/// A viewer as it lasts between steps (render.md §4 rule 3: from its join to its leave).
struct viewer {
  std::string id;
  std::uint64_t join_serial = 0, client_epoch = 0;
  std::int32_t protocol = 0;
  std::uint32_t slot = 0; ///< its bit in the tracker table's rows
  /// The hide epochs of the hidden players within R_p it was sent, in join order (an epoch is
  /// distinct for every hide, so it names the player and the hide; visibility.hpp).
  std::vector<std::uint64_t> hidden_seen;
  bool resync = false;         ///< this step's tracking pass resyncs it
  bool resync_pending = false; ///< asked for, waiting for its window (render.md §4 rule 5)
  std::optional<api::tick_number> last_resync;
  bool seen = false;
};

/// A viewer as this step sees it.
struct active {
  viewer* v = nullptr;
  std::uint32_t index = 0; ///< in step()'s players
  const world::player_state* p = nullptr;
  std::size_t ver = 0; ///< ordinal in the renderer's tables
  std::int32_t dim = 0;
  double r2 = 0, rp2 = 0;
};

/// Whether (x, z) in `dim` is within squared range `r2` of the viewer.
[[nodiscard]] inline bool within(const active& a, std::int32_t dim, double x, double z,
                                 double r2) noexcept {
  return a.dim == dim && distance2(x - a.p->pos.x, z - a.p->pos.z) <= r2;
}

class viewer_set {
public:
  static constexpr std::uint32_t no_act = std::numeric_limits<std::uint32_t>::max();
  /// render.md §4 rule 5: a viewer is resynced at most once per this many ticks.
  static constexpr api::tick_number resync_window = 20;

  viewer_set(const render_config& cfg, std::span<const version_table* const> vers);

  /// Ask for a resync of these viewers (or of all) at the next step (render.md §4 rule 5).
  void request_resync(const std::string& id) { resync_ids_.insert(id); }
  void request_resync_all() { resync_everyone_ = true; }

  /// The step's viewers from its players (rules 3 and 4): new ones get a slot, left ones and
  /// rejoined ones give theirs back (forgotten in `trackers`), a client that discarded its
  /// entities starts over; unsupported protocols are warned about through `out`; the resyncs
  /// asked for and due are decided (counted in `counts`). Then the viewers by cell.
  void reconcile(std::span<const world::player_state* const> players, api::tick_number tick,
                 dimension_ids& dims, tracker_table<display>& trackers, output_assembler& out,
                 render_counts& counts);

  /// The viewers in join order, and per tracker slot the index of its viewer here (no_act: a
  /// slot of nobody this step).
  [[nodiscard]] const std::vector<active>& act() const noexcept { return act_; }
  [[nodiscard]] std::uint32_t act_of_slot(std::uint32_t slot) const noexcept {
    return slot < slot_act_.size() ? slot_act_[slot] : no_act;
  }
  /// Per version ordinal: some viewer uses it this step; the one version every viewer uses
  /// (none: the size of the tables).
  [[nodiscard]] bool present(std::size_t ver) const noexcept { return protocol_present_[ver]; }
  [[nodiscard]] std::size_t only_version() const noexcept { return only_version_; }
  [[nodiscard]] const viewer_grid& grid() const noexcept { return grid_; }
  /// The step's players, and one of them by id (the earliest joined of equal ids).
  [[nodiscard]] std::span<const world::player_state* const> players() const noexcept {
    return players_;
  }
  [[nodiscard]] const world::player_state* player(std::string_view id) const noexcept;

  /// The viewers tracking row `row`, in join order, into `audience`.
  void audience_of(const tracker_table<display>& trackers, std::uint32_t row,
                   std::vector<const active*>& audience);

  /// Order (act index, entity id, ...) items by act index, then entity id: a stable counting
  /// sort by viewer, then each viewer's run sorted by id unless the walk already gave it in order
  /// (rows are mostly in handle order), so a tick where every viewer meets every display does
  /// not sort them all.
  template <class T>
  void order_by_viewer(std::vector<T>& items, std::vector<T>& scratch) {
    viewer_begin_.assign(act_.size() + 1, 0);
    for (const T& x : items) {
      ++viewer_begin_[std::get<0>(x) + 1];
    }
    for (std::size_t i = 1; i < viewer_begin_.size(); ++i) {
      viewer_begin_[i] += viewer_begin_[i - 1];
    }
    scratch.resize(items.size());
    for (const T& x : items) {
      scratch[viewer_begin_[std::get<0>(x)]++] = x;
    }
    // viewer_begin_[i] is now the end of viewer i's run.
    std::size_t begin = 0;
    const auto by_id = [](const T& x, const T& y) { return std::get<1>(x) < std::get<1>(y); };
    for (std::size_t i = 0; i < act_.size(); ++i) {
      const auto first = scratch.begin() + static_cast<std::ptrdiff_t>(begin);
      const auto last = scratch.begin() + static_cast<std::ptrdiff_t>(viewer_begin_[i]);
      if (!std::is_sorted(first, last, by_id)) {
        std::sort(first, last, by_id);
      }
      begin = viewer_begin_[i];
    }
    items.swap(scratch);
  }

private:
  [[nodiscard]] double range_for(const world::player_state& p, double limit) const noexcept;
  [[nodiscard]] std::string supported_text() const;
  void drop(viewer& v, tracker_table<display>& trackers);

  render_config cfg_;
  std::span<const version_table* const> vers_;
  std::unordered_map<std::string, viewer> viewers_;
  std::vector<std::uint32_t> free_slots_;
  std::uint32_t next_slot_ = 0;
  std::unordered_set<std::string> resync_ids_;
  bool resync_everyone_ = false;
  // This step.
  std::span<const world::player_state* const> players_;
  /// (id, index in players_), ascending: the first of equal ids is the earliest joined.
  std::vector<std::pair<std::string_view, std::uint32_t>> player_index_;
  std::vector<active> act_;             ///< in join order
  std::vector<std::uint32_t> slot_act_; ///< per slot: its index in act_, or no_act
  std::vector<bool> protocol_present_;
  std::size_t only_version_ = 0;
  viewer_grid grid_;
  // Scratch, kept between steps.
  std::vector<std::uint32_t> act_scratch_;
  std::vector<std::uint32_t> viewer_begin_;
};

} // namespace emote::render
