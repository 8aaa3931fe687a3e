#include "render/renderer.hpp"

#include "engine/core/snbt.hpp"
#include "render/content.hpp"
#include "render/display_cells.hpp"
#include "render/metadata.hpp"
#include "render/packets.hpp"
#include "render/tables.hpp"
#include "render/tracker_table.hpp"
#include "render/viewer_grid.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace emote::render {

namespace {

constexpr std::int64_t max_entity_id = std::numeric_limits<std::int32_t>::max();
/// Distinct content encodings kept per version before the cache starts over.
constexpr std::size_t content_cache_limit = 4096;
/// Distinct render.warning tuples remembered for "once per tuple" before the set starts over.
constexpr std::size_t warned_limit = 65536;
/// render.md §4 rule 5: a viewer is resynced at most once per this many ticks.
constexpr api::tick_number resync_window = 20;

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

struct display;

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

struct cached_content {
  std::string raw;
  std::int32_t state = 0;
  std::vector<std::string> warnings;
};

struct session_info {
  std::string emote, initiator, partner;
};

struct viewer {
  std::string id;
  std::uint64_t join_serial = 0, client_epoch = 0;
  std::int32_t protocol = 0;
  std::uint32_t slot = 0;
  /// Hidden players within R_p already sent, with the hide epoch they were sent for (an entry
  /// of an older epoch is stale: the player was shown, and maybe hidden again, since).
  std::vector<std::pair<std::string, std::uint64_t>> hidden_seen;
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
  std::size_t ver = 0; ///< ordinal in versions()
  std::int32_t dim = 0;
  double r2 = 0, rp2 = 0;
};

struct hidden_state {
  bool blank = false;
  std::uint64_t epoch = 0; ///< distinct for every hide
};

struct range_ref {
  std::uint32_t begin = 0, size = 0;
};

void append_sized(std::string& key, std::string_view s) {
  const auto n = static_cast<std::uint32_t>(s.size());
  key.append(reinterpret_cast<const char*>(&n), sizeof n);
  key.append(s);
}

} // namespace

struct renderer::impl {
  render_config cfg;
  std::span<const version_table* const> vers;
  const version_table* defaults = nullptr; ///< the table whose slot defaults seed new values

  // The live displays: owned by their tracker row, found by handle. Nothing walks them in
  // handle order except where render.md asks for it, and there the few found are sorted.
  tracker_table<display> trackers;             ///< T(E) of every live display
  std::vector<std::unique_ptr<display>> owned; ///< by tracker row
  /// Displays by handle: the engine's handles are the smallest free ids (playback.md §4.1), so
  /// a vector indexed by handle is compact; larger handles (another producer) go to the map.
  static constexpr api::handle_id direct_handles = api::handle_id{1} << 22;
  std::vector<display*> by_handle_direct;
  std::unordered_map<api::handle_id, display*> by_handle_far;
  std::size_t live_count = 0;
  std::unordered_map<api::session_id, std::vector<display*>> by_session; ///< ascending handle
  std::unordered_map<api::handle_id, std::uint32_t> spawn_counts;
  std::unordered_map<api::session_id, session_info> sessions;
  std::unordered_map<std::string, viewer> viewers;
  std::vector<std::uint32_t> free_slots;
  std::uint32_t next_slot = 0;
  std::unordered_map<std::string, std::int32_t> dimensions;
  std::unordered_map<std::string, hidden_state> hidden;
  std::unordered_set<std::string> warned;
  std::vector<std::unordered_map<std::string, cached_content>> content_cache;
  std::vector<empty_content> empty; ///< per version
  std::unordered_set<std::string> resync_ids;
  bool resync_everyone = false;

  render_counts counts;

  // Per step
  api::tick_number tick = 0;
  std::uint64_t stamp = 0;
  render_output* out = nullptr;
  std::span<const world::player_state* const> players;
  std::vector<active> act;            ///< viewers in join order
  std::vector<bool> protocol_present; ///< per version: some viewer uses it
  /// (id, index in step()'s players), ascending: the first of equal ids is the earliest joined.
  std::vector<std::pair<std::string_view, std::uint32_t>> player_index;
  std::vector<range_ref> last_to;   ///< per version: the last recipients range
  std::vector<range_ref> delimiter; ///< per version: this step's bundle_delimiter bytes
  std::vector<std::uint64_t> delimiter_stamp;
  std::vector<std::uint32_t> scratch_to; ///< an audience's indexes grouped by version
  std::vector<std::uint32_t> bucket_count, bucket_begin, bucket_fill; ///< per version
  std::size_t only_version = static_cast<std::size_t>(-1);            ///< when every viewer has one
  std::uint64_t group_serial = 0;            ///< of the last group_by_version
  /// flush_changes' last audience: its tracker bits and whether it was empty, valid while
  /// group_serial equals last_audience_serial (step() moves group_serial on).
  std::vector<std::uint64_t> last_audience_bits;
  std::uint64_t last_audience_serial = static_cast<std::uint64_t>(-1);
  bool last_audience_empty = true;
  std::vector<std::uint64_t> grouped_serial; ///< per version
  std::vector<range_ref> grouped_to;         ///< per version
  std::vector<const active*> audience;
  std::vector<metadata_entry> entries;
  api::session_id group = 0;
  bool in_group = false;
  bool building = true; ///< this step's packets are received (step()'s build_packets)
  std::vector<display*> changed;
  static constexpr std::uint32_t no_act = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> slot_act; ///< per viewer slot: its index in `act`, or no_act
  std::vector<std::uint32_t> act_scratch;
  // Tracking pass scratch, kept between steps.
  viewer_grid near_viewers;            ///< this step's viewers, built after reconcile_viewers
  display_cells cells;                  ///< the tracking pass's rows by cell
  std::vector<std::uint64_t> keep_mask;  ///< per cell: the slots whose range holds the whole box
  std::vector<std::uint32_t> edge_viewers; ///< per cell: act indexes tested row by row
  std::vector<std::tuple<std::uint32_t, std::int32_t, display*>> arriving, arriving_scratch;
  std::vector<std::pair<std::uint32_t, std::int32_t>> leaving, leaving_scratch; ///< (act, id)
  std::vector<std::uint32_t> viewer_begin; ///< order_by_viewer's buckets

  /// Order (act index, entity id, ...) items by act index, then entity id: a stable counting
  /// sort by viewer, then each viewer's run sorted by id unless the walk already gave it in order
  /// (rows are mostly in handle order), so a tick where every viewer meets every display does
  /// not sort them all.
  template <class T>
  void order_by_viewer(std::vector<T>& items, std::vector<T>& scratch) {
    viewer_begin.assign(act.size() + 1, 0);
    for (const T& x : items) {
      ++viewer_begin[std::get<0>(x) + 1];
    }
    for (std::size_t i = 1; i < viewer_begin.size(); ++i) {
      viewer_begin[i] += viewer_begin[i - 1];
    }
    scratch.resize(items.size());
    for (const T& x : items) {
      scratch[viewer_begin[std::get<0>(x)]++] = x;
    }
    // viewer_begin[i] is now the end of viewer i's run.
    std::size_t begin = 0;
    const auto by_id = [](const T& x, const T& y) { return std::get<1>(x) < std::get<1>(y); };
    for (std::size_t i = 0; i < act.size(); ++i) {
      const auto first = scratch.begin() + static_cast<std::ptrdiff_t>(begin);
      const auto last = scratch.begin() + static_cast<std::ptrdiff_t>(viewer_begin[i]);
      if (!std::is_sorted(first, last, by_id)) {
        std::sort(first, last, by_id);
      }
      begin = viewer_begin[i];
    }
    items.swap(scratch);
  }
  std::vector<std::int32_t> destroy_ids;
  std::vector<display*> spawn_list;
  std::string destroy_bytes;
  std::vector<range_ref> last_destroy;
  std::vector<std::pair<std::string, std::uint64_t>> now_seen;
  struct hidden_at {
    double x = 0, z = 0;
    std::int32_t dim = 0;
    std::uint32_t index = 0; ///< in the tracking pass's hidden list (join order)
  };
  std::vector<hidden_at> hidden_by_x; ///< the tracking pass's hidden players, ascending x
  std::vector<std::uint32_t> hidden_near;
  std::vector<std::uint64_t> now_epochs; ///< the tracking pass's hidden players near a viewer
  /// The epochs a viewer was sent before this step: an open-addressing set reset per viewer by
  /// a stamp (a hide's epoch is never 0).
  struct epoch_set {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> slots; ///< (epoch, stamp)
    std::uint64_t stamp = 0;
    std::size_t mask = 0;
    void reset(std::size_t count) {
      const std::size_t cap = std::bit_ceil(std::max<std::size_t>(16, 2 * count));
      if (slots.size() < cap) {
        slots.assign(cap, {0, 0});
        stamp = 0;
      }
      mask = cap - 1;
      ++stamp;
    }
    [[nodiscard]] std::size_t home(std::uint64_t e) const noexcept {
      return static_cast<std::size_t>((e * 0x9E3779B97F4A7C15ULL) >> 20) & mask;
    }
    void insert(std::uint64_t e) {
      for (std::size_t i = home(e);; i = (i + 1) & mask) {
        if (slots[i].second != stamp) {
          slots[i] = {e, stamp};
          return;
        }
        if (slots[i].first == e) {
          return;
        }
      }
    }
    [[nodiscard]] bool contains(std::uint64_t e) const noexcept {
      for (std::size_t i = home(e);; i = (i + 1) & mask) {
        if (slots[i].second != stamp) {
          return false;
        }
        if (slots[i].first == e) {
          return true;
        }
      }
    }
  } seen_before;
  std::vector<std::uint64_t> near_bits; ///< the hidden players near a viewer, by join order
  std::uint64_t hide_epoch = 0;

