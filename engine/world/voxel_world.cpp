#include "engine/world/voxel_world.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace emote::world {
namespace {

constexpr std::int32_t section_of(std::int32_t v) noexcept {
  return v >> 4;
} // floor division
constexpr std::size_t index_in_section(std::int32_t x, std::int32_t y, std::int32_t z) noexcept {
  return static_cast<std::size_t>((x & 15) | ((z & 15) << 4) | ((y & 15) << 8));
}

bool in_int32(std::int64_t v) noexcept {
  return v >= std::numeric_limits<std::int32_t>::min() &&
         v <= std::numeric_limits<std::int32_t>::max();
}

struct box {
  cell lo, hi;
};

box normalized(const cell& a, const cell& b) noexcept {
  return {{std::min(a.x, b.x), std::min(a.y, b.y), std::min(a.z, b.z)},
          {std::max(a.x, b.x), std::max(a.y, b.y), std::max(a.z, b.z)}};
}

std::int64_t extent(std::int32_t lo, std::int32_t hi) noexcept {
  return static_cast<std::int64_t>(hi) - static_cast<std::int64_t>(lo) + 1;
}

/// Cells in the box, saturated so the product cannot overflow (each extent is at most 2^32).
std::int64_t volume(const box& b) noexcept {
  const std::int64_t cap = std::int64_t{1} << 62;
  std::int64_t v = extent(b.lo.x, b.hi.x);
  for (std::int64_t e : {extent(b.lo.y, b.hi.y), extent(b.lo.z, b.hi.z)}) {
    v = (v > cap / e) ? cap : v * e;
  }
  return v;
}

} // namespace

std::size_t dimension_grid::key_hash::operator()(const section_key& k) const noexcept {
  // Mix the three coordinates into 64 bits; the sections are few, so a simple mix suffices.
  std::uint64_t h = static_cast<std::uint32_t>(k.x);
  h = h * 0x9E3779B97F4A7C15ULL ^ static_cast<std::uint32_t>(k.y);
  h = h * 0x9E3779B97F4A7C15ULL ^ static_cast<std::uint32_t>(k.z);
  h ^= h >> 29;
  return static_cast<std::size_t>(h * 0xBF58476D1CE4E5B9ULL);
}

block_kind dimension_grid::at(std::int64_t x, std::int64_t y, std::int64_t z) const noexcept {
  if (!in_int32(x) || !in_int32(y) || !in_int32(z)) {
    return block_kind::passable;
  }
  const auto xi = static_cast<std::int32_t>(x);
  const auto yi = static_cast<std::int32_t>(y);
  const auto zi = static_cast<std::int32_t>(z);
  const auto it = sections_.find({section_of(xi), section_of(yi), section_of(zi)});
  if (it == sections_.end()) {
    return block_kind::passable;
  }
  return static_cast<block_kind>(it->second->kinds[index_in_section(xi, yi, zi)]);
}

bool dimension_grid::set(const cell& c, block_kind k) {
  const section_key key{section_of(c.x), section_of(c.y), section_of(c.z)};
  auto it = sections_.find(key);
  if (it == sections_.end()) {
    if (k == block_kind::passable) {
      return false;
    }
    it = sections_.emplace(key, std::make_unique<section>()).first;
  }
  section& s = *it->second;
  auto& slot = s.kinds[index_in_section(c.x, c.y, c.z)];
  const auto old = static_cast<block_kind>(slot);
  if (old == k) {
    return false;
  }
  slot = static_cast<std::uint8_t>(k);
  if (old == block_kind::passable) {
    ++s.stored;
    ++stored_;
  } else if (k == block_kind::passable) {
    --s.stored;
    --stored_;
    if (s.stored == 0) {
      sections_.erase(it);
    }
  }
  return true;
}

std::int64_t dimension_grid::clear_box(const cell& lo, const cell& hi) {
  // Visit the stored sections rather than the box, so clearing a huge box costs no more than the
  // world holds. Keys are collected first because clearing may erase sections.
  std::vector<section_key> keys;
  keys.reserve(sections_.size());
  for (const auto& [key, s] : sections_) {
    const bool overlaps = key.x >= section_of(lo.x) && key.x <= section_of(hi.x) &&
                          key.y >= section_of(lo.y) && key.y <= section_of(hi.y) &&
                          key.z >= section_of(lo.z) && key.z <= section_of(hi.z);
    if (overlaps) {
      keys.push_back(key);
    }
  }
  std::int64_t removed = 0;
  for (const auto& key : keys) {
    const std::int64_t base_x = std::int64_t{key.x} * 16;
    const std::int64_t base_y = std::int64_t{key.y} * 16;
    const std::int64_t base_z = std::int64_t{key.z} * 16;
    const auto x0 = static_cast<std::int32_t>(std::max<std::int64_t>(lo.x, base_x));
    const auto x1 = static_cast<std::int32_t>(std::min<std::int64_t>(hi.x, base_x + 15));
    const auto y0 = static_cast<std::int32_t>(std::max<std::int64_t>(lo.y, base_y));
    const auto y1 = static_cast<std::int32_t>(std::min<std::int64_t>(hi.y, base_y + 15));
    const auto z0 = static_cast<std::int32_t>(std::max<std::int64_t>(lo.z, base_z));
    const auto z1 = static_cast<std::int32_t>(std::min<std::int64_t>(hi.z, base_z + 15));
    for (std::int32_t y = y0; y <= y1; ++y) {
      for (std::int32_t z = z0; z <= z1; ++z) {
        for (std::int32_t x = x0; x <= x1; ++x) {
          // Once set() erased the emptied section, the remaining calls find nothing to do.
          if (set({x, y, z}, block_kind::passable)) {
            ++removed;
          }
        }
      }
    }
  }
  return removed;
}

