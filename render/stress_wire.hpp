#pragma once
// The mod's stress packet pipeline (render.md §8, players.md §8.3) for `stress --wire-protocol`:
// every display is paired with every recipient when it spawns (a spawn bundle, render.md §5.1),
// each tick a display with at least one changed metadata *value* sends one entity_metadata with
// those entries (index 8 is not forced, as the mod's test diffs values), and a removal sends one
// entity_destroy per display. Each packet is framed and, at or above the threshold, compressed as
// render.md §5.6, once; the bytes are the same for every recipient.
//
// Stress instances have no players, so nothing follows (players.md §7.9): their frames hold no
// display.move or display.view records, and skin-bound heads show no profile. Content warnings
// (render.md §5.4) are not reported here; `emote-sim check` and the renderer report them.
//
// Threads: encode() of frames without spawns may run concurrently for disjoint sets of displays
// (each with its own framer and output); a frame with spawns grows the display table and runs
// alone (stress spawns only in its creation frame).

#include "engine/api/event.hpp"
#include "render/framing.hpp"
#include "render/metadata.hpp"
#include "render/renderer.hpp"

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace emote::render {

/// What one encode() call appends: the framed packets and their count.
struct wire_output {
  std::string bytes;
  std::uint64_t packets = 0;
  std::uint64_t dropped = 0; ///< packets whose frame did not fit a 21-bit length (not sent)
  // Scratch, kept between calls so that steady ticks do not allocate.
  std::string packet;
  std::vector<metadata_entry> entries;

  void clear() noexcept {
    bytes.clear();
    packets = 0;
    dropped = 0;
  }
};

class stress_wire {
public:
  stress_wire(const version_table& v, render_config config);

  /// Append the packets of `events` (one frame's, in frame order) to `out`.
  void encode(std::span<const api::event> events, packet_framer& framer, wire_output& out);

  [[nodiscard]] const version_table& version() const noexcept { return *v_; }

private:
  /// What every tick reads and writes, kept small and apart from the rest so that a tick's
  /// updates walk a compact table (instances hold consecutive handles).
  struct hot {
    bool live = false;
    bool visible = false;
    api::display_kind kind = api::display_kind::item;
    entity_kind ekind = entity_kind::item_display;
    std::int32_t entity_id = 0;
    std::array<entry_value, motion_fields> motion{}; ///< interpolation_duration..right_rotation
                                                     ///< (display_values' are not kept)
  };
  /// The rest: spawns, content, hand refreshes and NBT changes.
  struct cold {
    bool skin = false;             ///< a skin-bound head
    std::uint32_t spawns = 0;      ///< display.spawn records of this handle so far (render.md §3)
    std::int32_t state = 0;        ///< block state id
    std::int32_t mode = 0;         ///< item display mode byte
    display_values values{};       ///< but the motion fields, which are hot::motion
    std::string content;           ///< item stack or text component, as shown when visible
    std::string item;              ///< the item stack SNBT (a hand refresh replaces it)
    core::nbt_compound entity_nbt; ///< the node's entity_nbt, merged under the NBT state
  };

  void spawn(const api::ev_display_spawn& sp, packet_framer& framer, wire_output& out);
  void update(const api::ev_display_update& up, packet_framer& framer, wire_output& out);
  void remove(const api::ev_display_remove& rm, packet_framer& framer, wire_output& out);
  /// The live display of handle `h` (its index in hot_ and cold_), or -1.
  [[nodiscard]] std::ptrdiff_t find(api::handle_id h) const noexcept;
  /// Encode `source` as the display's content; through the shared cache when `cached` (only
  /// while no other thread encodes).
  void encode_content(const hot& h, cold& c, std::string_view source, bool cached);
  bool entry(const hot& h, const cold& c, display_field f, metadata_entry& e) const;
  void send(packet_framer& framer, wire_output& out);

  const version_table* v_;
  const version_table* defaults_; ///< the table whose slot defaults seed values (as the renderer)
  render_config cfg_;
  /// The slot of every kind and field, looked up once.
  std::array<std::array<const metadata_slot*, display_field_count>, entity_kind_count> slots_{};
  /// Per kind: its fields ascend with their indexes in v_.
  std::array<bool, entity_kind_count> by_field_{};
  empty_content empty_;
  std::vector<hot> hot_;   ///< by handle - 1
  std::vector<cold> cold_; ///< by handle - 1
  /// Encoded content by kind and source, shared by the displays that spawn with it.
  std::unordered_map<std::string, std::pair<std::string, std::int32_t>> content_cache_;
};

} // namespace emote::render