  impl(render_config c, std::span<const version_table* const> tables) : cfg(c), vers(tables) {
    defaults = vers.empty() ? nullptr : vers.back();
    content_cache.resize(vers.size());
    last_to.resize(vers.size());
    delimiter.resize(vers.size());
    delimiter_stamp.resize(vers.size(), 0);
    protocol_present.resize(vers.size(), false);
    bucket_count.resize(vers.size());
    bucket_begin.resize(vers.size());
    bucket_fill.resize(vers.size());
    grouped_serial.resize(vers.size(), 0);
    grouped_to.resize(vers.size());
    for (const version_table* v : vers) {
      empty.push_back(empty_contents(*v));
    }
  }

  // ---------------------------------------------------------------------------------------
  // Lookups

  /// "767, 768, ...": the protocols of this renderer's tables.
  [[nodiscard]] std::string supported_text() const {
    std::string text;
    for (const version_table* v : vers) {
      text += (text.empty() ? "" : ", ") + std::to_string(v->protocol);
    }
    return text;
  }

  [[nodiscard]] std::size_t ordinal(const version_table* v) const noexcept {
    for (std::size_t i = 0; i < vers.size(); ++i) {
      if (vers[i] == v) {
        return i;
      }
    }
    return 0;
  }

  std::int32_t dimension_id(const std::string& name) {
    auto [it, fresh] = dimensions.try_emplace(name, static_cast<std::int32_t>(dimensions.size()));
    return it->second;
  }

  display* find(api::handle_id h) noexcept {
    if (h >= 0 && h < direct_handles) {
      const auto k = static_cast<std::size_t>(h);
      return k < by_handle_direct.size() ? by_handle_direct[k] : nullptr;
    }
    const auto it = by_handle_far.find(h);
    return it == by_handle_far.end() ? nullptr : it->second;
  }

  void index_handle(api::handle_id h, display* d) {
    if (h >= 0 && h < direct_handles) {
      const auto k = static_cast<std::size_t>(h);
      if (k >= by_handle_direct.size()) {
        by_handle_direct.resize(k + 1, nullptr);
      }
      by_handle_direct[k] = d;
    } else if (d != nullptr) {
      by_handle_far[h] = d;
    } else {
      by_handle_far.erase(h);
    }
  }

  const world::player_state* player(std::string_view id) const noexcept {
    const auto it = std::lower_bound(player_index.begin(), player_index.end(), id,
                                     [](const std::pair<std::string_view, std::uint32_t>& e,
                                        std::string_view k) { return e.first < k; });
    return it == player_index.end() || it->first != id ? nullptr : players[it->second];
  }

  [[nodiscard]] double range_for(const world::player_state& p, double limit) const noexcept {
    // render.md §4: vd = clamp(view_distance, 2, render.view_distance); R = min(limit, vd * 16).
    const std::int32_t requested = p.view_distance.value_or(cfg.view_distance);
    const std::int32_t vd = std::max(2, std::min(requested, cfg.view_distance));
    return std::min(limit, static_cast<double>(vd) * 16.0);
  }

  static bool within(const active& a, std::int32_t dim, double x, double z, double r2) {
    if (a.dim != dim) {
      return false;
    }
    return distance2(x - a.p->pos.x, z - a.p->pos.z) <= r2;
  }
  static bool within(const active& a, std::int32_t dim, const core::dvec3& pos, double r2) {
    return within(a, dim, pos.x, pos.z, r2);
  }

  // ---------------------------------------------------------------------------------------
  // Warnings (render.md §5.4: once per (emote, node or player, protocol, message))

  void warn(const std::string& emote, const std::string& node, const std::string& player_id,
            std::int32_t protocol, const std::string& message) {
    std::string key;
    append_sized(key, emote);
    append_sized(key, node);
    append_sized(key, player_id);
    key.append(reinterpret_cast<const char*>(&protocol), sizeof protocol);
    key.append(message);
    if (warned.size() >= warned_limit) {
      warned.clear(); // bounded memory: a warning may then be repeated, never lost
    }
    if (warned.insert(std::move(key)).second) {
      out->warnings.push_back(api::ev_render_warning{emote, node, player_id, protocol, message});
    }
  }

  void warn_display(const display& d, std::size_t ver, const std::vector<std::string>& msgs) {
    for (const std::string& m : msgs) {
      warn(d.emote, d.node, "", vers[ver]->protocol, m);
    }
  }

  void warn_nbt(display& d, std::size_t ver) {
    per_version& pv = d.versions[ver];
    if (!pv.nbt_warned) {
      pv.nbt_warned = true;
      warn_display(d, ver, d.nbt_warnings);
    }
  }

  // ---------------------------------------------------------------------------------------
  // Output (render.md §6)

  range_ref recipients(std::size_t ver, std::span<const std::uint32_t> to) {
    range_ref& last = last_to[ver];
    if (last.size == to.size() && last.begin + last.size <= out->recipients.size() &&
        std::equal(to.begin(), to.end(), out->recipients.begin() + last.begin)) {
      return last;
    }
    last.begin = static_cast<std::uint32_t>(out->recipients.size());
    last.size = static_cast<std::uint32_t>(to.size());
    out->recipients.insert(out->recipients.end(), to.begin(), to.end());
    return last;
  }

  void entry(std::size_t ver, std::span<const std::uint32_t> to, range_ref data) {
    const range_ref r = recipients(ver, to);
    out->entries.push_back(
        packet_entry{vers[ver]->protocol, r.begin, r.size, data.begin, data.size});
  }

  /// Build one packet into the output data; an empty build (nothing to send) is no packet.
  template <class F>
  std::optional<range_ref> build(F&& f) {
    const auto begin = static_cast<std::uint32_t>(out->data.size());
    byte_writer w(out->data);
    f(w);
    const auto size = static_cast<std::uint32_t>(out->data.size() - begin);
    if (size == 0) {
      return std::nullopt;
    }
    return range_ref{begin, size};
  }

  /// One step for an audience in join order (render.md §6): one entry per version present,
  /// ascending protocol, its packet from `f(ver)` (nullopt: nothing to send to that version).
  template <class F>
  void shared_ranges(std::span<const active* const> aud, F&& f) {
    group_by_version(aud);
    grouped_ranges(f);
  }

