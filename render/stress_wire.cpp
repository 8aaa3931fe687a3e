#include "render/stress_wire.hpp"

#include "render/content.hpp"
#include "render/packets.hpp"

#include <limits>

namespace emote::render {

stress_wire::stress_wire(const version_table& v, render_config config)
    : v_(&v), defaults_(versions().back()), cfg_(config) {
  warnings none;
  byte_writer wi(empty_item_);
  write_item_stack(wi, v, "", nullptr, none);
  byte_writer wt(empty_text_);
  write_text_component(wt, v, "", none);
}

stress_wire::display* stress_wire::find(api::handle_id h) noexcept {
  if (h < 1 || static_cast<std::size_t>(h) > displays_.size()) {
    return nullptr;
  }
  display& d = displays_[static_cast<std::size_t>(h) - 1];
  return d.live ? &d : nullptr;
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

void stress_wire::encode_content(display& d, std::string_view source, bool cached) {
  // render.md §5.4.
  std::string key;
  if (cached) {
    key.push_back(static_cast<char>(d.kind));
    key.push_back(d.skin ? 's' : '-');
    key.append(source);
    if (auto it = content_cache_.find(key); it != content_cache_.end()) {
      d.content = it->second.first;
      d.state = it->second.second;
      return;
    }
  }
  warnings ignored;
  d.content.clear();
  d.state = 0;
  byte_writer w(d.content);
  const skin_profile nobody{}; // no players: a skin-bound head shows no profile
  switch (d.kind) {
  case api::display_kind::item:
    write_item_stack(w, *v_, source, d.skin ? &nobody : nullptr, ignored);
    break;
  case api::display_kind::block:
    d.state = block_state_id(*v_, source, ignored);
    break;
  case api::display_kind::text:
    write_text_component(w, *v_, source, ignored);
    break;
  }
  if (cached) {
    content_cache_.emplace(std::move(key), std::make_pair(d.content, d.state));
  }
}

bool stress_wire::entry(const display& d, std::uint8_t idx, metadata_entry& e) const {
  const metadata_slot* s = entry_slot(*v_, d.ekind, idx);
  if (!s) {
    return false;
  }
  if (idx == mi::content) {
    e = metadata_entry{};
    e.index = idx;
    e.kind = s->kind;
    if (d.kind == api::display_kind::block) {
      e.i = d.visible ? d.state : s->int_default;
    } else if (d.visible) {
      e.raw = d.content;
    } else {
      e.raw = d.kind == api::display_kind::item ? empty_item_ : empty_text_;
    }
    return true;
  }
  entry_value v = d.values[idx];
  if (idx == mi::item_display && d.kind == api::display_kind::item) {
    v.i = d.mode;
  }
  e = value_entry(*s, v);
  return true;
}

void stress_wire::spawn(const api::ev_display_spawn& sp, packet_framer& framer, wire_output& out) {
  if (sp.handle < 1 || cfg_.entity_id_base + sp.handle > std::numeric_limits<std::int32_t>::max()) {
    return;
  }
  const auto slot = static_cast<std::size_t>(sp.handle) - 1;
  if (slot >= displays_.size()) {
    displays_.resize(slot + 1);
  }
  display& d = displays_[slot];
  const std::uint32_t n = d.spawns + 1;
  d = display{};
  d.spawns = n;
  d.live = true;
  d.kind = sp.kind;
  d.ekind = to_entity_kind(sp.kind);
  d.entity_id = static_cast<std::int32_t>(cfg_.entity_id_base + sp.handle);
  d.visible = sp.visible;
  d.item = sp.item;
  if (sp.kind == api::display_kind::item) {
    d.mode = item_display_mode(*v_, sp.item_display).value_or(0);
  }
  d.skin = sp.skin.has_value();
  encode_content(d,
                 sp.kind == api::display_kind::item    ? std::string_view(sp.item)
                 : sp.kind == api::display_kind::block ? std::string_view(sp.block)
                                                       : std::string_view(sp.text_json),
                 true);
  d.values = default_values(*defaults_, d.ekind);
  set_transform(d.values, sp.transform);
  d.values[mi::teleport_duration].i = sp.teleport_duration;
  warnings ignored;
  core::nbt_compound effective;
  if (sp.entity_nbt) {
    if (auto c = core::parse_compound_snbt(*sp.entity_nbt)) {
      d.entity_nbt = std::move(*c);
      effective = d.entity_nbt;
    }
  }
  if (sp.nbt) {
    if (auto c = core::parse_compound_snbt(*sp.nbt)) {
      core::merge_into(effective, *c);
    }
  }
  apply_nbt(d.values, effective, *defaults_, d.ekind, ignored);

  // render.md §5.1: bundle_delimiter, spawn_entity, entity_metadata of the non-default entries
  // (left out when there is none), bundle_delimiter.
  out.packet.clear();
  byte_writer w(out.packet);
  write_bundle_delimiter(w, *v_);
  send(framer, out);
  out.packet.clear();
  write_spawn_entity(w, *v_, d.entity_id, display_uuid(cfg_.uuid_seed, d.entity_id, n), d.ekind,
                     sp.position, sp.yaw);
  send(framer, out);
  out.entries.clear();
  for (std::uint8_t idx = 0; idx < mi::count; ++idx) {
    metadata_entry e;
    if (!entry(d, idx, e)) {
      continue;
    }
    const bool differs = e.kind == serializer::item_stack ? e.raw != empty_item_
                         : e.kind == serializer::component
                             ? e.raw != empty_text_
                             : differs_from_default(*entry_slot(*v_, d.ekind, idx), e);
    if (differs) {
      out.entries.push_back(e);
    }
  }
  if (!out.entries.empty()) {
    out.packet.clear();
    write_entity_metadata(w, *v_, d.entity_id, out.entries);
    send(framer, out);
  }
  out.packet.clear();
  write_bundle_delimiter(w, *v_);
  send(framer, out);
}

void stress_wire::update(const api::ev_display_update& up, packet_framer& framer,
                         wire_output& out) {
  display* d = find(up.handle);
  if (!d) {
    return;
  }
  // The entries whose value changed (render.md §8: index 8 is not forced).
  std::uint32_t dirty = 0;
  if (up.transform) {
    dirty |= update_transform(d->values, *up.transform, up.interpolation_duration);
  }
  if (up.item && d->kind == api::display_kind::item && *up.item != d->item) {
    d->item = *up.item;
    const std::string before = d->content;
    encode_content(*d, d->item, false);
    if (d->visible && d->content != before) {
      dirty |= 1U << mi::content;
    }
  }
  if (up.visible && *up.visible != d->visible) {
    d->visible = *up.visible;
    dirty |= 1U << mi::content;
  }
  if (up.nbt) {
    core::nbt_compound effective = d->entity_nbt;
    if (auto c = core::parse_compound_snbt(*up.nbt)) {
      core::merge_into(effective, *c);
    }
    display_values next = d->values;
    warnings ignored;
    apply_nbt(next, effective, *defaults_, d->ekind, ignored);
    dirty |= changed_entries(d->values, next);
    d->values = next;
  }
  if (dirty == 0) {
    return;
  }
  out.entries.clear();
  for (std::uint8_t idx = 0; idx < mi::count; ++idx) {
    metadata_entry e;
    if ((dirty >> idx & 1U) != 0 && entry(*d, idx, e)) {
      out.entries.push_back(e);
    }
  }
  if (!out.entries.empty()) {
    out.packet.clear();
    byte_writer w(out.packet);
    write_entity_metadata(w, *v_, d->entity_id, out.entries);
    send(framer, out);
  }
}

void stress_wire::remove(const api::ev_display_remove& rm, packet_framer& framer,
                         wire_output& out) {
  // render.md §8: one entity_destroy per display.
  for (const api::handle_id h : rm.handles) {
    display* d = find(h);
    if (!d) {
      continue;
    }
    d->live = false;
    out.packet.clear();
    byte_writer w(out.packet);
    const std::int32_t id = d->entity_id;
    write_entity_destroy(w, *v_, std::span<const std::int32_t>(&id, 1));
    send(framer, out);
  }
}

} // namespace emote::render
