#pragma once
// The renderer as named parts (render.md §3-§6) and the passes that work over them:
//
//   display_registry  the live displays, by handle, by session, with their tracker rows
//   viewer_set        the step's viewers, their slots, ranges and resyncs, the viewers by cell
//   content_cache     display content encoded once per version and source
//   visibility        hidden players (render.md §5.5)
//   output_assembler  entries, shared recipients and bytes, render.warning records
//
//   renderer::step = viewers.reconcile, event_pass (render.md §4 rule 1), tracking_pass
//   (rule 2, rule 5); snapshot (rule 6) for a new packets subscriber.
//
// Internal to render/ (render/renderer.hpp is the module's interface).

#include "render/content_cache.hpp"
#include "render/display_cells.hpp"
#include "render/display_registry.hpp"
#include "render/display_state.hpp"
#include "render/metadata.hpp"
#include "render/output_assembler.hpp"
#include "render/renderer.hpp"
#include "render/tables.hpp"
#include "render/viewer_set.hpp"
#include "render/visibility.hpp"

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace emote::render {

/// The event pass's state kept between steps (storage reused; no allocation in a steady step).
struct event_scratch {
  std::vector<display*> changed; ///< the current session group's changed displays
  api::session_id group = 0;
  bool in_group = false;
  /// flush_changes' last audience: its tracker bits and whether it was empty, valid while the
  /// assembler's group serial equals last_audience_serial.
  std::vector<std::uint64_t> last_audience_bits;
  std::uint64_t last_audience_serial = std::numeric_limits<std::uint64_t>::max();
  bool last_audience_empty = true;
  std::vector<std::pair<api::session_id, api::handle_id>> removed;
};

/// The tracking pass's (and the snapshot's) scratch, kept between steps.
struct tracking_scratch {
  display_cells cells;                     ///< the rows by cell
  std::vector<std::uint64_t> keep_mask;    ///< per cell: the slots whose range holds the box
  std::vector<std::uint32_t> edge_viewers; ///< per cell: act indexes tested row by row
  std::vector<std::tuple<std::uint32_t, std::int32_t, display*>> arriving, arriving_scratch;
  std::vector<std::pair<std::uint32_t, std::int32_t>> leaving, leaving_scratch; ///< (act, id)
  std::vector<std::int32_t> destroy_ids;
  std::vector<display*> spawn_list;
  std::string destroy_bytes;
  std::vector<range_ref> last_destroy; ///< per version
};

struct render_parts {
  render_parts(const render_config& c, std::span<const version_table* const> tables);

  render_config cfg;
  std::span<const version_table* const> vers;
  const version_table* defaults = nullptr; ///< the table whose slot defaults seed new values

  dimension_ids dims;
  display_registry displays;
  viewer_set viewers;
  content_cache contents;
  visibility hidden;
  output_assembler out;
  render_counts counts;

  api::tick_number tick = 0;
  bool building = true; ///< this step's packets are received (step()'s build_packets)

  // Scratch shared by the passes.
  std::vector<const active*> audience;
  std::vector<std::uint32_t> act_scratch;
  std::vector<metadata_entry> entries;
  event_scratch ev;
  tracking_scratch tr;
};

// The passes (event_pass.cpp, tracking_pass.cpp).
void event_pass(render_parts& r, const api::frame& f);
void tracking_pass(render_parts& r);
/// Every viewer's tracked state as of the last step into `o` alone (render.md §4 rule 6).
void snapshot(render_parts& r, render_output& o);

// A display's content and metadata for one version (display_encoding.cpp).
void capture_skin(render_parts& r, display& d);
void invalidate_content(display& d);
const content_value& content_for(render_parts& r, display& d, std::size_t ver);
/// Encode the content now for every protocol that has a viewer (render.md §5.4 warnings).
void encode_for_viewers(render_parts& r, display& d);
/// The NBT-derived entries from entity_nbt merged with the NBT-track state (render.md §5.3);
/// `parse_msgs` are the track state's parse problems.
void recompute_nbt(render_parts& r, display& d, const std::vector<std::string>& parse_msgs);
core::nbt_compound parse_nbt(const std::string& snbt, std::string_view what,
                             std::vector<std::string>& msgs);
/// The NBT warnings of `d` for version `ver`, once per state.
void warn_nbt(render_parts& r, display& d, std::size_t ver);
/// The spawn metadata (entries that differ from their defaults) and the changed entries.
void write_spawn_metadata(render_parts& r, display& d, std::size_t ver, byte_writer& w);
void write_changes(render_parts& r, display& d, std::size_t ver, byte_writer& w);
/// The display's spawn_entity and spawn metadata for version `ver`, built once per step.
void bundle_for(render_parts& r, display& d, std::size_t ver);

} // namespace emote::render