  /// Group an audience by version (counting sort, join order kept within a version) for the
  /// grouped_ranges/grouped_step calls that follow (several steps of one audience share it).
  void group_by_version(std::span<const active* const> aud) {
    ++group_serial;
    std::fill(bucket_count.begin(), bucket_count.end(), 0U);
    if (only_version < vers.size()) {
      // Every viewer on one version: the audience as it is.
      scratch_to.resize(aud.size());
      for (std::size_t k = 0; k < aud.size(); ++k) {
        scratch_to[k] = aud[k]->index;
      }
      bucket_begin[only_version] = 0;
      bucket_count[only_version] = static_cast<std::uint32_t>(aud.size());
      return;
    }
    for (const active* a : aud) {
      ++bucket_count[a->ver];
    }
    std::uint32_t at = 0;
    for (std::size_t ver = 0; ver < vers.size(); ++ver) {
      bucket_begin[ver] = at;
      at += bucket_count[ver];
    }
    scratch_to.resize(aud.size());
    std::copy(bucket_begin.begin(), bucket_begin.end(), bucket_fill.begin());
    for (const active* a : aud) {
      scratch_to[bucket_fill[a->ver]++] = a->index;
    }
  }

  /// shared_ranges for the audience of the last group_by_version().
  template <class F>
  void grouped_ranges(F&& f) {
    for (std::size_t ver = 0; ver < vers.size(); ++ver) {
      if (bucket_count[ver] == 0) {
        continue;
      }
      if (const std::optional<range_ref> data = f(ver)) {
        // The group's recipients of this version are written once for all its steps.
        range_ref to;
        if (grouped_serial[ver] == group_serial) {
          to = grouped_to[ver];
        } else {
          to = recipients(ver, std::span<const std::uint32_t>(scratch_to)
                                   .subspan(bucket_begin[ver], bucket_count[ver]));
          grouped_serial[ver] = group_serial;
          grouped_to[ver] = to;
        }
        last_to[ver] = to;
        out->entries.push_back(
            packet_entry{vers[ver]->protocol, to.begin, to.size, data->begin, data->size});
      }
    }
  }

  /// The same with the packet built once per version by `f(ver, writer)` (writing nothing:
  /// no packet).
  template <class F>
  void shared_step(std::span<const active* const> aud, F&& f) {
    group_by_version(aud);
    grouped_step(f);
  }

  /// shared_step for the audience of the last group_by_version().
  template <class F>
  void grouped_step(F&& f) {
    grouped_ranges([&](std::size_t ver) { return build([&](byte_writer& w) { f(ver, w); }); });
  }

  range_ref delimiter_bytes(std::size_t ver) {
    if (delimiter_stamp[ver] != stamp) {
      delimiter_stamp[ver] = stamp;
      delimiter[ver] = *build([&](byte_writer& w) { write_bundle_delimiter(w, *vers[ver]); });
    }
    return delimiter[ver];
  }

  void single(const active& a, range_ref data) {
    const std::uint32_t to = a.index;
    entry(a.ver, std::span<const std::uint32_t>(&to, 1), data);
  }

  // ---------------------------------------------------------------------------------------
  // Content and metadata values

  void capture_skin(display& d) {
    d.captured = skin_capture{};
    if (!d.skin) {
      return;
    }
    auto s = sessions.find(d.session);
    if (s == sessions.end()) {
      return;
    }
    const std::string& who =
        d.skin->participant == "partner" ? s->second.partner : s->second.initiator;
    const world::player_state* p = who.empty() ? nullptr : player(who);
    if (!p) {
      return;
    }
    // render.md §5.4: skin_textures["<part>:<order>"], else ["default"], else none.
    auto t = p->skin_textures.find(d.skin->part + ":" + std::to_string(d.skin->order));
    if (t == p->skin_textures.end()) {
      t = p->skin_textures.find("default");
    }
    if (t != p->skin_textures.end()) {
      d.captured.textures = t->second;
    }
    d.captured.uuid = p->uuid;
    d.captured.name = p->name;
  }

  void invalidate_content(display& d) {
    for (per_version& pv : d.versions) {
      pv.content = content_value{};
    }
  }

  /// The display's real content for version `ver`, encoded once (warnings when first met).
  const content_value& content_for(display& d, std::size_t ver) {
    content_value& c = d.versions[ver].content;
    if (c.ready) {
      return c;
    }
    const version_table& v = *vers[ver];
    std::string key(1, static_cast<char>(d.kind));
    const std::string& source = d.kind == api::display_kind::item    ? d.item
                                : d.kind == api::display_kind::block ? d.block
                                                                     : d.text_json;
    append_sized(key, source);
    if (d.skin) {
      key.push_back('s');
      append_sized(key, d.captured.textures ? d.captured.textures->value : "");
      append_sized(key, d.captured.textures && d.captured.textures->signature
                            ? *d.captured.textures->signature
                            : "");
      key.push_back(d.captured.textures ? 't' : '-');
      key.push_back(d.captured.textures && d.captured.textures->signature ? 's' : '-');
      key.push_back(d.captured.uuid ? 'u' : '-');
      if (d.captured.uuid) {
        key.append(reinterpret_cast<const char*>(d.captured.uuid->data()), d.captured.uuid->size());
      }
      append_sized(key, d.captured.name);
    }
    auto& cache = content_cache[ver];
    auto it = cache.find(key);
    if (it == cache.end()) {
      if (cache.size() >= content_cache_limit) {
        cache.clear();
      }
      cached_content cc;
      byte_writer w(cc.raw);
      const skin_profile prof{d.captured.textures ? &*d.captured.textures : nullptr,
                              d.captured.uuid ? &*d.captured.uuid : nullptr, d.captured.name};
      cc.state = write_display_content(w, v, d.kind, source, d.skin ? &prof : nullptr, cc.warnings);
      it = cache.emplace(std::move(key), std::move(cc)).first;
    }
    c.ready = true;
    c.raw = it->second.raw;
    c.state = it->second.state;
    warn_display(d, ver, it->second.warnings);
    return c;
  }

  std::int32_t mode_for(display& d, std::size_t ver) {
    per_version& pv = d.versions[ver];
    if (!pv.mode_ready) {
      pv.mode_ready = true;
      // render.md §5.3: the item display mode byte of the version (on_shelf only on 773+).
      if (auto m = item_display_mode(*vers[ver], d.item_display)) {
        pv.mode = *m;
      } else {
        pv.mode = 0;
        warn(d.emote, d.node, "", vers[ver]->protocol,
             "item_display " + d.item_display + " does not exist in this version; none is sent");
      }
    }
    return pv.mode;
  }

  /// Encode the content now for every protocol that has a viewer (render.md §5.4 warnings).
  void encode_for_viewers(display& d) {
    for (std::size_t ver = 0; ver < vers.size(); ++ver) {
      if (protocol_present[ver]) {
        if (d.visible) {
          content_for(d, ver);
        }
        if (d.kind == api::display_kind::item) {
          mode_for(d, ver);
        }
      }
    }
  }

  /// The NBT-derived entries from entity_nbt merged with the NBT-track state (render.md §5.3);
  /// `parse_msgs` are the track state's parse problems.
  void recompute_nbt(display& d, const std::vector<std::string>& parse_msgs) {
    core::nbt_compound effective = d.entity_nbt;
    core::merge_into(effective, d.nbt);
    d.nbt_warnings = d.entity_nbt_msgs;
    d.nbt_warnings.insert(d.nbt_warnings.end(), parse_msgs.begin(), parse_msgs.end());
    apply_nbt(d.values, effective, *defaults, d.ekind, d.nbt_warnings);
    for (per_version& pv : d.versions) {
      pv.nbt_warned = false;
    }
  }

  static core::nbt_compound parse_nbt(const std::string& snbt, std::string_view what,
                                      std::vector<std::string>& msgs) {
    auto r = core::parse_compound_snbt(snbt);
    if (!r) {
      msgs.push_back(std::string(what) + " is not valid compound SNBT (" + r.error() +
                     "); it is ignored");
      return {};
    }
    return std::move(*r);
  }

