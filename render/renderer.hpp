#pragma once
// The renderer (render.md §3-§6): turns each frame plus the online players into the Minecraft
// packet entries of every viewer. Deterministic and without I/O; it keeps its tracker sets
// whether or not anyone subscribed to packets, so packets are a pure function of the inputs.
//
//   engine.step() -> frame F;  renderer.step(F, players in join order, out)
//     -> out.entries (render.md §6 order), out.warnings (render.warning events, frame order)

#include "engine/api/event.hpp"
#include "engine/core/memo.hpp"
#include "engine/world/player.hpp"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace emote::render {

/// Config `render` (render.md §2).
struct render_config {
  std::int64_t entity_id_base = 1'000'000'000;
  double display_range = 160; ///< blocks
  double player_range = 512;  ///< blocks
  std::int32_t view_distance = 10; ///< the backend's server view distance, chunks
  std::int64_t uuid_seed = 0;
  /// Not a configuration key: the content cache's use (render/content_cache.hpp). The server's
  /// engine host sets it to the engine's cache mode (`--check-caches`: check; the
  /// configuration's check_caches the same).
  core::cache_mode content_cache = core::cache_mode::on;
};

/// One packet for the viewers of one protocol version (render.md §6). `to` and `data` are ranges
/// of render_output::recipients and render_output::data; entries with equal bytes may share a
/// data range.
struct packet_entry {
  std::int32_t protocol = 0;
  std::uint32_t to_begin = 0, to_count = 0;     ///< recipients: indexes into step()'s players
  std::uint32_t data_begin = 0, data_size = 0;  ///< the packet id varint and its fields
};

struct render_output {
  std::vector<packet_entry> entries;
  std::vector<std::uint32_t> recipients;
  std::string data;
  std::vector<api::ev_render_warning> warnings;

  void clear() {
    entries.clear();
    recipients.clear();
    data.clear();
    warnings.clear();
  }
  [[nodiscard]] std::string_view bytes(const packet_entry& e) const noexcept {
    return std::string_view(data).substr(e.data_begin, e.data_size);
  }
  [[nodiscard]] std::span<const std::uint32_t> to(const packet_entry& e) const noexcept {
    return std::span<const std::uint32_t>(recipients).subspan(e.to_begin, e.to_count);
  }
  /// Append `other`'s entries after these (recipient indexes refer to the same players).
  void append(const render_output& other) {
    const auto data_base = static_cast<std::uint32_t>(data.size());
    const auto to_base = static_cast<std::uint32_t>(recipients.size());
    data += other.data;
    recipients.insert(recipients.end(), other.recipients.begin(), other.recipients.end());
    for (packet_entry e : other.entries) {
      e.data_begin += data_base;
      e.to_begin += to_base;
      entries.push_back(e);
    }
  }
};

/// What the renderer counted since it started (metrics).
struct render_counts {
  std::uint64_t resync_requests = 0; ///< viewers a render.resync listed (render.md §4 rule 5)
  std::uint64_t resyncs = 0;         ///< resyncs the tracking pass made
};

/// A live display as state.get reports it (issue: catching up mid-emote).
struct display_info {
  api::handle_id handle = 0;
  api::session_id session = 0;
  std::string node;
  api::display_kind kind = api::display_kind::item;
  std::string item, item_display, block, text_json; ///< content by kind, as in display.spawn
  std::string dimension;
  core::dvec3 position;
  float yaw = 0;
  api::transform_record transform;
  bool visible = false;
};

struct version_table;

class renderer {
public:
  /// A renderer for the supported versions (versions()).
  explicit renderer(render_config config);
  /// A renderer for these tables (ascending protocol): how a table set generated from other
  /// minecraft-data (generate-tables.mjs --data/--namespace) is rendered with.
  renderer(render_config config, std::span<const version_table* const> tables);
  ~renderer();
  renderer(const renderer&) = delete;
  renderer& operator=(const renderer&) = delete;

  /// Process one frame (after the engine's step) with every online player in join order. `out`
  /// is cleared first. With `build_packets` false nobody will receive this step's packets
  /// (render.md §6): the tracker sets and the warnings are exactly those of a step that builds
  /// them, but no move, look or metadata update is built and `out` keeps only the warnings.
  void step(const api::frame& f, std::span<const world::player_state* const> players,
            render_output& out, bool build_packets = true);

  /// render.resync (render.md §4 rule 5): the next tracking pass resyncs these viewers.
  void resync(std::span<const std::string> players);
  /// The same for every viewer.
  void resync_all();

  /// A snapshot for a new packets subscriber (render.md §4 rule 6): per viewer of the last step,
  /// in join order, an entity_destroy of what it tracks, their spawn bundles with the current
  /// state and its hidden-player packets, into `out` alone (recipients index the last step's
  /// players). What later steps send does not change.
  void snapshot(render_output& out);

  [[nodiscard]] render_counts counts() const noexcept;

  /// The live displays, ascending handle.
  [[nodiscard]] std::vector<display_info> displays() const;

  [[nodiscard]] const render_config& config() const noexcept;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// Angle byte of a yaw in degrees (render.md §5.1): (byte) floor(yaw * 256 / 360) in binary32.
std::int8_t angle_byte(float degrees) noexcept;

/// The UUID of the n-th spawn (1-based) of entity `entity_id` (render.md §3).
std::array<std::uint8_t, 16> display_uuid(std::int64_t uuid_seed, std::int32_t entity_id,
                                          std::uint32_t n);

} // namespace emote::render
