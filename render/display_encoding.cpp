// A display's content and metadata for one version (render.md §5.1-§5.4): the parts of the
// renderer's passes that encode one display.

#include "engine/core/snbt.hpp"
#include "render/packets.hpp"
#include "render/render_parts.hpp"

namespace emote::render {

namespace {

void warn_display(render_parts& r, const display& d, std::size_t ver,
                  const std::vector<std::string>& msgs) {
  for (const std::string& m : msgs) {
    r.out.warn(d.emote, d.node, "", r.vers[ver]->protocol, m);
  }
}

std::int32_t mode_for(render_parts& r, display& d, std::size_t ver) {
  per_version& pv = d.versions[ver];
  if (!pv.mode_ready) {
    pv.mode_ready = true;
    // render.md §5.3: the item display mode byte of the version (on_shelf only on 773+).
    if (auto m = item_display_mode(*r.vers[ver], d.item_display)) {
      pv.mode = *m;
    } else {
      pv.mode = 0;
      r.out.warn(d.emote, d.node, "", r.vers[ver]->protocol,
                 "item_display " + d.item_display +
                     " does not exist in this version; none is sent");
    }
  }
  return pv.mode;
}

/// The metadata entry of slot `s` (of the display's kind in version `ver`).
void fill(render_parts& r, display& d, std::size_t ver, const metadata_slot& s, metadata_entry& e) {
  if (s.field == field::content) {
    // The content is encoded (once per version) only when it is shown.
    const content_value* c = d.visible ? &content_for(r, d, ver) : nullptr;
    set_content_entry(e, s, d.kind, d.visible, c ? std::string_view(c->raw) : std::string_view(),
                      c ? c->state : 0, r.contents.empty(ver));
    return;
  }
  entry_value v = at(d.values, s.field);
  if (s.field == field::item_display_mode) {
    v.i = mode_for(r, d, ver);
  }
  set_value_entry(e, s, v);
}

} // namespace

void capture_skin(render_parts& r, display& d) {
  d.captured = skin_capture{};
  if (!d.skin) {
    return;
  }
  const session_info* s = r.displays.session(d.session);
  if (s == nullptr) {
    return;
  }
  const std::string& who = d.skin->participant == "partner" ? s->partner : s->initiator;
  const world::player_state* p = who.empty() ? nullptr : r.viewers.player(who);
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

const content_value& content_for(render_parts& r, display& d, std::size_t ver) {
  content_value& c = d.versions[ver].content;
  if (c.ready) {
    return c;
  }
  const cached_content& cc = r.contents.get(d, ver);
  c.ready = true;
  c.raw = cc.raw;
  c.state = cc.state;
  warn_display(r, d, ver, cc.warnings);
  return c;
}

void encode_for_viewers(render_parts& r, display& d) {
  for (std::size_t ver = 0; ver < r.vers.size(); ++ver) {
    if (r.viewers.present(ver)) {
      if (d.visible) {
        content_for(r, d, ver);
      }
      if (d.kind == api::display_kind::item) {
        mode_for(r, d, ver);
      }
    }
  }
}

void recompute_nbt(render_parts& r, display& d, const std::vector<std::string>& parse_msgs) {
  core::nbt_compound effective = d.entity_nbt;
  core::merge_into(effective, d.nbt);
  d.nbt_warnings = d.entity_nbt_msgs;
  d.nbt_warnings.insert(d.nbt_warnings.end(), parse_msgs.begin(), parse_msgs.end());
  apply_nbt(d.values, effective, *r.defaults, d.ekind, d.nbt_warnings);
  for (per_version& pv : d.versions) {
    pv.nbt_warned = false;
  }
}

core::nbt_compound parse_nbt(const std::string& snbt, std::string_view what,
                             std::vector<std::string>& msgs) {
  auto parsed = core::parse_compound_snbt(snbt);
  if (!parsed) {
    msgs.push_back(std::string(what) + " is not valid compound SNBT (" + parsed.error() +
                   "); it is ignored");
    return {};
  }
  return std::move(*parsed);
}

void warn_nbt(render_parts& r, display& d, std::size_t ver) {
  per_version& pv = d.versions[ver];
  if (!pv.nbt_warned) {
    pv.nbt_warned = true;
    warn_display(r, d, ver, d.nbt_warnings);
  }
}

void write_spawn_metadata(render_parts& r, display& d, std::size_t ver, byte_writer& w) {
  r.entries.clear();
  warn_nbt(r, d, ver);
  // Ascending index: the version's slot order (render.md §5.1).
  for (const metadata_slot& s : layout(*r.vers[ver], d.ekind).slots) {
    metadata_entry e;
    fill(r, d, ver, s, e);
    if (entry_differs_from_default(s, e, r.contents.empty(ver))) {
      r.entries.push_back(e);
    }
  }
  if (!r.entries.empty()) {
    write_entity_metadata(w, *r.vers[ver], d.entity_id, r.entries);
  }
}

void write_changes(render_parts& r, display& d, std::size_t ver, byte_writer& w) {
  r.entries.clear();
  for (const metadata_slot& s : layout(*r.vers[ver], d.ekind).slots) {
    if ((d.dirty & field_bit(s.field)) != 0) {
      metadata_entry e;
      fill(r, d, ver, s, e);
      r.entries.push_back(e);
    }
  }
  if (!r.entries.empty()) {
    write_entity_metadata(w, *r.vers[ver], d.entity_id, r.entries);
  }
}

void bundle_for(render_parts& r, display& d, std::size_t ver) {
  per_version& pv = d.versions[ver];
  if (pv.bundle_stamp == r.out.stamp()) {
    return;
  }
  pv.bundle_stamp = r.out.stamp();
  const range_ref s = *r.out.build([&](byte_writer& w) {
    write_spawn_entity(w, *r.vers[ver], d.entity_id, d.uuid, d.ekind, d.pos, d.yaw);
  });
  pv.spawn_begin = s.begin;
  pv.spawn_size = s.size;
  const auto m = r.out.build([&](byte_writer& w) { write_spawn_metadata(r, d, ver, w); });
  pv.meta_begin = m ? m->begin : 0;
  pv.meta_size = m ? m->size : 0;
}

} // namespace emote::render