  /// The metadata entry of slot `s` (of the display's kind in version `ver`).
  void fill(display& d, std::size_t ver, const metadata_slot& s, metadata_entry& e) {
    if (s.field == field::content) {
      // The content is encoded (once per version) only when it is shown.
      const content_value* c = d.visible ? &content_for(d, ver) : nullptr;
      set_content_entry(e, s, d.kind, d.visible, c ? std::string_view(c->raw) : std::string_view(),
                        c ? c->state : 0, empty[ver]);
      return;
    }
    entry_value v = at(d.values, s.field);
    if (s.field == field::item_display_mode) {
      v.i = mode_for(d, ver);
    }
    set_value_entry(e, s, v);
  }

  void write_spawn_metadata(display& d, std::size_t ver, byte_writer& w) {
    entries.clear();
    warn_nbt(d, ver);
    // Ascending index: the version's slot order (render.md §5.1).
    for (const metadata_slot& s : layout(*vers[ver], d.ekind).slots) {
      metadata_entry e;
      fill(d, ver, s, e);
      if (entry_differs_from_default(s, e, empty[ver])) {
        entries.push_back(e);
      }
    }
    if (!entries.empty()) {
      write_entity_metadata(w, *vers[ver], d.entity_id, entries);
    }
  }

  void write_changes(display& d, std::size_t ver, byte_writer& w) {
    entries.clear();
    for (const metadata_slot& s : layout(*vers[ver], d.ekind).slots) {
      if ((d.dirty & field_bit(s.field)) != 0) {
        metadata_entry e;
        fill(d, ver, s, e);
        entries.push_back(e);
      }
    }
    if (!entries.empty()) {
      write_entity_metadata(w, *vers[ver], d.entity_id, entries);
    }
  }

  // ---------------------------------------------------------------------------------------
  // Viewers (render.md §4 rules 3 and 4)

  void forget_slot(std::uint32_t slot) { trackers.forget(slot); }

  void drop(viewer& v) {
    forget_slot(v.slot);
    free_slots.push_back(v.slot);
  }

  void reconcile_viewers() {
    for (auto& [id, v] : viewers) {
      v.seen = false;
    }
    act.clear();
    std::fill(protocol_present.begin(), protocol_present.end(), false);
    player_index.clear();
    for (std::uint32_t i = 0; i < players.size(); ++i) {
      const world::player_state* p = players[i];
      if (!p) {
        continue;
      }
      player_index.emplace_back(p->id, i);
      if (!p->protocol) {
        continue;
      }
      const version_table* table = find_version(vers, *p->protocol);
      if (!table) {
        warn("", "", p->id, *p->protocol,
             "protocol " + std::to_string(*p->protocol) + " is not supported (supported: " +
                 supported_text() + "); no packets are rendered for it");
        continue;
      }
      auto [it, fresh] = viewers.try_emplace(p->id);
      viewer& v = it->second;
      if (!fresh && v.seen) {
        continue; // the same id twice: the first one is the viewer
      }
      if (!fresh && v.join_serial != p->join_serial) {
        drop(v); // rule 3: a new join of the same name starts from nothing
        fresh = true;
      }
      if (fresh) {
        v = viewer{};
        v.id = p->id;
        v.join_serial = p->join_serial;
        v.client_epoch = p->client_epoch;
        if (!free_slots.empty()) {
          v.slot = free_slots.back();
          free_slots.pop_back();
        } else {
          v.slot = next_slot++;
        }
      } else if (v.client_epoch != p->client_epoch || v.protocol != *p->protocol) {
        // rule 4: the client discarded its entities; nothing is sent, the tracking pass refills.
        forget_slot(v.slot);
        v.hidden_seen.clear();
        v.client_epoch = p->client_epoch;
      }
      v.protocol = *p->protocol;
      v.seen = true;
      active a;
      a.v = &v;
      a.index = i;
      a.p = p;
      a.ver = ordinal(table);
      a.dim = dimension_id(p->dimension);
      const double r = range_for(*p, cfg.display_range);
      const double rp = range_for(*p, cfg.player_range);
      // A negative range holds nothing (the configuration refuses one; this keeps it so).
      a.r2 = r < 0 ? -1 : r * r;
      a.rp2 = rp < 0 ? -1 : rp * rp;
      protocol_present[a.ver] = true;
      act.push_back(a);
    }
    std::sort(player_index.begin(), player_index.end());
    for (auto it = viewers.begin(); it != viewers.end();) {
      if (!it->second.seen) {
        drop(it->second); // rule 3: dropped with nothing sent
        it = viewers.erase(it);
      } else {
        ++it;
      }
    }
    trackers.reserve_slots(next_slot);
    slot_act.assign(next_slot, no_act);
    for (std::size_t i = 0; i < act.size(); ++i) {
      active& a = act[i];
      viewer& v = *a.v;
      if (resync_everyone || resync_ids.count(v.id) != 0) {
        ++counts.resync_requests;
        v.resync_pending = true;
      }
      // render.md §4 rule 5: at most one resync per viewer per resync_window ticks; a request
      // inside the window waits for its end.
      v.resync = v.resync_pending &&
                 (!v.last_resync || tick >= *v.last_resync + resync_window);
      if (v.resync) {
        ++counts.resyncs;
        v.resync_pending = false;
        v.last_resync = tick;
      }
      slot_act[v.slot] = static_cast<std::uint32_t>(i);
    }
    resync_everyone = false;
    resync_ids.clear();
    // Hidden players that left are no longer anyone's concern.
    for (auto it = hidden.begin(); it != hidden.end();) {
      it = player(it->first) != nullptr ? std::next(it) : hidden.erase(it);
    }
  }

  /// The viewers tracking `d`, in join order: a walk over T(E)'s slots, not over every viewer.
  void audience_of(const display& d) {
    audience.clear();
    act_scratch.clear();
    trackers.each(d.row, [&](std::uint32_t s) {
      if (s < slot_act.size() && slot_act[s] != no_act) {
        act_scratch.push_back(slot_act[s]);
      }
    });
    if (!std::is_sorted(act_scratch.begin(), act_scratch.end())) {
      std::sort(act_scratch.begin(), act_scratch.end());
    }
    for (const std::uint32_t i : act_scratch) {
      audience.push_back(&act[i]);
    }
  }

  // ---------------------------------------------------------------------------------------
  // Event pass (render.md §4 rule 1)

  void spawn_bundle_step(display& d) {
    // render.md §5.1: bundle_delimiter, spawn_entity, entity_metadata (when any entry differs
    // from its default), bundle_delimiter; each packet one step.
    auto delim = [&](std::size_t ver) { return std::optional<range_ref>(delimiter_bytes(ver)); };
    group_by_version(audience);
    grouped_ranges(delim);
    grouped_step([&](std::size_t ver, byte_writer& w) {
      write_spawn_entity(w, *vers[ver], d.entity_id, d.uuid, d.ekind, d.pos, d.yaw);
    });
    grouped_step([&](std::size_t ver, byte_writer& w) { write_spawn_metadata(d, ver, w); });
    grouped_ranges(delim);
  }

