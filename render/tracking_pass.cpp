// The tracking pass (render.md §4 rule 2, rule 5): which viewers stop and start tracking each
// display after the step's moves, as one entity_destroy and spawn bundles per viewer, then the
// hidden players that came within each viewer's R_p; and the snapshot for a new packets
// subscriber (rule 6), which replays every viewer's tracked state.

#include "render/packets.hpp"
#include "render/render_parts.hpp"

#include <algorithm>

namespace emote::render {

namespace {

/// A viewer's spawn bundles of `spawns` (render.md §5.1), each from the step's shared bytes.
void send_spawns(render_parts& r, const active& a, const std::vector<display*>& spawns) {
  for (display* d : spawns) {
    bundle_for(r, *d, a.ver);
    const per_version& pv = d->versions[a.ver];
    r.out.single(a, r.out.delimiter_bytes(a.ver));
    r.out.single(a, range_ref{pv.spawn_begin, pv.spawn_size});
    if (pv.meta_size != 0) {
      r.out.single(a, range_ref{pv.meta_begin, pv.meta_size});
    }
    r.out.single(a, r.out.delimiter_bytes(a.ver));
  }
}

} // namespace

void tracking_pass(render_parts& r) {
  tracking_scratch& t = r.tr;
  auto& trackers = r.displays.trackers();
  const auto& act = r.viewers.act();
  t.last_destroy.assign(r.vers.size(), range_ref{});
  r.hidden.begin_tracking(r.viewers, r.dims);
  // One walk over the displays' tracker rows decides every viewer's destroys and spawns (a
  // viewer's decisions depend only on its own tracked set and the positions, so they can all
  // be made first): the trackers out of range (or resynced) leave; the viewers in range that
  // do not track the display (now) arrive. The rows are taken cell by cell: a viewer whose
  // range holds the cell's whole box keeps tracking and arrives without a test per row, one
  // whose range misses the box leaves, and only the viewers at its edge are tested row by
  // row, so a steady crowd costs a few word operations per row. Each list is ordered by
  // (join order, entity id) below, so the walk's order does not show.
  t.leaving.clear();
  t.arriving.clear();
  const auto& rows = trackers.rows();
  const std::size_t stride = trackers.stride();
  const viewer_grid& grid = r.viewers.grid();
  t.cells.build(rows, grid.cell_width() / 4);
  t.keep_mask.resize(stride);
  for (const display_cells::cell& c : t.cells.cells()) {
    std::fill(t.keep_mask.begin(), t.keep_mask.end(), 0);
    t.edge_viewers.clear();
    grid.near_box(c.dim, c.box.min_x, c.box.max_x, c.box.min_z, c.box.max_z, [&](std::uint32_t i) {
      const active& a = act[i];
      if (a.dim != c.dim) {
        return;
      }
      switch (reach_of(c.box, a.p->pos.x, a.p->pos.z, a.r2)) {
      case box_reach::inside:
        if (!a.v->resync) {
          t.keep_mask[a.v->slot / 64] |= std::uint64_t{1} << (a.v->slot % 64);
          break;
        }
        t.edge_viewers.push_back(i); // leaves, then arrives again
        break;
      case box_reach::edge:
        t.edge_viewers.push_back(i);
        break;
      case box_reach::outside:
        break;
      }
    });
    for (const std::uint32_t row : t.cells.rows(c)) {
      const tracker_table<display>::row_info& e = rows[row];
      std::uint64_t* w = trackers.words(row);
      for (std::size_t k = 0; k < stride; ++k) {
        for (std::uint64_t b = w[k] & ~t.keep_mask[k]; b != 0; b &= b - 1) {
          const auto s =
              static_cast<std::uint32_t>(k * 64 + static_cast<std::size_t>(std::countr_zero(b)));
          const std::uint32_t i = r.viewers.act_of_slot(s);
          if (i == viewer_set::no_act) {
            continue;
          }
          const active& a = act[i];
          if (a.v->resync || !within(a, e.dim, e.x, e.z, a.r2)) {
            t.leaving.emplace_back(i, e.entity_id);
            w[k] &= ~(std::uint64_t{1} << (s % 64));
          }
        }
        for (std::uint64_t b = t.keep_mask[k] & ~w[k]; b != 0; b &= b - 1) {
          const auto s =
              static_cast<std::uint32_t>(k * 64 + static_cast<std::size_t>(std::countr_zero(b)));
          t.arriving.emplace_back(r.viewers.act_of_slot(s), e.entity_id, e.owner);
        }
      }
      for (const std::uint32_t i : t.edge_viewers) {
        if (!trackers.has(row, act[i].v->slot) && within(act[i], e.dim, e.x, e.z, act[i].r2)) {
          t.arriving.emplace_back(i, e.entity_id, e.owner);
        }
      }
    }
  }
  // A row at a position that is not finite is in nobody's range.
  for (const std::uint32_t row : t.cells.nowhere()) {
    const tracker_table<display>::row_info& e = rows[row];
    trackers.each(row, [&](std::uint32_t s) {
      if (const std::uint32_t i = r.viewers.act_of_slot(s); i != viewer_set::no_act) {
        t.leaving.emplace_back(i, e.entity_id);
        trackers.reset(row, s);
      }
    });
  }
  r.viewers.order_by_viewer(t.leaving, t.leaving_scratch);
  r.viewers.order_by_viewer(t.arriving, t.arriving_scratch);
  std::size_t next_leaving = 0, next_arriving = 0;
  for (std::size_t ai = 0; ai < act.size(); ++ai) {
    const active& a = act[ai];
    viewer& v = *a.v;
    t.destroy_ids.clear();
    for (; next_leaving < t.leaving.size() && t.leaving[next_leaving].first == ai; ++next_leaving) {
      t.destroy_ids.push_back(t.leaving[next_leaving].second);
    }
    t.spawn_list.clear();
    for (; next_arriving < t.arriving.size() && std::get<0>(t.arriving[next_arriving]) == ai;
         ++next_arriving) {
      t.spawn_list.push_back(std::get<2>(t.arriving[next_arriving]));
    }
    if (!t.destroy_ids.empty()) {
      // Viewers that leave a crowd together destroy the same ids: the bytes are kept once.
      t.destroy_bytes.clear();
      byte_writer w(t.destroy_bytes);
      write_entity_destroy(w, *r.vers[a.ver], t.destroy_ids);
      range_ref& last = t.last_destroy[a.ver];
      std::string& data = r.out.out().data;
      if (last.size == 0 || data.compare(last.begin, last.size, t.destroy_bytes) != 0) {
        last = range_ref{static_cast<std::uint32_t>(data.size()),
                         static_cast<std::uint32_t>(t.destroy_bytes.size())};
        data += t.destroy_bytes;
      }
      r.out.single(a, last);
    }
    for (display* d : t.spawn_list) {
      trackers.set(d->row, v.slot);
    }
    send_spawns(r, a, t.spawn_list);
    if (v.resync) {
      v.hidden_seen.clear();
      v.resync = false;
    }
    r.hidden.send_near(a, r.out);
  }
}

void snapshot(render_parts& r, render_output& o) {
  o.clear();
  if (r.vers.empty()) {
    return;
  }
  tracking_scratch& t = r.tr;
  const auto& trackers = r.displays.trackers();
  const auto& act = r.viewers.act();
  r.out.begin(o); // bundle and delimiter caches point into the shared output: start them over
  t.arriving.clear();
  const auto& rows = trackers.rows();
  for (std::uint32_t row = 0; row < rows.size(); ++row) {
    const tracker_table<display>::row_info& e = rows[row];
    if (e.owner == nullptr) {
      continue;
    }
    trackers.each(row, [&](std::uint32_t s) {
      if (const std::uint32_t i = r.viewers.act_of_slot(s); i != viewer_set::no_act) {
        t.arriving.emplace_back(i, e.entity_id, e.owner);
      }
    });
  }
  r.viewers.order_by_viewer(t.arriving, t.arriving_scratch);
  r.hidden.prepare_snapshot();
  std::size_t next = 0;
  for (std::size_t ai = 0; ai < act.size(); ++ai) {
    const active& a = act[ai];
    t.destroy_ids.clear();
    t.spawn_list.clear();
    for (; next < t.arriving.size() && std::get<0>(t.arriving[next]) == ai; ++next) {
      t.destroy_ids.push_back(std::get<1>(t.arriving[next]));
      t.spawn_list.push_back(std::get<2>(t.arriving[next]));
    }
    if (!t.destroy_ids.empty()) {
      r.out.single(a, *r.out.build([&](byte_writer& w) {
        write_entity_destroy(w, *r.vers[a.ver], t.destroy_ids);
      }));
    }
    send_spawns(r, a, t.spawn_list);
    r.hidden.snapshot(a, r.viewers, r.out);
  }
  o.warnings.clear();
  r.out.end();
}

} // namespace emote::render
