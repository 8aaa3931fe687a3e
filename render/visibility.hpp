#pragma once
// Player visibility (render.md §5.5): which players are hidden, the flags and blank equipment
// their viewers are sent when a hide starts, when a viewer comes within R_p of a hidden player,
// and in a snapshot. Each hide has its own epoch (never 0, never reused), so a viewer's list of
// what it was sent is a list of epochs, and a viewer near the same hides as last step costs a
// comparison. A part of the renderer (render/render_parts.hpp), with unit tests in
// tests/render/renderer_parts_test.cpp.

#include "engine/api/event.hpp"
#include "engine/world/player.hpp"
#include "render/display_state.hpp"
#include "render/tables.hpp"
#include "render/viewer_set.hpp"
#include "render/wire.hpp"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace emote::render {

class output_assembler;

class visibility {
public:
  struct hidden_state {
    bool blank = false;
    std::uint64_t epoch = 0; ///< distinct for every hide
  };

  explicit visibility(std::span<const version_table* const> vers) : vers_(vers) {}

  [[nodiscard]] const std::unordered_map<std::string, hidden_state>& hidden() const noexcept {
    return hidden_;
  }

  /// A player.visibility event: the hide (a new epoch) or the show is recorded, and the viewers
  /// within R_p of the player (and the player itself) get its flags, the others (not the
  /// player) its blank equipment when asked for. `audience` is scratch.
  void on_event(const api::ev_player_visibility& ev, const viewer_set& viewers, dimension_ids& dims,
                output_assembler& out, std::vector<const active*>& audience);

  /// Hidden players no longer among the step's players are forgotten.
  void forget_departed(const viewer_set& viewers);

  /// The tracking pass: the hidden players with an entity id, in join order (call once per step,
  /// before send_near).
  void begin_tracking(const viewer_set& viewers, dimension_ids& dims);
  /// The tracking pass for viewer `a`: the hidden players within its R_p that it was not sent
  /// (under their current hide) get their flags, then their blank equipment; its list becomes
  /// the hides near it now.
  void send_near(const active& a, output_assembler& out);

  /// The snapshot's part for viewer `a` (render.md §4 rule 6): the flags and equipment of the
  /// hides it was sent that still hold. Call prepare_snapshot() first.
  void prepare_snapshot();
  void snapshot(const active& a, const viewer_set& viewers, output_assembler& out);

  /// The flags byte metadata of `p` (render.md §5.5: shared flags with 0x20 when invisible).
  void write_flags(byte_writer& w, std::size_t ver, const world::player_state& p,
                   bool invisible) const;

private:
  struct hidden_now {
    const world::player_state* p = nullptr;
    std::int32_t dim = 0;
    bool blank = false;
    std::uint64_t epoch = 0;
    std::vector<range_ref> flags, equipment; ///< per version, built on first use
  };
  struct hidden_at {
    double x = 0, z = 0;
    std::int32_t dim = 0;
    std::uint32_t index = 0; ///< in hidden_list_ (join order)
  };
  /// The epochs a viewer was sent before this step: an open-addressing set reset per viewer by
  /// a stamp (a hide's epoch is never 0).
  struct epoch_set {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> slots; ///< (epoch, stamp)
    std::uint64_t stamp = 0;
    std::size_t mask = 0;
    void reset(std::size_t count);
    [[nodiscard]] std::size_t home(std::uint64_t e) const noexcept {
      return static_cast<std::size_t>((e * 0x9E3779B97F4A7C15ULL) >> 20) & mask;
    }
    void insert(std::uint64_t e);
    [[nodiscard]] bool contains(std::uint64_t e) const noexcept;
  };

  std::span<const version_table* const> vers_;
  std::unordered_map<std::string, hidden_state> hidden_;
  std::uint64_t hide_epoch_ = 0;
  // The tracking pass's, storage kept between steps.
  std::vector<hidden_now> hidden_list_;
  std::size_t hidden_count_ = 0;
  std::vector<hidden_at> hidden_by_x_; ///< ascending x
  std::vector<std::uint64_t> near_bits_;
  std::vector<std::uint32_t> hidden_near_;
  std::vector<std::uint64_t> now_epochs_;
  epoch_set seen_before_;
  std::unordered_map<std::uint64_t, const std::string*> by_epoch_; ///< prepare_snapshot's
};

} // namespace emote::render