  void on_spawn(const api::ev_display_spawn& sp, bool removed_same_frame) {
    const std::uint32_t n = ++spawn_counts[sp.handle];
    if (removed_same_frame || sp.handle < 1 || cfg.entity_id_base + sp.handle > max_entity_id) {
      return; // render.md §4: spawned and removed in one frame sends nothing
    }
    if (display* old = find(sp.handle)) {
      remove_displays(old->session, std::vector<api::handle_id>{sp.handle});
    }
    auto d = std::make_unique<display>();
    d->handle = sp.handle;
    d->session = sp.session;
    d->node = sp.node;
    if (auto s = sessions.find(sp.session); s != sessions.end()) {
      d->emote = s->second.emote;
    }
    d->kind = sp.kind;
    d->ekind = to_entity_kind(sp.kind);
    d->space = sp.space;
    d->entity_id = static_cast<std::int32_t>(cfg.entity_id_base + sp.handle);
    d->uuid = display_uuid(cfg.uuid_seed, d->entity_id, n);
    d->dimension = sp.dimension;
    d->dim = dimension_id(sp.dimension);
    d->pos = sp.position;
    d->yaw = sp.yaw;
    d->transform = sp.transform;
    d->item = sp.item;
    d->item_display = sp.item_display;
    d->block = sp.block;
    d->text_json = sp.text_json;
    d->visible = sp.visible;
    d->skin = sp.skin;
    d->versions.resize(vers.size());
    d->values = default_values(*defaults, d->ekind);
    set_transform(d->values, sp.transform);
    at(d->values, field::teleport_duration).i = sp.teleport_duration;
    if (sp.entity_nbt) {
      d->entity_nbt = parse_nbt(*sp.entity_nbt, "entity_nbt", d->entity_nbt_msgs);
    }
    std::vector<std::string> parse_msgs;
    if (sp.nbt) {
      d->nbt = parse_nbt(*sp.nbt, "nbt", parse_msgs);
    }
    recompute_nbt(*d, parse_msgs);
    if (d->visible) {
      capture_skin(*d);
    }
    display& ref = *d;
    ref.row = trackers.add(&ref);
    trackers.place(ref.row, ref.dim, ref.pos.x, ref.pos.z, ref.entity_id);
    if (owned.size() <= ref.row) {
      owned.resize(ref.row + 1);
    }
    owned[ref.row] = std::move(d);
    index_handle(ref.handle, &ref);
    ++live_count;
    auto& list = by_session[ref.session];
    list.insert(std::lower_bound(list.begin(), list.end(), ref.handle,
                                 [](const display* x, api::handle_id k) { return x->handle < k; }),
                &ref);
    for (std::size_t ver = 0; ver < vers.size(); ++ver) {
      if (protocol_present[ver]) {
        warn_nbt(ref, ver);
      }
    }
    encode_for_viewers(ref);
    // The viewers in range, in join order.
    act_scratch.clear();
    near_viewers.near(ref.dim, ref.pos.x, ref.pos.z, [&](std::uint32_t i) {
      if (within(act[i], ref.dim, ref.pos, act[i].r2)) {
        act_scratch.push_back(i);
      }
    });
    std::sort(act_scratch.begin(), act_scratch.end());
    audience.clear();
    for (const std::uint32_t i : act_scratch) {
      audience.push_back(&act[i]);
      trackers.set(ref.row, act[i].v->slot);
    }
    spawn_bundle_step(ref);
  }

  void queue(display& d) {
    if (!d.queued) {
      d.queued = true;
      changed.push_back(&d);
    }
  }

  void set_teleport_duration(display& d, std::int32_t tp) {
    if (at(d.values, field::teleport_duration).i != tp) {
      at(d.values, field::teleport_duration).i = tp;
      d.dirty |= field_bit(field::teleport_duration);
    }
  }

  void on_move(const api::ev_display_move& mv) {
    auto it = by_session.find(mv.session);
    if (it == by_session.end()) {
      return;
    }
    // The displays are far apart in memory: ask for all of them before touching the first.
    for (const display* d : it->second) {
      __builtin_prefetch(d);
      __builtin_prefetch(reinterpret_cast<const char*>(d) + 64);
      __builtin_prefetch(reinterpret_cast<const char*>(d) + 128);
    }
    for (display* d : it->second) {
      if (d->space == mv.space) {
        d->pos = mv.position;
        trackers.move(d->row, d->pos.x, d->pos.z);
        d->moved = true;
        set_teleport_duration(*d, mv.teleport_duration);
        queue(*d);
      }
    }
  }

  void on_view(const api::ev_display_view& vw) {
    auto it = by_session.find(vw.session);
    if (it == by_session.end()) {
      return;
    }
    for (display* d : it->second) {
      d->yaw = vw.yaw;
      d->turned = true;
      set_teleport_duration(*d, vw.teleport_duration);
      queue(*d);
    }
  }

  void on_update(display& d, const api::ev_display_update& up) {
    if (up.transform) {
      // render.md §5.2: 8 always; 9 and 11-14 when they differ (binary32 bits).
      d.dirty |= field_bit(field::interpolation_start);
      d.dirty |= update_transform(d.values, *up.transform, up.interpolation_duration);
      d.transform = *up.transform;
    }
    bool content_changed = false;
    if (up.item && d.kind == api::display_kind::item && *up.item != d.item) {
      d.item = *up.item;
      invalidate_content(d);
      content_changed = d.visible;
    }
    if (up.visible && *up.visible != d.visible) {
      d.visible = *up.visible;
      content_changed = true;
    }
    if (content_changed) {
      d.dirty |= field_bit(field::content);
      if (d.visible) {
        capture_skin(d);
        invalidate_content(d);
        encode_for_viewers(d);
      }
    }
    if (up.nbt) {
      std::vector<std::string> parse_msgs;
      d.nbt = parse_nbt(*up.nbt, "nbt", parse_msgs);
      const display_values before = d.values;
      recompute_nbt(d, parse_msgs);
      for (std::size_t ver = 0; ver < vers.size(); ++ver) {
        if (protocol_present[ver]) {
          warn_nbt(d, ver);
        }
      }
      d.dirty |= changed_entries(before, d.values);
    }
    queue(d);
  }

  /// The changes of the current session group (render.md §4 rule 1, second bullet).
  void flush_changes() {
    std::sort(changed.begin(), changed.end(),
              [](const display* a, const display* b) { return a->handle < b->handle; });
    for (std::size_t k = 0; k < changed.size(); ++k) {
      display* d = changed[k];
      if (k + 2 < changed.size()) {
        trackers.prefetch(changed[k + 2]->row);
      }
      d->queued = false;
      // The displays of a session mostly share their trackers: an audience equal to the last
      // one grouped (the same bits, nothing grouped since) is that grouping again.
      const std::uint64_t* bits = trackers.words(d->row);
      const std::size_t stride = trackers.stride();
      if (building && !(last_audience_serial == group_serial && last_audience_bits.size() == stride &&
            std::equal(bits, bits + stride, last_audience_bits.begin()))) {
        audience_of(*d);
        if (!audience.empty()) {
          group_by_version(audience);
        }
        last_audience_empty = audience.empty();
        last_audience_bits.assign(bits, bits + stride);
        last_audience_serial = group_serial;
      }
      if (!last_audience_empty && building) {
        if (d->moved) {
          grouped_step([&](std::size_t ver, byte_writer& w) {
            write_absolute_move(w, *vers[ver], d->entity_id, d->pos, d->yaw);
          });
        }
        if (d->turned) {
          grouped_step([&](std::size_t ver, byte_writer& w) {
            write_entity_look(w, *vers[ver], d->entity_id, d->yaw);
          });
        }
        if (d->dirty != 0) {
          grouped_step([&](std::size_t ver, byte_writer& w) { write_changes(*d, ver, w); });
        }
      }
      d->moved = false;
      d->turned = false;
      d->dirty = 0;
    }
    changed.clear();
  }

