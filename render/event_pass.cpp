// The event pass (render.md §4 rule 1): a frame's display events in order, per session group —
// spawns with their bundles to the viewers in range, moves, views and metadata changes to each
// display's trackers, removals as one entity_destroy per viewer — then the visibility events.

#include "render/packets.hpp"
#include "render/render_parts.hpp"

#include <algorithm>
#include <limits>

namespace emote::render {

namespace {

constexpr std::int64_t max_entity_id = std::numeric_limits<std::int32_t>::max();

void spawn_bundle_step(render_parts& r, display& d) {
  // render.md §5.1: bundle_delimiter, spawn_entity, entity_metadata (when any entry differs
  // from its default), bundle_delimiter; each packet one step.
  auto delim = [&](std::size_t ver) {
    return std::optional<range_ref>(r.out.delimiter_bytes(ver));
  };
  r.out.group_by_version(r.audience);
  r.out.grouped_ranges(delim);
  r.out.grouped_step([&](std::size_t ver, byte_writer& w) {
    write_spawn_entity(w, *r.vers[ver], d.entity_id, d.uuid, d.ekind, d.pos, d.yaw);
  });
  r.out.grouped_step([&](std::size_t ver, byte_writer& w) { write_spawn_metadata(r, d, ver, w); });
  r.out.grouped_ranges(delim);
}

void queue(render_parts& r, display& d) {
  if (!d.queued) {
    d.queued = true;
    r.ev.changed.push_back(&d);
  }
}

void set_teleport_duration(display& d, std::int32_t tp) {
  if (at(d.values, field::teleport_duration).i != tp) {
    at(d.values, field::teleport_duration).i = tp;
    d.dirty |= field_bit(field::teleport_duration);
  }
}

/// display.remove (render.md §4 rule 1, third bullet): per viewer one entity_destroy of its
/// tracked entities among `handles`, ascending; equal packets share an entry.
void remove_displays(render_parts& r, api::session_id session,
                     std::vector<api::handle_id> handles) {
  std::sort(handles.begin(), handles.end());
  handles.erase(std::unique(handles.begin(), handles.end()), handles.end());
  std::vector<display*> gone;
  for (api::handle_id h : handles) {
    if (display* d = r.displays.find(h); d && d->session == session) {
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
  const auto& act = r.viewers.act();
  for (display* d : gone) {
    r.displays.trackers().each(d->row, [&](std::uint32_t s) {
      if (const std::uint32_t i = r.viewers.act_of_slot(s); i != viewer_set::no_act) {
        tracking.emplace_back(i, d->entity_id);
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
        *r.out.build([&](byte_writer& w) { write_entity_destroy(w, *r.vers[a.ver], ids); });
    pend.push_back(pending{a.ver, ids, data, {a.index}});
  }
  std::stable_sort(pend.begin(), pend.end(), [](const pending& x, const pending& y) {
    return x.ver != y.ver ? x.ver < y.ver : x.to.front() < y.to.front();
  });
  for (const pending& p : pend) {
    r.out.entry(p.ver, p.to, p.data);
  }
  for (display* d : gone) {
    if (d->queued) {
      r.ev.changed.erase(std::remove(r.ev.changed.begin(), r.ev.changed.end(), d),
                         r.ev.changed.end());
    }
    r.displays.remove(d);
  }
}

void on_spawn(render_parts& r, const api::ev_display_spawn& sp, bool removed_same_frame) {
  const std::uint32_t n = r.displays.count_spawn(sp.handle);
  if (removed_same_frame || sp.handle < 1 || r.cfg.entity_id_base + sp.handle > max_entity_id) {
    return; // render.md §4: spawned and removed in one frame sends nothing
  }
  if (display* old = r.displays.find(sp.handle)) {
    remove_displays(r, old->session, std::vector<api::handle_id>{sp.handle});
  }
  auto d = std::make_unique<display>();
  d->handle = sp.handle;
  d->session = sp.session;
  d->node = sp.node;
  if (const session_info* s = r.displays.session(sp.session)) {
    d->emote = s->emote;
  }
  d->kind = sp.kind;
  d->ekind = to_entity_kind(sp.kind);
  d->space = sp.space;
  d->entity_id = static_cast<std::int32_t>(r.cfg.entity_id_base + sp.handle);
  d->uuid = display_uuid(r.cfg.uuid_seed, d->entity_id, n);
  d->dimension = sp.dimension;
  d->dim = r.dims.id(sp.dimension);
  d->pos = sp.position;
  d->yaw = sp.yaw;
  d->transform = sp.transform;
  d->item = sp.item;
  d->item_display = sp.item_display;
  d->block = sp.block;
  d->text_json = sp.text_json;
  d->visible = sp.visible;
  d->skin = sp.skin;
  d->versions.resize(r.vers.size());
  d->values = default_values(*r.defaults, d->ekind);
  set_transform(d->values, sp.transform);
  at(d->values, field::teleport_duration).i = sp.teleport_duration;
  if (sp.entity_nbt) {
    d->entity_nbt = parse_nbt(*sp.entity_nbt, "entity_nbt", d->entity_nbt_msgs);
  }
  std::vector<std::string> parse_msgs;
  if (sp.nbt) {
    d->nbt = parse_nbt(*sp.nbt, "nbt", parse_msgs);
  }
  recompute_nbt(r, *d, parse_msgs);
  if (d->visible) {
    capture_skin(r, *d);
  }
  display& ref = r.displays.add(std::move(d));
  for (std::size_t ver = 0; ver < r.vers.size(); ++ver) {
    if (r.viewers.present(ver)) {
      warn_nbt(r, ref, ver);
    }
  }
  encode_for_viewers(r, ref);
  // The viewers in range, in join order.
  const auto& act = r.viewers.act();
  r.act_scratch.clear();
  r.viewers.grid().near(ref.dim, ref.pos.x, ref.pos.z, [&](std::uint32_t i) {
    if (within(act[i], ref.dim, ref.pos.x, ref.pos.z, act[i].r2)) {
      r.act_scratch.push_back(i);
    }
  });
  std::sort(r.act_scratch.begin(), r.act_scratch.end());
  r.audience.clear();
  for (const std::uint32_t i : r.act_scratch) {
    r.audience.push_back(&act[i]);
    r.displays.trackers().set(ref.row, act[i].v->slot);
  }
  spawn_bundle_step(r, ref);
}

void on_move(render_parts& r, const api::ev_display_move& mv) {
  const std::vector<display*>* list = r.displays.of_session(mv.session);
  if (list == nullptr) {
    return;
  }
  // The displays are far apart in memory: ask for all of them before touching the first.
  for (const display* d : *list) {
    __builtin_prefetch(d);
    __builtin_prefetch(reinterpret_cast<const char*>(d) + 64);
    __builtin_prefetch(reinterpret_cast<const char*>(d) + 128);
  }
  for (display* d : *list) {
    if (d->space == mv.space) {
      d->pos = mv.position;
      r.displays.trackers().move(d->row, d->pos.x, d->pos.z);
      d->moved = true;
      set_teleport_duration(*d, mv.teleport_duration);
      queue(r, *d);
    }
  }
}

void on_view(render_parts& r, const api::ev_display_view& vw) {
  const std::vector<display*>* list = r.displays.of_session(vw.session);
  if (list == nullptr) {
    return;
  }
  for (display* d : *list) {
    d->yaw = vw.yaw;
    d->turned = true;
    set_teleport_duration(*d, vw.teleport_duration);
    queue(r, *d);
  }
}

void on_update(render_parts& r, display& d, const api::ev_display_update& up) {
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
      capture_skin(r, d);
      invalidate_content(d);
      encode_for_viewers(r, d);
    }
  }
  if (up.nbt) {
    std::vector<std::string> parse_msgs;
    d.nbt = parse_nbt(*up.nbt, "nbt", parse_msgs);
    const display_values before = d.values;
    recompute_nbt(r, d, parse_msgs);
    for (std::size_t ver = 0; ver < r.vers.size(); ++ver) {
      if (r.viewers.present(ver)) {
        warn_nbt(r, d, ver);
      }
    }
    d.dirty |= changed_entries(before, d.values);
  }
  queue(r, d);
}

/// The changes of the current session group (render.md §4 rule 1, second bullet).
void flush_changes(render_parts& r) {
  event_scratch& ev = r.ev;
  auto& trackers = r.displays.trackers();
  std::sort(ev.changed.begin(), ev.changed.end(),
            [](const display* a, const display* b) { return a->handle < b->handle; });
  for (std::size_t k = 0; k < ev.changed.size(); ++k) {
    display* d = ev.changed[k];
    if (k + 2 < ev.changed.size()) {
      trackers.prefetch(ev.changed[k + 2]->row);
    }
    d->queued = false;
    // The displays of a session mostly share their trackers: an audience equal to the last
    // one grouped (the same bits, nothing grouped since) is that grouping again.
    const std::uint64_t* bits = trackers.words(d->row);
    const std::size_t stride = trackers.stride();
    if (r.building && !(ev.last_audience_serial == r.out.group_serial() &&
                        ev.last_audience_bits.size() == stride &&
                        std::equal(bits, bits + stride, ev.last_audience_bits.begin()))) {
      r.viewers.audience_of(trackers, d->row, r.audience);
      if (!r.audience.empty()) {
        r.out.group_by_version(r.audience);
      }
      ev.last_audience_empty = r.audience.empty();
      ev.last_audience_bits.assign(bits, bits + stride);
      ev.last_audience_serial = r.out.group_serial();
    }
    if (!ev.last_audience_empty && r.building) {
      if (d->moved) {
        r.out.grouped_step([&](std::size_t ver, byte_writer& w) {
          write_absolute_move(w, *r.vers[ver], d->entity_id, d->pos, d->yaw);
        });
      }
      if (d->turned) {
        r.out.grouped_step([&](std::size_t ver, byte_writer& w) {
          write_entity_look(w, *r.vers[ver], d->entity_id, d->yaw);
        });
      }
      if (d->dirty != 0) {
        r.out.grouped_step([&](std::size_t ver, byte_writer& w) { write_changes(r, *d, ver, w); });
      }
    }
    d->moved = false;
    d->turned = false;
    d->dirty = 0;
  }
  ev.changed.clear();
}

void enter_group(render_parts& r, api::session_id s) {
  if (r.ev.in_group && r.ev.group == s) {
    return;
  }
  flush_changes(r);
  r.ev.in_group = true;
  r.ev.group = s;
}

} // namespace

void event_pass(render_parts& r, const api::frame& f) {
  // (session, handle) pairs removed in this frame: a spawn among them sends nothing.
  auto& removed = r.ev.removed;
  removed.clear();
  for (const api::event& e : f.events) {
    if (const auto* rm = std::get_if<api::ev_display_remove>(&e)) {
      for (api::handle_id h : rm->handles) {
        removed.emplace_back(rm->session, h);
      }
    }
  }
  std::sort(removed.begin(), removed.end());
  r.ev.in_group = false;
  for (const api::event& e : f.events) {
    if (const auto* sp = std::get_if<api::ev_display_spawn>(&e)) {
      enter_group(r, sp->session);
      on_spawn(r, *sp,
               std::binary_search(removed.begin(), removed.end(),
                                  std::make_pair(sp->session, sp->handle)));
    } else if (const auto* mv = std::get_if<api::ev_display_move>(&e)) {
      enter_group(r, mv->session);
      on_move(r, *mv);
    } else if (const auto* vw = std::get_if<api::ev_display_view>(&e)) {
      enter_group(r, vw->session);
      on_view(r, *vw);
    } else if (const auto* up = std::get_if<api::ev_display_update>(&e)) {
      if (display* d = r.displays.find(up->handle)) {
        enter_group(r, d->session);
        on_update(r, *d, *up);
      }
    } else if (const auto* rm = std::get_if<api::ev_display_remove>(&e)) {
      enter_group(r, rm->session);
      flush_changes(r);
      remove_displays(r, rm->session, rm->handles);
    }
  }
  flush_changes(r);
  for (const api::event& e : f.events) {
    if (const auto* vis = std::get_if<api::ev_player_visibility>(&e)) {
      r.hidden.on_event(*vis, r.viewers, r.dims, r.out, r.audience);
    }
  }
}

} // namespace emote::render
