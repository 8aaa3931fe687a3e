#include "render/viewer_set.hpp"

#include "render/output_assembler.hpp"

#include <cmath>

namespace emote::render {

viewer_set::viewer_set(const render_config& cfg, std::span<const version_table* const> vers)
    : cfg_(cfg), vers_(vers), protocol_present_(vers.size(), false), only_version_(vers.size()) {}

const world::player_state* viewer_set::player(std::string_view id) const noexcept {
  const auto it = std::lower_bound(player_index_.begin(), player_index_.end(), id,
                                   [](const std::pair<std::string_view, std::uint32_t>& e,
                                      std::string_view k) { return e.first < k; });
  return it == player_index_.end() || it->first != id ? nullptr : players_[it->second];
}

double viewer_set::range_for(const world::player_state& p, double limit) const noexcept {
  // render.md §4: vd = clamp(view_distance, 2, render.view_distance); R = min(limit, vd * 16).
  const std::int32_t requested = p.view_distance.value_or(cfg_.view_distance);
  const std::int32_t vd = std::max(2, std::min(requested, cfg_.view_distance));
  return std::min(limit, static_cast<double>(vd) * 16.0);
}

std::string viewer_set::supported_text() const {
  std::string text;
  for (const version_table* v : vers_) {
    text += (text.empty() ? "" : ", ") + std::to_string(v->protocol);
  }
  return text;
}

void viewer_set::drop(viewer& v, tracker_table<display>& trackers) {
  trackers.forget(v.slot);
  free_slots_.push_back(v.slot);
}

void viewer_set::reconcile(std::span<const world::player_state* const> players,
                           api::tick_number tick, dimension_ids& dims,
                           tracker_table<display>& trackers, output_assembler& out,
                           render_counts& counts) {
  players_ = players;
  for (auto& [id, v] : viewers_) {
    v.seen = false;
  }
  act_.clear();
  std::fill(protocol_present_.begin(), protocol_present_.end(), false);
  player_index_.clear();
  for (std::uint32_t i = 0; i < players.size(); ++i) {
    const world::player_state* p = players[i];
    if (!p) {
      continue;
    }
    player_index_.emplace_back(p->id, i);
    if (!p->protocol) {
      continue;
    }
    const version_table* table = find_version(vers_, *p->protocol);
    if (!table) {
      out.warn("", "", p->id, *p->protocol,
               "protocol " + std::to_string(*p->protocol) + " is not supported (supported: " +
                   supported_text() + "); no packets are rendered for it");
      continue;
    }
    auto [it, fresh] = viewers_.try_emplace(p->id);
    viewer& v = it->second;
    if (!fresh && v.seen) {
      continue; // the same id twice: the first one is the viewer
    }
    if (!fresh && v.join_serial != p->join_serial) {
      drop(v, trackers); // rule 3: a new join of the same name starts from nothing
      fresh = true;
    }
    if (fresh) {
      v = viewer{};
      v.id = p->id;
      v.join_serial = p->join_serial;
      v.client_epoch = p->client_epoch;
      if (!free_slots_.empty()) {
        v.slot = free_slots_.back();
        free_slots_.pop_back();
      } else {
        v.slot = next_slot_++;
      }
    } else if (v.client_epoch != p->client_epoch || v.protocol != *p->protocol) {
      // rule 4: the client discarded its entities; nothing is sent, the tracking pass refills.
      trackers.forget(v.slot);
      v.hidden_seen.clear();
      v.client_epoch = p->client_epoch;
    }
    v.protocol = *p->protocol;
    v.seen = true;
    active a;
    a.v = &v;
    a.index = i;
    a.p = p;
    a.ver = static_cast<std::size_t>(std::find(vers_.begin(), vers_.end(), table) - vers_.begin());
    a.dim = dims.id(p->dimension);
    const double r = range_for(*p, cfg_.display_range);
    const double rp = range_for(*p, cfg_.player_range);
    // A negative range holds nothing (the configuration refuses one; this keeps it so).
    a.r2 = r < 0 ? -1 : r * r;
    a.rp2 = rp < 0 ? -1 : rp * rp;
    protocol_present_[a.ver] = true;
    act_.push_back(a);
  }
  std::sort(player_index_.begin(), player_index_.end());
  for (auto it = viewers_.begin(); it != viewers_.end();) {
    if (!it->second.seen) {
      drop(it->second, trackers); // rule 3: dropped with nothing sent
      it = viewers_.erase(it);
    } else {
      ++it;
    }
  }
  trackers.reserve_slots(next_slot_);
  slot_act_.assign(next_slot_, no_act);
  for (std::size_t i = 0; i < act_.size(); ++i) {
    viewer& v = *act_[i].v;
    if (resync_everyone_ || resync_ids_.count(v.id) != 0) {
      ++counts.resync_requests;
      v.resync_pending = true;
    }
    // render.md §4 rule 5: at most one resync per viewer per resync_window ticks; a request
    // inside the window waits for its end.
    v.resync = v.resync_pending && (!v.last_resync || tick >= *v.last_resync + resync_window);
    if (v.resync) {
      ++counts.resyncs;
      v.resync_pending = false;
      v.last_resync = tick;
    }
    slot_act_[v.slot] = static_cast<std::uint32_t>(i);
  }
  resync_everyone_ = false;
  resync_ids_.clear();
  only_version_ = vers_.size();
  if (std::count(protocol_present_.begin(), protocol_present_.end(), true) == 1) {
    only_version_ = static_cast<std::size_t>(
        std::find(protocol_present_.begin(), protocol_present_.end(), true) -
        protocol_present_.begin());
  }
  // The viewers by cell, for the ranges of the event and tracking passes.
  double reach = 0;
  for (const active& a : act_) {
    reach = std::max({reach, a.r2, a.rp2});
  }
  grid_.build(act_.size(), std::sqrt(reach), [&](std::size_t i) {
    return std::tuple{act_[i].dim, act_[i].p->pos.x, act_[i].p->pos.z};
  });
}

void viewer_set::audience_of(const tracker_table<display>& trackers, std::uint32_t row,
                             std::vector<const active*>& audience) {
  audience.clear();
  act_scratch_.clear();
  trackers.each(row, [&](std::uint32_t s) {
    if (const std::uint32_t i = act_of_slot(s); i != no_act) {
      act_scratch_.push_back(i);
    }
  });
  if (!std::is_sorted(act_scratch_.begin(), act_scratch_.end())) {
    std::sort(act_scratch_.begin(), act_scratch_.end());
  }
  for (const std::uint32_t i : act_scratch_) {
    audience.push_back(&act_[i]);
  }
}

} // namespace emote::render