  /// display.remove (render.md §4 rule 1, third bullet): per viewer one entity_destroy of its
  /// tracked entities among `handles`, ascending; equal packets share an entry.
  void remove_displays(api::session_id session, std::vector<api::handle_id> handles) {
    std::sort(handles.begin(), handles.end());
    handles.erase(std::unique(handles.begin(), handles.end()), handles.end());
    std::vector<display*> gone;
    for (api::handle_id h : handles) {
      if (display* d = find(h); d && d->session == session) {
        gone.push_back(d);
      }
    }
    struct pending {
      std::size_t ver;
      std::vector<std::int32_t> ids;
      range_ref data;
      std::vector<std::uint32_t> to;
    };
    std::vector<pending> pend;
    // Who tracks what: a walk over each gone display's trackers, then per viewer in join order
    // its entity ids ascending (gone is ascending handle).
    std::vector<std::pair<std::uint32_t, std::int32_t>> tracking;
    for (display* d : gone) {
      trackers.each(d->row, [&](std::uint32_t s) {
        if (s < slot_act.size() && slot_act[s] != no_act) {
          tracking.emplace_back(slot_act[s], d->entity_id);
        }
      });
    }
    std::stable_sort(tracking.begin(), tracking.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<std::int32_t> ids;
    for (std::size_t k = 0; k < tracking.size();) {
      const active& a = act[tracking[k].first];
      ids.clear();
      for (; k < tracking.size() && &act[tracking[k].first] == &a; ++k) {
        ids.push_back(tracking[k].second);
      }
      // Equal lists on one version are one byte string: one entry (render.md §6).
      auto same = std::find_if(pend.begin(), pend.end(),
                               [&](const pending& p) { return p.ver == a.ver && p.ids == ids; });
      if (same != pend.end()) {
        same->to.push_back(a.index);
        continue;
      }
      const range_ref data =
          *build([&](byte_writer& w) { write_entity_destroy(w, *vers[a.ver], ids); });
      pend.push_back(pending{a.ver, ids, data, {a.index}});
    }
    std::stable_sort(pend.begin(), pend.end(), [](const pending& x, const pending& y) {
      return x.ver != y.ver ? x.ver < y.ver : x.to.front() < y.to.front();
    });
    for (const pending& p : pend) {
      entry(p.ver, p.to, p.data);
    }
    for (display* d : gone) {
      auto& list = by_session[d->session];
      list.erase(std::remove(list.begin(), list.end(), d), list.end());
      if (list.empty()) {
        by_session.erase(d->session);
      }
      if (d->queued) {
        changed.erase(std::remove(changed.begin(), changed.end(), d), changed.end());
      }
      index_handle(d->handle, nullptr);
      --live_count;
      trackers.remove(d->row);
    }
    for (display* d : gone) {
      owned[d->row].reset(); // last: `d` is gone
    }
  }

  void enter_group(api::session_id s) {
    if (in_group && group == s) {
      return;
    }
    flush_changes();
    in_group = true;
    group = s;
  }

  void scan_sessions(const api::frame& f) {
    for (const api::event& e : f.events) {
      if (const auto* st = std::get_if<api::ev_playback_started>(&e)) {
        session_info& s = sessions[st->session];
        s.emote = st->emote;
        if (st->role == api::role::partner) {
          s.partner = st->player;
        } else {
          s.initiator = st->player;
        }
      } else if (const auto* r = std::get_if<api::ev_partner_reserved>(&e)) {
        session_info& s = sessions[r->session];
        s.initiator = r->initiator;
        s.partner = r->partner;
      } else if (const auto* m = std::get_if<api::ev_partner_matched>(&e)) {
        session_info& s = sessions[m->session];
        s.initiator = m->initiator;
        s.partner = m->partner;
      }
    }
  }

  void end_sessions(const api::frame& f) {
    for (const api::event& e : f.events) {
      if (const auto* st = std::get_if<api::ev_playback_stopped>(&e)) {
        auto it = sessions.find(st->session);
        if (it != sessions.end() && it->second.initiator == st->player) {
          sessions.erase(it);
        }
      }
    }
  }

  void event_pass(const api::frame& f) {
    // (session, handle) pairs removed in this frame: a spawn among them sends nothing.
    std::vector<std::pair<api::session_id, api::handle_id>> removed;
    for (const api::event& e : f.events) {
      if (const auto* rm = std::get_if<api::ev_display_remove>(&e)) {
        for (api::handle_id h : rm->handles) {
          removed.emplace_back(rm->session, h);
        }
      }
    }
    std::sort(removed.begin(), removed.end());
    in_group = false;
    for (const api::event& e : f.events) {
      if (const auto* sp = std::get_if<api::ev_display_spawn>(&e)) {
        enter_group(sp->session);
        on_spawn(*sp, std::binary_search(removed.begin(), removed.end(),
                                         std::make_pair(sp->session, sp->handle)));
      } else if (const auto* mv = std::get_if<api::ev_display_move>(&e)) {
        enter_group(mv->session);
        on_move(*mv);
      } else if (const auto* vw = std::get_if<api::ev_display_view>(&e)) {
        enter_group(vw->session);
        on_view(*vw);
      } else if (const auto* up = std::get_if<api::ev_display_update>(&e)) {
        if (display* d = find(up->handle)) {
          enter_group(d->session);
          on_update(*d, *up);
        }
      } else if (const auto* rm = std::get_if<api::ev_display_remove>(&e)) {
        enter_group(rm->session);
        flush_changes();
        remove_displays(rm->session, rm->handles);
      }
    }
    flush_changes();
    for (const api::event& e : f.events) {
      if (const auto* vis = std::get_if<api::ev_player_visibility>(&e)) {
        on_visibility(*vis);
      }
    }
  }

  // ---------------------------------------------------------------------------------------
  // Player visibility (render.md §5.5)

  std::int8_t flags_of(const world::player_state& p, bool invisible) const noexcept {
    player_flags f;
    f.on_fire = p.on_fire;
    f.sneaking = p.sneaking;
    f.sprinting = p.sprinting;
    f.swimming = p.swimming;
    f.invisible = invisible;
    f.glowing = p.glowing;
    f.gliding = p.gliding;
    return shared_flags_byte(f);
  }

  void write_flags(byte_writer& w, std::size_t ver, const world::player_state& p, bool invisible) {
    metadata_entry e;
    e.index = vers[ver]->player_flags_index;
    e.kind = serializer::byte;
    e.i = flags_of(p, invisible);
    write_entity_metadata(w, *vers[ver], *p.entity_id, std::span<const metadata_entry>(&e, 1));
  }

  void on_visibility(const api::ev_player_visibility& ev) {
    // Showing a player makes the viewers' entries for it stale (their epoch is no longer its
    // hide's), so a later hide sends the packets again.
    std::uint64_t epoch = 0;
    if (ev.hidden) {
      epoch = ++hide_epoch;
      hidden[ev.player] = hidden_state{ev.blank_equipment, epoch};
    } else {
      hidden.erase(ev.player);
    }
    const world::player_state* p = player(ev.player);
    if (!p || !p->entity_id) {
      return;
    }
    const std::int32_t dim = dimension_id(p->dimension);
    audience.clear();
    for (const active& a : act) {
      if (a.p == p || within(a, dim, p->pos, a.rp2)) {
        audience.push_back(&a);
      }
    }
    const std::vector<const active*> flag_audience = audience;
    shared_step(flag_audience,
                [&](std::size_t ver, byte_writer& w) { write_flags(w, ver, *p, ev.hidden); });
    audience.clear();
    for (const active* a : flag_audience) {
      if (a->p != p) {
        audience.push_back(a);
        if (ev.hidden) {
          // The epoch is this hide's own: no viewer has an entry for it yet.
          a->v->hidden_seen.emplace_back(ev.player, epoch);
        }
      }
    }
    if (ev.blank_equipment) {
      shared_step(audience, [&](std::size_t ver, byte_writer& w) {
        write_blank_equipment(w, *vers[ver], *p->entity_id);
      });
    }
  }

  // ---------------------------------------------------------------------------------------
  // Tracking pass (render.md §4 rule 2, rule 5)

  void bundle_for(display& d, std::size_t ver) {
    per_version& pv = d.versions[ver];
    if (pv.bundle_stamp == stamp) {
      return;
    }
    pv.bundle_stamp = stamp;
    const range_ref s = *build([&](byte_writer& w) {
      write_spawn_entity(w, *vers[ver], d.entity_id, d.uuid, d.ekind, d.pos, d.yaw);
    });
    pv.spawn_begin = s.begin;
    pv.spawn_size = s.size;
    const auto m = build([&](byte_writer& w) { write_spawn_metadata(d, ver, w); });
    pv.meta_begin = m ? m->begin : 0;
    pv.meta_size = m ? m->size : 0;
  }

  struct hidden_now {
    const world::player_state* p = nullptr;
    std::int32_t dim = 0;
    bool blank = false;
    std::uint64_t epoch = 0;
    std::vector<range_ref> flags, equipment; ///< per version, built on first use
  };
  std::vector<hidden_now> hidden_list; ///< the tracking pass's, storage kept between steps

  void tracking_pass() {
    last_destroy.assign(vers.size(), range_ref{});
    // The hidden players with an entity id, in join order (the list's storage is kept).
    std::size_t hidden_count = 0;
    if (!hidden.empty()) {
      for (const world::player_state* p : players) {
        if (!p || !p->entity_id) {
          continue;
        }
        if (auto hs = hidden.find(p->id); hs != hidden.end()) {
          if (hidden_count == hidden_list.size()) {
            hidden_list.emplace_back();
          }
          hidden_now& h = hidden_list[hidden_count++];
          h.p = p;
          h.dim = dimension_id(p->dimension);
          h.blank = hs->second.blank;
          h.epoch = hs->second.epoch;
          h.flags.assign(vers.size(), range_ref{});
          h.equipment.assign(vers.size(), range_ref{});
        }
      }
    }
    const std::span<hidden_now> hidden_now_list(hidden_list.data(), hidden_count);
    hidden_by_x.clear();
    for (std::uint32_t k = 0; k < hidden_count; ++k) {
      const hidden_now& h = hidden_list[k];
      hidden_by_x.push_back(hidden_at{h.p->pos.x, h.p->pos.z, h.dim, k});
    }
    std::sort(hidden_by_x.begin(), hidden_by_x.end(),
              [](const hidden_at& x, const hidden_at& y) { return x.x < y.x; });
    // One walk over the displays' tracker rows decides every viewer's destroys and spawns (a
    // viewer's decisions depend only on its own tracked set and the positions, so they can all
    // be made first): the trackers out of range (or resynced) leave; the viewers in range that
    // do not track the display (now) arrive. The rows are taken cell by cell: a viewer whose
    // range holds the cell's whole box keeps tracking and arrives without a test per row, one
    // whose range misses the box leaves, and only the viewers at its edge are tested row by
    // row, so a steady crowd costs a few word operations per row. Each list is ordered by
    // (join order, entity id) below, so the walk's order does not show.
    leaving.clear();
    arriving.clear();
    const auto& rows = trackers.rows();
    const std::size_t stride = trackers.stride();
    cells.build(rows, near_viewers.cell_width() / 4);
    keep_mask.resize(stride);
    for (const display_cells::cell& c : cells.cells()) {
      std::fill(keep_mask.begin(), keep_mask.end(), 0);
      edge_viewers.clear();
      near_viewers.near_box(c.dim, c.box.min_x, c.box.max_x, c.box.min_z, c.box.max_z,
                            [&](std::uint32_t i) {
                              const active& a = act[i];
                              if (a.dim != c.dim) {
                                return;
                              }
                              switch (reach_of(c.box, a.p->pos.x, a.p->pos.z, a.r2)) {
                              case box_reach::inside:
                                if (!a.v->resync) {
                                  keep_mask[a.v->slot / 64] |= std::uint64_t{1} << (a.v->slot % 64);
                                  break;
                                }
                                edge_viewers.push_back(i); // leaves, then arrives again
                                break;
                              case box_reach::edge:
                                edge_viewers.push_back(i);
                                break;
                              case box_reach::outside:
                                break;
                              }
                            });
      for (const std::uint32_t r : cells.rows(c)) {
        const tracker_table<display>::row_info& e = rows[r];
        std::uint64_t* w = trackers.words(r);
        for (std::size_t k = 0; k < stride; ++k) {
          for (std::uint64_t b = w[k] & ~keep_mask[k]; b != 0; b &= b - 1) {
            const auto s = static_cast<std::uint32_t>(k * 64 + static_cast<std::size_t>(std::countr_zero(b)));
            const std::uint32_t i = s < slot_act.size() ? slot_act[s] : no_act;
            if (i == no_act) {
              continue;
            }
            const active& a = act[i];
            if (a.v->resync || !within(a, e.dim, e.x, e.z, a.r2)) {
              leaving.emplace_back(i, e.entity_id);
              w[k] &= ~(std::uint64_t{1} << (s % 64));
            }
          }
          for (std::uint64_t b = keep_mask[k] & ~w[k]; b != 0; b &= b - 1) {
            const auto s = static_cast<std::uint32_t>(k * 64 + static_cast<std::size_t>(std::countr_zero(b)));
            arriving.emplace_back(slot_act[s], e.entity_id, e.owner);
          }
        }
        for (const std::uint32_t i : edge_viewers) {
          if (!trackers.has(r, act[i].v->slot) && within(act[i], e.dim, e.x, e.z, act[i].r2)) {
            arriving.emplace_back(i, e.entity_id, e.owner);
          }
        }
      }
    }
    // A row at a position that is not finite is in nobody's range.
    for (const std::uint32_t r : cells.nowhere()) {
      const tracker_table<display>::row_info& e = rows[r];
      trackers.each(r, [&](std::uint32_t s) {
        const std::uint32_t i = s < slot_act.size() ? slot_act[s] : no_act;
        if (i != no_act) {
          leaving.emplace_back(i, e.entity_id);
          trackers.reset(r, s);
        }
      });
    }
    order_by_viewer(leaving, leaving_scratch);
    order_by_viewer(arriving, arriving_scratch);
    std::size_t next_leaving = 0, next_arriving = 0;
    for (std::size_t ai = 0; ai < act.size(); ++ai) {
      const active& a = act[ai];
      viewer& v = *a.v;
      destroy_ids.clear();
      for (; next_leaving < leaving.size() && leaving[next_leaving].first == ai; ++next_leaving) {
        destroy_ids.push_back(leaving[next_leaving].second);
      }
      spawn_list.clear();
      for (; next_arriving < arriving.size() && std::get<0>(arriving[next_arriving]) == ai;
           ++next_arriving) {
        spawn_list.push_back(std::get<2>(arriving[next_arriving]));
      }
      if (!destroy_ids.empty()) {
        // Viewers that leave a crowd together destroy the same ids: the bytes are kept once.
        destroy_bytes.clear();
        byte_writer w(destroy_bytes);
        write_entity_destroy(w, *vers[a.ver], destroy_ids);
        range_ref& last = last_destroy[a.ver];
        if (last.size == 0 || out->data.compare(last.begin, last.size, destroy_bytes) != 0) {
          last = range_ref{static_cast<std::uint32_t>(out->data.size()),
                           static_cast<std::uint32_t>(destroy_bytes.size())};
          out->data += destroy_bytes;
        }
        single(a, last);
      }
      for (display* d : spawn_list) {
        trackers.set(d->row, v.slot);
        bundle_for(*d, a.ver);
        const per_version& pv = d->versions[a.ver];
        single(a, delimiter_bytes(a.ver));
        single(a, range_ref{pv.spawn_begin, pv.spawn_size});
        if (pv.meta_size != 0) {
          single(a, range_ref{pv.meta_begin, pv.meta_size});
        }
        single(a, delimiter_bytes(a.ver));
      }
      if (v.resync) {
        v.hidden_seen.clear();
        v.resync = false;
      }
      now_seen.clear();
      // The hidden players within R_p, in join order: the candidates from the x-sorted list.
      hidden_near.clear();
      if (a.rp2 >= 0 && !hidden_by_x.empty()) {
        const double rp = std::sqrt(a.rp2);
        const double x = a.p->pos.x;
        near_bits.assign((hidden_count + 63) / 64, 0);
        auto it = std::lower_bound(hidden_by_x.begin(), hidden_by_x.end(), x - rp - 1,
                                   [](const hidden_at& h, double bound) { return h.x < bound; });
        for (; it != hidden_by_x.end() && it->x <= x + rp + 1; ++it) {
          if (within(a, it->dim, it->x, it->z, a.rp2)) {
            near_bits[it->index / 64] |= std::uint64_t{1} << (it->index % 64);
          }
        }
        // In join order: the bits ascending.
        for (std::size_t w = 0; w < near_bits.size(); ++w) {
          for (std::uint64_t b = near_bits[w]; b != 0; b &= b - 1) {
            hidden_near.push_back(static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(b))));
          }
        }
      }
      // A hide's epoch is distinct for every hide, so it names (player, hide) alone. A viewer
      // near the same hidden players as last step (the usual case in a crowd) has nothing to
      // send and keeps its list.
      now_epochs.clear();
      for (const std::uint32_t k : hidden_near) {
        if (hidden_now_list[k].p != a.p) {
          now_epochs.push_back(hidden_now_list[k].epoch);
        }
      }
      if (now_epochs.size() == v.hidden_seen.size() &&
          std::equal(now_epochs.begin(), now_epochs.end(), v.hidden_seen.begin(),
                     [](std::uint64_t e, const auto& seen) { return e == seen.second; })) {
        continue;
      }
      seen_before.reset(v.hidden_seen.size());
      for (const auto& seen : v.hidden_seen) {
        seen_before.insert(seen.second);
      }
      for (const std::uint32_t k : hidden_near) {
        hidden_now& h = hidden_now_list[k];
        if (h.p == a.p) {
          continue;
        }
        now_seen.emplace_back(h.p->id, h.epoch);
        if (seen_before.contains(h.epoch)) {
          continue;
        }
        // render.md §5.5: the flags, then the blank equipment, built once per version.
        if (h.flags[a.ver].size == 0) {
          h.flags[a.ver] = *build([&](byte_writer& w) { write_flags(w, a.ver, *h.p, true); });
          if (h.blank) {
            h.equipment[a.ver] = *build(
                [&](byte_writer& w) { write_blank_equipment(w, *vers[a.ver], *h.p->entity_id); });
          }
        }
        single(a, h.flags[a.ver]);
        if (h.blank) {
          single(a, h.equipment[a.ver]);
        }
      }
      v.hidden_seen.swap(now_seen);
    }
  }

  // ---------------------------------------------------------------------------------------
  // Snapshot for a new packets subscriber (render.md §4 rule 6)

  /// Every viewer's tracked state as of the last step, into `o` alone: per viewer in join order,
  /// one entity_destroy of its tracked ids, their spawn bundles (current state, ascending entity
  /// id), then the hidden players it has been sent. Tracker sets and what later steps send do not
  /// change; the render.warning records of the encodes are dropped (the shared stream had them).
  void snapshot(render_output& o) {
    o.clear();
    if (vers.empty()) {
      return;
    }
    out = &o;
    ++stamp; // bundle and delimiter caches point into the shared output: start them over
    std::fill(last_to.begin(), last_to.end(), range_ref{0, 0});
    arriving.clear();
    const auto& rows = trackers.rows();
    for (std::uint32_t r = 0; r < rows.size(); ++r) {
      const tracker_table<display>::row_info& e = rows[r];
      if (e.owner == nullptr) {
        continue;
      }
      trackers.each(r, [&](std::uint32_t s) {
        const std::uint32_t i = s < slot_act.size() ? slot_act[s] : no_act;
        if (i != no_act) {
          arriving.emplace_back(i, e.entity_id, e.owner);
        }
      });
    }
    order_by_viewer(arriving, arriving_scratch);
    std::size_t next = 0;
    for (std::size_t ai = 0; ai < act.size(); ++ai) {
      const active& a = act[ai];
      destroy_ids.clear();
      spawn_list.clear();
      for (; next < arriving.size() && std::get<0>(arriving[next]) == ai; ++next) {
        destroy_ids.push_back(std::get<1>(arriving[next]));
        spawn_list.push_back(std::get<2>(arriving[next]));
      }
      if (!destroy_ids.empty()) {
        single(a, *build([&](byte_writer& w) { write_entity_destroy(w, *vers[a.ver], destroy_ids); }));
      }
      for (display* d : spawn_list) {
        bundle_for(*d, a.ver);
        const per_version& pv = d->versions[a.ver];
        single(a, delimiter_bytes(a.ver));
        single(a, range_ref{pv.spawn_begin, pv.spawn_size});
        if (pv.meta_size != 0) {
          single(a, range_ref{pv.meta_begin, pv.meta_size});
        }
        single(a, delimiter_bytes(a.ver));
      }
      for (const auto& [id, epoch] : a.v->hidden_seen) {
        const auto hs = hidden.find(id);
        const world::player_state* p = player(id);
        if (hs == hidden.end() || hs->second.epoch != epoch || p == nullptr || !p->entity_id) {
          continue;
        }
        single(a, *build([&](byte_writer& w) { write_flags(w, a.ver, *p, true); }));
        if (hs->second.blank) {
          single(a, *build([&](byte_writer& w) {
            write_blank_equipment(w, *vers[a.ver], *p->entity_id);
          }));
        }
      }
    }
    o.warnings.clear();
    out = nullptr;
  }

  void step(const api::frame& f, std::span<const world::player_state* const> ps, render_output& o,
            bool build_packets) {
    o.clear();
    building = build_packets;
    out = &o;
    players = ps;
    tick = f.tick;
    ++stamp;
    std::fill(last_to.begin(), last_to.end(), range_ref{0, 0});
    if (vers.empty()) {
      return;
    }
    reconcile_viewers();
    ++group_serial; // the viewers (and their indexes) may have changed: no audience carries over
    only_version = static_cast<std::size_t>(-1);
    if (std::count(protocol_present.begin(), protocol_present.end(), true) == 1) {
      only_version = static_cast<std::size_t>(
          std::find(protocol_present.begin(), protocol_present.end(), true) -
          protocol_present.begin());
    }
    // The viewers by cell, for the ranges of the event and tracking passes.
    double reach = 0;
    for (const active& a : act) {
      reach = std::max({reach, a.r2, a.rp2});
    }
    near_viewers.build(act.size(), std::sqrt(reach), [&](std::size_t i) {
      return std::tuple{act[i].dim, act[i].p->pos.x, act[i].p->pos.z};
    });
    scan_sessions(f);
    event_pass(f);
    tracking_pass();
    end_sessions(f);
    if (!building) {
      // What changes state (spawns, destroys, arrivals; rare) was built as usual, so the
      // warnings of its encodes are the same; none of it is kept.
      o.entries.clear();
      o.recipients.clear();
      o.data.clear();
    }
    out = nullptr;
  }
};

