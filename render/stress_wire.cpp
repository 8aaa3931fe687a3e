#include "render/stress_wire.hpp"

#include "render/content.hpp"
#include "render/packets.hpp"

#include <algorithm>
#include <bit>
#include <limits>

namespace emote::render {

stress_wire::stress_wire(const version_table& v, render_config config)
    : v_(&v), defaults_(versions().back()), cfg_(config), empty_(empty_contents(v)) {
  for (std::size_t k = 0; k < entity_kind_count; ++k) {
    const metadata_layout& l = layout(v, static_cast<entity_kind>(k));
    for (std::size_t f = 0; f < display_field_count; ++f) {
      slots_[k][f] = l.find(static_cast<display_field>(f));
    }
    // Whether the kind's fields ascend with their indexes in this version (then a dirty mask's
    // bits, lowest first, are in index order).
    by_field_[k] = std::is_sorted(l.slots.begin(), l.slots.end(),
                                  [](const metadata_slot& a, const metadata_slot& b) {
                                    return a.field < b.field;
                                  });
  }
}

std::ptrdiff_t stress_wire::find(api::handle_id h) const noexcept {
  if (h < 1 || static_cast<std::size_t>(h) > hot_.size()) {
    return -1;
  }
  const auto i = static_cast<std::ptrdiff_t>(h - 1);
  return hot_[static_cast<std::size_t>(i)].live ? i : -1;
}

void stress_wire::send(packet_framer& framer, wire_output& out) {
  if (framer.append(out.bytes, out.packet)) {
    ++out.packets;
  } else {
    ++out.dropped;
  }
}

void stress_wire::encode(std::span<const api::event> events, packet_framer& framer,
                         wire_output& out) {
  for (const api::event& ev : events) {
    if (const auto* up = std::get_if<api::ev_display_update>(&ev)) {
      update(*up, framer, out);
    } else if (const auto* sp = std::get_if<api::ev_display_spawn>(&ev)) {
      spawn(*sp, framer, out);
    } else if (const auto* rm = std::get_if<api::ev_display_remove>(&ev)) {
      remove(*rm, framer, out);
    }
  }
}

void stress_wire::encode_content(const hot& h, cold& c, std::string_view source, bool cached) {
  // render.md §5.4.
  std::string key;
  if (cached) {
    key.push_back(static_cast<char>(h.kind));
    key.push_back(c.skin ? 's' : '-');
    key.append(source);
    if (auto it = content_cache_.find(key); it != content_cache_.end()) {
      c.content = it->second.first;
      c.state = it->second.second;
      return;
    }
  }
  warnings ignored;
  c.content.clear();
  byte_writer w(c.content);
  const skin_profile nobody{}; // no players: a skin-bound head shows no profile
  c.state = write_display_content(w, *v_, h.kind, source, c.skin ? &nobody : nullptr, ignored);
  if (cached) {
    content_cache_.emplace(std::move(key), std::make_pair(c.content, c.state));
  }
}

bool stress_wire::entry(const hot& h, const cold& c, display_field f, metadata_entry& e) const {
  const metadata_slot* s = slots_[static_cast<std::size_t>(h.ekind)][static_cast<std::size_t>(f)];
  if (!s) {
    return false;
  }
  if (f == display_field::content) {
    set_content_entry(e, *s, h.kind, h.visible, c.content, c.state, empty_);
    return true;
  }
  constexpr auto first = static_cast<std::size_t>(display_field::interpolation_duration);
  const auto k = static_cast<std::size_t>(f);
  entry_value v = k >= first && k < first + motion_fields ? h.motion[k - first] : c.values[k];
  if (f == display_field::item_display_mode) {
    v.i = c.mode;
  }
  set_value_entry(e, *s, v);
  return true;
}

void stress_wire::spawn(const api::ev_display_spawn& sp, packet_framer& framer, wire_output& out) {
  if (sp.handle < 1 || cfg_.entity_id_base + sp.handle > std::numeric_limits<std::int32_t>::max()) {
    return;
  }
  const auto slot = static_cast<std::size_t>(sp.handle) - 1;
  if (slot >= hot_.size()) {
    hot_.resize(slot + 1);
    cold_.resize(slot + 1);
  }
  hot& h = hot_[slot];
  cold& c = cold_[slot];
  const std::uint32_t n = c.spawns + 1;
  h = hot{};
  c = cold{};
  c.spawns = n;
  h.live = true;
  h.kind = sp.kind;
  h.ekind = to_entity_kind(sp.kind);
  h.entity_id = static_cast<std::int32_t>(cfg_.entity_id_base + sp.handle);
  h.visible = sp.visible;
  c.item = sp.item;
  if (sp.kind == api::display_kind::item) {
    c.mode = item_display_mode(*v_, sp.item_display).value_or(0);
  }
  c.skin = sp.skin.has_value();
  encode_content(h, c,
                 sp.kind == api::display_kind::item    ? std::string_view(sp.item)
                 : sp.kind == api::display_kind::block ? std::string_view(sp.block)
                                                       : std::string_view(sp.text_json),
                 true);
  c.values = default_values(*defaults_, h.ekind);
  set_transform(c.values, sp.transform);
  at(c.values, display_field::teleport_duration).i = sp.teleport_duration;
  warnings ignored;
  core::nbt_compound effective;
  if (sp.entity_nbt) {
    if (auto parsed = core::parse_compound_snbt(*sp.entity_nbt)) {
      c.entity_nbt = std::move(*parsed);
      effective = c.entity_nbt;
    }
  }
  if (sp.nbt) {
    if (auto parsed = core::parse_compound_snbt(*sp.nbt)) {
      core::merge_into(effective, *parsed);
    }
  }
  apply_nbt(c.values, effective, *defaults_, h.ekind, ignored);
  std::copy_n(c.values.begin() + static_cast<std::ptrdiff_t>(display_field::interpolation_duration),
              h.motion.size(), h.motion.begin());

  // render.md §5.1: bundle_delimiter, spawn_entity, entity_metadata of the non-default entries
  // (left out when there is none), bundle_delimiter.
  out.packet.clear();
  byte_writer w(out.packet);
  write_bundle_delimiter(w, *v_);
  send(framer, out);
  out.packet.clear();
  write_spawn_entity(w, *v_, h.entity_id, display_uuid(cfg_.uuid_seed, h.entity_id, n), h.ekind,
                     sp.position, sp.yaw);
  send(framer, out);
  out.entries.clear();
  for (const metadata_slot& s : layout(*v_, h.ekind).slots) {
    metadata_entry e;
    entry(h, c, s.field, e);
    if (entry_differs_from_default(s, e, empty_)) {
      out.entries.push_back(e);
    }
  }
  if (!out.entries.empty()) {
    out.packet.clear();
    write_entity_metadata(w, *v_, h.entity_id, out.entries);
    send(framer, out);
  }
  out.packet.clear();
  write_bundle_delimiter(w, *v_);
  send(framer, out);
}

void stress_wire::update(const api::ev_display_update& up, packet_framer& framer,
                         wire_output& out) {
  const std::ptrdiff_t i = find(up.handle);
  if (i < 0) {
    return;
  }
  hot& h = hot_[static_cast<std::size_t>(i)];
  // The entries whose value changed (render.md §8: index 8 is not forced).
  std::uint32_t dirty = 0;
  if (up.transform) {
    dirty |= update_transform(h.motion, *up.transform, up.interpolation_duration);
  }
  if (up.visible && *up.visible != h.visible) {
    h.visible = *up.visible;
    dirty |= field_bit(display_field::content);
  }
  if (up.item || up.nbt) {
    cold& c = cold_[static_cast<std::size_t>(i)];
    if (up.item && h.kind == api::display_kind::item && *up.item != c.item) {
      c.item = *up.item;
      const std::string before = c.content;
      encode_content(h, c, c.item, false);
      if (h.visible && c.content != before) {
        dirty |= field_bit(display_field::content);
      }
    }
    if (up.nbt) {
      core::nbt_compound effective = c.entity_nbt;
      if (auto parsed = core::parse_compound_snbt(*up.nbt)) {
        core::merge_into(effective, *parsed);
      }
      display_values next = c.values;
      warnings ignored;
      apply_nbt(next, effective, *defaults_, h.ekind, ignored);
      dirty |= changed_entries(c.values, next);
      c.values = next;
    }
  }
  if (dirty == 0) {
    return;
  }
  const cold& c = cold_[static_cast<std::size_t>(i)];
  // Entries are filled in place (emplace, then dropped when the kind lacks the field), in index
  // order: the mask's bits when fields ascend with indexes, else the version's slots.
  out.entries.clear();
  if (by_field_[static_cast<std::size_t>(h.ekind)]) {
    for (std::uint32_t bits = dirty; bits != 0; bits &= bits - 1) {
      const auto f = static_cast<display_field>(std::countr_zero(bits));
      if (!entry(h, c, f, out.entries.emplace_back())) {
        out.entries.pop_back();
      }
    }
  } else {
    for (const metadata_slot& s : layout(*v_, h.ekind).slots) {
      if ((dirty & field_bit(s.field)) != 0) {
        entry(h, c, s.field, out.entries.emplace_back());
      }
    }
  }
  if (!out.entries.empty()) {
    out.packet.clear();
    byte_writer w(out.packet);
    write_entity_metadata(w, *v_, h.entity_id, out.entries);
    send(framer, out);
  }
}

void stress_wire::remove(const api::ev_display_remove& rm, packet_framer& framer,
                         wire_output& out) {
  // render.md §8: one entity_destroy per display.
  for (const api::handle_id handle : rm.handles) {
    const std::ptrdiff_t i = find(handle);
    if (i < 0) {
      continue;
    }
    hot& h = hot_[static_cast<std::size_t>(i)];
    h.live = false;
    out.packet.clear();
    byte_writer w(out.packet);
    const std::int32_t id = h.entity_id;
    write_entity_destroy(w, *v_, std::span<const std::int32_t>(&id, 1));
    send(framer, out);
  }
}

} // namespace emote::render