const dimension_grid* voxel_world::dimension(std::string_view dim) const noexcept {
  const auto it = dims_.find(dim);
  return it == dims_.end() ? nullptr : &it->second;
}

block_kind voxel_world::at(std::string_view dim, const cell& c) const noexcept {
  const dimension_grid* g = dimension(dim);
  return g ? g->at(c) : block_kind::passable;
}

std::int64_t voxel_world::total_sections() const noexcept {
  std::int64_t n = 0;
  for (const auto& [name, g] : dims_) {
    n += static_cast<std::int64_t>(g.sections());
  }
  return n;
}

std::int64_t voxel_world::new_sections_for(const dimension_grid* g, const cell& lo,
                                           const cell& hi) const {
  const box sb{{section_of(lo.x), section_of(lo.y), section_of(lo.z)},
               {section_of(hi.x), section_of(hi.y), section_of(hi.z)}};
  const std::int64_t touched = volume(sb);
  if (g == nullptr || touched > limits_.max_sections + static_cast<std::int64_t>(g->sections())) {
    return touched;
  }
  std::int64_t missing = 0;
  for (std::int32_t y = sb.lo.y; y <= sb.hi.y; ++y) {
    for (std::int32_t z = sb.lo.z; z <= sb.hi.z; ++z) {
      for (std::int32_t x = sb.lo.x; x <= sb.hi.x; ++x) {
        missing += g->sections_.contains({x, y, z}) ? 0 : 1;
      }
    }
  }
  return missing;
}

core::result<std::int64_t, world_error> voxel_world::apply(std::string_view dim,
                                                           std::span<const block_edit> edits) {
  const dimension_grid* existing = dimension(dim);
  std::int64_t budget = limits_.max_sections - total_sections();
  for (const auto& e : edits) {
    if (e.kind == block_kind::passable) {
      continue;
    }
    const box b = normalized(e.from, e.to);
    if (volume(b) > limits_.max_fill_cells) {
      return core::failure{world_error::fill_too_large};
    }
    // Overlapping edits are counted separately: a safe over-estimate.
    budget -= new_sections_for(existing, b.lo, b.hi);
    if (budget < 0) {
      return core::failure{world_error::world_too_large};
    }
  }
  std::int64_t changed = 0;
  for (const auto& e : edits) {
    const box b = normalized(e.from, e.to);
    if (e.kind == block_kind::passable) {
      const auto it = dims_.find(dim);
      if (it != dims_.end()) {
        changed += it->second.clear_box(b.lo, b.hi);
      }
      continue;
    }
    auto it = dims_.find(dim);
    if (it == dims_.end()) {
      it = dims_.emplace(std::string(dim), dimension_grid{}).first;
    }
    dimension_grid& g = it->second;
    for (std::int32_t y = b.lo.y;; ++y) {
      for (std::int32_t z = b.lo.z;; ++z) {
        for (std::int32_t x = b.lo.x;; ++x) {
          changed += g.set({x, y, z}, e.kind) ? 1 : 0;
          if (x == b.hi.x) {
            break;
          }
        }
        if (z == b.hi.z) {
          break;
        }
      }
      if (y == b.hi.y) {
        break;
      }
    }
  }
  return changed;
}

core::result<std::int64_t, world_error> voxel_world::apply(const api::world_blocks& wb) {
  std::vector<block_edit> edits;
  edits.reserve(wb.edits.size());
  for (const auto& e : wb.edits) {
    edits.push_back({{e.from[0], e.from[1], e.from[2]}, {e.to[0], e.to[1], e.to[2]}, e.kind});
  }
  return apply(wb.dimension, edits);
}

core::result<std::int64_t, world_error> voxel_world::fill(std::string_view dim, const cell& a,
                                                          const cell& b, block_kind k) {
  const block_edit e{a, b, k};
  return apply(dim, std::span<const block_edit>(&e, 1));
}

core::result<bool, world_error> voxel_world::set(std::string_view dim, const cell& c,
                                                 block_kind k) {
  auto r = fill(dim, c, c, k);
  if (!r) {
    return core::failure{r.error()};
  }
  return *r > 0;
}

std::int64_t voxel_world::clear(std::string_view dim) {
  const auto it = dims_.find(dim);
  if (it == dims_.end()) {
    return 0;
  }
  const std::int64_t n = it->second.stored_cells();
  dims_.erase(it);
  return n;
}

std::int64_t voxel_world::clear_all() {
  std::int64_t n = 0;
  for (const auto& [name, g] : dims_) {
    n += g.stored_cells();
  }
  dims_.clear();
  return n;
}

void voxel_world::describe(core::state_sink& s) const {
  s.begin_map("world");
  std::vector<std::pair<std::array<std::int32_t, 3>, const dimension_grid::section*>> order;
  for (const auto& [dim, grid] : dims_) {
    if (grid.sections_.empty()) {
      continue;
    }
    s.begin_map(dim);
    order.clear();
    for (const auto& [k, sec] : grid.sections_) {
      order.push_back({{k.x, k.y, k.z}, sec.get()});
    }
    std::sort(order.begin(), order.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [k, sec] : order) {
      const std::string key =
          std::to_string(k[0]) + "," + std::to_string(k[1]) + "," + std::to_string(k[2]);
      std::uint64_t h = core::mix64_seed;
      for (std::size_t i = 0; i < sec->kinds.size(); i += 8) {
        std::uint64_t w = 0;
        std::memcpy(&w, sec->kinds.data() + i, 8);
        h = core::mix64(h, w);
      }
      s.begin_object(key);
      s.i64("stored", sec->stored);
      s.u64("cells", h);
      s.end_object();
    }
    s.end_object();
  }
  s.end_object();
}

} // namespace emote::world
