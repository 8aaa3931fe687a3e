#pragma once
// The live displays' tracker rows bucketed by (dimension, cell) for one step, each cell with the
// bounding box of its rows' positions: a viewer's range (render.md §4) is then decided for a
// whole cell when the box lies entirely inside or outside it, and row by row only at its edge.
// A part of the renderer (render/render_parts.hpp), with its own unit tests
// (tests/render/parts_test.cpp).

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace emote::render {

/// The squared horizontal distance every range test of the renderer uses. The bounds below are
/// exact because it is monotone in |dx| and |dz| in binary64 (the project builds with
/// -ffp-contract=off, so no fused form differs from one use to another).
constexpr double distance2(double dx, double dz) noexcept {
  return dx * dx + dz * dz;
}

/// Where a box of points lies against a viewer's range.
enum class box_reach : std::uint8_t {
  inside,  ///< every point is within the range (distance2 <= r2)
  outside, ///< no point is
  edge,    ///< some may be: decide point by point
};

struct cell_box {
  double min_x = 0, max_x = 0, min_z = 0, max_z = 0;
};

/// The reach of a range of squared radius `r2` around (x, z) over `b` (finite coordinates):
/// `inside` only when distance2 of every point of the box is <= r2, `outside` only when it is >
/// r2 for every point, exactly as a test of each point would find. For a point in the box,
/// fl(px - x) lies between fl(min - x) and fl(max - x) (rounding is monotone), so the farthest
/// and the nearest corner (or edge) bound every point's distance2.
inline box_reach reach_of(const cell_box& b, double x, double z, double r2) noexcept {
  const double far_x = std::max(std::abs(b.min_x - x), std::abs(b.max_x - x));
  const double far_z = std::max(std::abs(b.min_z - z), std::abs(b.max_z - z));
  if (distance2(far_x, far_z) <= r2) {
    return box_reach::inside;
  }
  const double near_x = x < b.min_x ? b.min_x - x : (x > b.max_x ? x - b.max_x : 0.0);
  const double near_z = z < b.min_z ? b.min_z - z : (z > b.max_z ? z - b.max_z : 0.0);
  if (distance2(near_x, near_z) > r2) {
    return box_reach::outside;
  }
  return box_reach::edge;
}

/// The rows of one step by (dimension, cell of `width` blocks), rebuilt every step (its storage
/// is kept). Cells come in the order of their first row; each lists its rows ascending. Rows
/// with a coordinate that is not finite are in nobody's range (distance2 is NaN or infinite)
/// and are listed apart.
class display_cells {
public:
  struct cell {
    std::int32_t dim = 0;
    cell_box box;
    std::uint32_t begin = 0, count = 0; ///< into rows()
  };

  /// `rows` is the tracker table's row list (row_info: x, z, dim, owner; null owner = free).
  template <class RowInfo>
  void build(const std::vector<RowInfo>& rows, double width) {
    width_ = width > 0 && std::isfinite(width) ? width : 16.0;
    cells_.clear();
    nowhere_.clear();
    cell_of_.resize(rows.size());
    const std::size_t cap = std::bit_ceil(std::max<std::size_t>(16, 2 * rows.size()));
    if (table_.size() < cap) {
      table_.resize(cap);
    }
    mask_ = cap - 1;
    std::fill_n(table_.begin(), cap, slot{});
    for (std::uint32_t r = 0; r < rows.size(); ++r) {
      const RowInfo& e = rows[r];
      cell_of_[r] = none;
      if (e.owner == nullptr) {
        continue;
      }
      if (!std::isfinite(e.x) || !std::isfinite(e.z)) {
        nowhere_.push_back(r);
        continue;
      }
      const key k{e.dim, coord(e.x), coord(e.z)};
      std::size_t s = hash(k);
      while (table_[s].used && !(table_[s].k == k)) {
        s = (s + 1) & mask_;
      }
      if (!table_[s].used) {
        table_[s] = slot{k, static_cast<std::uint32_t>(cells_.size()), true};
        cells_.push_back(cell{e.dim, cell_box{e.x, e.x, e.z, e.z}, 0, 0});
      }
      cell& c = cells_[table_[s].index];
      c.box.min_x = std::min(c.box.min_x, e.x);
      c.box.max_x = std::max(c.box.max_x, e.x);
      c.box.min_z = std::min(c.box.min_z, e.z);
      c.box.max_z = std::max(c.box.max_z, e.z);
      ++c.count;
      cell_of_[r] = table_[s].index;
    }
    std::uint32_t at = 0;
    for (cell& c : cells_) {
      c.begin = at;
      at += c.count;
      c.count = 0;
    }
    members_.resize(at);
    for (std::uint32_t r = 0; r < rows.size(); ++r) {
      if (cell_of_[r] != none) {
        cell& c = cells_[cell_of_[r]];
        members_[c.begin + c.count++] = r;
      }
    }
  }

  [[nodiscard]] std::span<const cell> cells() const noexcept { return cells_; }
  [[nodiscard]] std::span<const std::uint32_t> rows(const cell& c) const noexcept {
    return std::span<const std::uint32_t>(members_).subspan(c.begin, c.count);
  }
  /// The rows with a coordinate that is not finite, ascending.
  [[nodiscard]] std::span<const std::uint32_t> nowhere() const noexcept { return nowhere_; }

private:
  struct key {
    std::int32_t dim = 0;
    std::int64_t cx = 0, cz = 0;
    bool operator==(const key&) const = default;
  };
  struct slot {
    key k;
    std::uint32_t index = 0;
    bool used = false;
  };
  static constexpr std::uint32_t none = 0xFFFFFFFFU;

  [[nodiscard]] std::int64_t coord(double v) const noexcept {
    const double c = std::floor(v / width_);
    return c < -4e18 ? std::int64_t{-4'000'000'000'000'000'000} // far out: one cell each side
           : c > 4e18 ? std::int64_t{4'000'000'000'000'000'000}
                      : static_cast<std::int64_t>(c);
  }
  [[nodiscard]] std::size_t hash(const key& k) const noexcept {
    std::uint64_t h = static_cast<std::uint64_t>(k.cx) * 0x9E3779B97F4A7C15ULL;
    h ^= static_cast<std::uint64_t>(k.cz) * 0xC2B2AE3D27D4EB4FULL;
    h ^= static_cast<std::uint32_t>(k.dim) * 0x165667B19E3779F9ULL;
    h ^= h >> 29;
    return static_cast<std::size_t>(h) & mask_;
  }

  double width_ = 16;
  std::vector<cell> cells_;
  std::vector<std::uint32_t> members_, cell_of_, nowhere_;
  std::vector<slot> table_;
  std::size_t mask_ = 0;
};

} // namespace emote::render