renderer::renderer(render_config config) : renderer(config, versions()) {}
renderer::renderer(render_config config, std::span<const version_table* const> tables)
    : impl_(std::make_unique<impl>(config, tables)) {}
renderer::~renderer() = default;

void renderer::step(const api::frame& f, std::span<const world::player_state* const> players,
                    render_output& out, bool build_packets) {
  impl_->step(f, players, out, build_packets);
}

void renderer::resync(std::span<const std::string> players) {
  for (const std::string& p : players) {
    impl_->resync_ids.insert(p);
  }
}

void renderer::resync_all() {
  impl_->resync_everyone = true;
}

void renderer::snapshot(render_output& out) {
  impl_->snapshot(out);
}

render_counts renderer::counts() const noexcept {
  return impl_->counts;
}

std::vector<display_info> renderer::displays() const {
  std::vector<display_info> list;
  std::vector<const display*> live;
  live.reserve(impl_->live_count);
  for (const display* d : impl_->by_handle_direct) {
    if (d != nullptr) {
      live.push_back(d);
    }
  }
  for (const auto& [h, d] : impl_->by_handle_far) {
    live.push_back(d);
  }
  std::sort(live.begin(), live.end(),
            [](const display* x, const display* y) { return x->handle < y->handle; });
  list.reserve(live.size());
  for (const display* d : live) {
    display_info i;
    i.handle = d->handle;
    i.session = d->session;
    i.node = d->node;
    i.kind = d->kind;
    i.item = d->item;
    i.item_display = d->item_display;
    i.block = d->block;
    i.text_json = d->text_json;
    i.dimension = d->dimension;
    i.position = d->pos;
    i.yaw = d->yaw;
    i.transform = d->transform;
    i.visible = d->visible;
    list.push_back(std::move(i));
  }
  return list;
}

const render_config& renderer::config() const noexcept {
  return impl_->cfg;
}

} // namespace emote::render
