#include "render/visibility.hpp"

#include "render/output_assembler.hpp"
#include "render/packets.hpp"

#include <algorithm>
#include <cmath>

namespace emote::render {

void visibility::epoch_set::reset(std::size_t count) {
  const std::size_t cap = std::bit_ceil(std::max<std::size_t>(16, 2 * count));
  if (slots.size() < cap) {
    slots.assign(cap, {0, 0});
    stamp = 0;
  }
  mask = cap - 1;
  ++stamp;
}

void visibility::epoch_set::insert(std::uint64_t e) {
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

bool visibility::epoch_set::contains(std::uint64_t e) const noexcept {
  for (std::size_t i = home(e);; i = (i + 1) & mask) {
    if (slots[i].second != stamp) {
      return false;
    }
    if (slots[i].first == e) {
      return true;
    }
  }
}

void visibility::write_flags(byte_writer& w, std::size_t ver, const world::player_state& p,
                             bool invisible) const {
  player_flags f;
  f.on_fire = p.on_fire;
  f.sneaking = p.sneaking;
  f.sprinting = p.sprinting;
  f.swimming = p.swimming;
  f.invisible = invisible;
  f.glowing = p.glowing;
  f.gliding = p.gliding;
  metadata_entry e;
  e.index = vers_[ver]->player_flags_index;
  e.kind = serializer::byte;
  e.i = shared_flags_byte(f);
  write_entity_metadata(w, *vers_[ver], *p.entity_id, std::span<const metadata_entry>(&e, 1));
}

void visibility::on_event(const api::ev_player_visibility& ev, const viewer_set& viewers,
                          dimension_ids& dims, output_assembler& out,
                          std::vector<const active*>& audience) {
  // Showing a player makes the viewers' entries for it stale (their epoch is no longer its
  // hide's), so a later hide sends the packets again.
  std::uint64_t epoch = 0;
  if (ev.hidden) {
    epoch = ++hide_epoch_;
    hidden_[ev.player] = hidden_state{ev.blank_equipment, epoch};
  } else {
    hidden_.erase(ev.player);
  }
  const world::player_state* p = viewers.player(ev.player);
  if (!p || !p->entity_id) {
    return;
  }
  const std::int32_t dim = dims.id(p->dimension);
  audience.clear();
  for (const active& a : viewers.act()) {
    if (a.p == p || within(a, dim, p->pos.x, p->pos.z, a.rp2)) {
      audience.push_back(&a);
    }
  }
  const std::vector<const active*> flag_audience = audience;
  out.shared_step(flag_audience,
                  [&](std::size_t ver, byte_writer& w) { write_flags(w, ver, *p, ev.hidden); });
  audience.clear();
  for (const active* a : flag_audience) {
    if (a->p != p) {
      audience.push_back(a);
      if (ev.hidden) {
        // The epoch is this hide's own: no viewer has an entry for it yet.
        a->v->hidden_seen.push_back(epoch);
      }
    }
  }
  if (ev.blank_equipment) {
    out.shared_step(audience, [&](std::size_t ver, byte_writer& w) {
      write_blank_equipment(w, *vers_[ver], *p->entity_id);
    });
  }
}

void visibility::forget_departed(const viewer_set& viewers) {
  for (auto it = hidden_.begin(); it != hidden_.end();) {
    it = viewers.player(it->first) != nullptr ? std::next(it) : hidden_.erase(it);
  }
}

void visibility::begin_tracking(const viewer_set& viewers, dimension_ids& dims) {
  hidden_count_ = 0;
  if (!hidden_.empty()) {
    for (const world::player_state* p : viewers.players()) {
      if (!p || !p->entity_id) {
        continue;
      }
      if (auto hs = hidden_.find(p->id); hs != hidden_.end()) {
        if (hidden_count_ == hidden_list_.size()) {
          hidden_list_.emplace_back();
        }
        hidden_now& h = hidden_list_[hidden_count_++];
        h.p = p;
        h.dim = dims.id(p->dimension);
        h.blank = hs->second.blank;
        h.epoch = hs->second.epoch;
        h.flags.assign(vers_.size(), range_ref{});
        h.equipment.assign(vers_.size(), range_ref{});
      }
    }
  }
  hidden_by_x_.clear();
  for (std::uint32_t k = 0; k < hidden_count_; ++k) {
    const hidden_now& h = hidden_list_[k];
    hidden_by_x_.push_back(hidden_at{h.p->pos.x, h.p->pos.z, h.dim, k});
  }
  std::sort(hidden_by_x_.begin(), hidden_by_x_.end(),
            [](const hidden_at& x, const hidden_at& y) { return x.x < y.x; });
}

void visibility::send_near(const active& a, output_assembler& out) {
  viewer& v = *a.v;
  // The hidden players within R_p, in join order: the candidates from the x-sorted list.
  hidden_near_.clear();
  if (a.rp2 >= 0 && !hidden_by_x_.empty()) {
    const double rp = std::sqrt(a.rp2);
    const double x = a.p->pos.x;
    near_bits_.assign((hidden_count_ + 63) / 64, 0);
    auto it = std::lower_bound(hidden_by_x_.begin(), hidden_by_x_.end(), x - rp - 1,
                               [](const hidden_at& h, double bound) { return h.x < bound; });
    for (; it != hidden_by_x_.end() && it->x <= x + rp + 1; ++it) {
      if (within(a, it->dim, it->x, it->z, a.rp2)) {
        near_bits_[it->index / 64] |= std::uint64_t{1} << (it->index % 64);
      }
    }
    // In join order: the bits ascending.
    for (std::size_t w = 0; w < near_bits_.size(); ++w) {
      for (std::uint64_t b = near_bits_[w]; b != 0; b &= b - 1) {
        hidden_near_.push_back(
            static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(b))));
      }
    }
  }
  // A viewer near the same hides as last step (the usual case in a crowd) has nothing to send
  // and keeps its list.
  now_epochs_.clear();
  for (const std::uint32_t k : hidden_near_) {
    if (hidden_list_[k].p != a.p) {
      now_epochs_.push_back(hidden_list_[k].epoch);
    }
  }
  if (now_epochs_ == v.hidden_seen) {
    return;
  }
  seen_before_.reset(v.hidden_seen.size());
  for (const std::uint64_t e : v.hidden_seen) {
    seen_before_.insert(e);
  }
  for (const std::uint32_t k : hidden_near_) {
    hidden_now& h = hidden_list_[k];
    if (h.p == a.p || seen_before_.contains(h.epoch)) {
      continue;
    }
    // render.md §5.5: the flags, then the blank equipment, built once per version.
    if (h.flags[a.ver].size == 0) {
      h.flags[a.ver] = *out.build([&](byte_writer& w) { write_flags(w, a.ver, *h.p, true); });
      if (h.blank) {
        h.equipment[a.ver] = *out.build(
            [&](byte_writer& w) { write_blank_equipment(w, *vers_[a.ver], *h.p->entity_id); });
      }
    }
    out.single(a, h.flags[a.ver]);
    if (h.blank) {
      out.single(a, h.equipment[a.ver]);
    }
  }
  v.hidden_seen.swap(now_epochs_);
}

void visibility::prepare_snapshot() {
  by_epoch_.clear();
  for (const auto& [id, hs] : hidden_) {
    by_epoch_.emplace(hs.epoch, &id);
  }
}

void visibility::snapshot(const active& a, const viewer_set& viewers, output_assembler& out) {
  for (const std::uint64_t epoch : a.v->hidden_seen) {
    // An epoch no longer any player's current hide is stale.
    const auto id = by_epoch_.find(epoch);
    if (id == by_epoch_.end()) {
      continue;
    }
    const world::player_state* p = viewers.player(*id->second);
    if (p == nullptr || !p->entity_id) {
      continue;
    }
    out.single(a, *out.build([&](byte_writer& w) { write_flags(w, a.ver, *p, true); }));
    if (hidden_.at(*id->second).blank) {
      out.single(a, *out.build([&](byte_writer& w) {
        write_blank_equipment(w, *vers_[a.ver], *p->entity_id);
      }));
    }
  }
}

} // namespace emote::render
