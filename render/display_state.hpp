#pragma once
// One live display as the renderer keeps it (render.md §3-§5), and the small value types the
// renderer's parts share. Internal to render/: the parts (display_registry, viewer_set,
// content_cache, visibility, output_assembler) and the passes include it; nothing outside does.

#include "engine/api/event.hpp"
#include "engine/core/snbt.hpp"
#include "engine/core/vec.hpp"
#include "render/metadata.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace emote::render {

/// A range of render_output::data or render_output::recipients.
struct range_ref {
  std::uint32_t begin = 0, size = 0;
};

/// One version's encoding of a display's real content (render.md §5.4).
struct content_value {
  bool ready = false;
  std::string raw;        ///< item stack (Slot) or text component (network NBT)
  std::int32_t state = 0; ///< block state id
};

/// Per display and version: the content, the item display mode, and the tracking pass's spawn
/// bundle of this step (built once, shared by every viewer of that version).
struct per_version {
  content_value content;
  bool mode_ready = false;
  std::int32_t mode = 0;
  bool nbt_warned = false;
  std::uint64_t bundle_stamp = 0;
  std::uint32_t spawn_begin = 0, spawn_size = 0, meta_begin = 0, meta_size = 0;
};

/// The profile a skin-bound head shows, captured when its content is shown (render.md §5.4).
struct skin_capture {
  std::optional<api::skin_texture> textures;
  std::optional<api::uuid> uuid;
  std::string name;
};

struct display {
  // What every tick touches (moves, updates, their packets) first, together.
  api::handle_id handle = 0;
  api::session_id session = 0;
  core::dvec3 pos;
  float yaw = 0;
  std::int32_t entity_id = 0;
  std::int32_t dim = 0;
  std::uint32_t row = 0;   ///< in the tracker table
  std::uint32_t dirty = 0; ///< field_bit(f): field f changed this step
  api::display_kind kind = api::display_kind::item;
  entity_kind ekind = entity_kind::item_display;
  api::space space = api::space::scene;
  bool moved = false, turned = false, queued = false;
  bool visible = false;
  display_values values{};
  std::vector<per_version> versions;
  api::transform_record transform;
  // The rest.
  std::string node;
  std::string emote; ///< for render.warning
  std::array<std::uint8_t, 16> uuid{};
  std::string dimension;
  std::string item, item_display, block, text_json;
  std::optional<api::skin_binding> skin;
  skin_capture captured;
  core::nbt_compound entity_nbt, nbt;
  std::vector<std::string> entity_nbt_msgs; ///< entity_nbt parse problems
  std::vector<std::string> nbt_warnings;    ///< every NBT problem of the current state
};

/// Dimension names as small integers, so range tests compare integers (the ids are the order
/// of first use and never reused; nothing outside a process sees them).
class dimension_ids {
public:
  std::int32_t id(const std::string& name) {
    auto [it, fresh] = ids_.try_emplace(name, static_cast<std::int32_t>(ids_.size()));
    return it->second;
  }

private:
  std::unordered_map<std::string, std::int32_t> ids_;
};

/// Append `s` to a cache key with its length first, so concatenated fields cannot collide.
inline void append_sized(std::string& key, std::string_view s) {
  const auto n = static_cast<std::uint32_t>(s.size());
  key.append(reinterpret_cast<const char*>(&n), sizeof n);
  key.append(s);
}

} // namespace emote::render
