#pragma once
// The viewers of one renderer step bucketed by (dimension, cell), for the range queries of the
// event and tracking passes (render.md §4). A part of the renderer (render/render_parts.hpp), with
// its own unit tests (tests/render/parts_test.cpp).

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace emote::render {

/// The viewers bucketed by (dimension, cell) with cells at least as wide as the largest range
/// any of them has, so every viewer within range of a point is in the 3 × 3 cells around it.
/// An open-addressing table rebuilt every step (its storage is kept); each cell lists its
/// viewers in join order.
class viewer_grid {
public:
  /// `count` viewers; `at(i)` gives viewer i's (dim, x, z); `reach` the largest range.
  template <class At>
  void build(std::size_t count, double reach, At&& at) {
    cell_ = std::max(16.0, std::isfinite(reach) ? reach : 16.0);
    const std::size_t cap = std::bit_ceil(std::max<std::size_t>(16, 2 * count));
    if (keys_.size() < cap) {
      keys_.resize(cap);
      used_.resize(cap);
      begin_.resize(cap);
      count_.resize(cap);
    }
    mask_ = cap - 1;
    std::fill_n(used_.begin(), cap, false);
    std::fill_n(count_.begin(), cap, 0U);
    slot_of_.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      const auto [dim, x, z] = at(i);
      const std::size_t slot = insert(key{dim, coord(x), coord(z)});
      ++count_[slot];
      slot_of_[i] = static_cast<std::uint32_t>(slot);
    }
    std::uint32_t next = 0;
    for (std::size_t slot = 0; slot <= mask_; ++slot) {
      begin_[slot] = next;
      next += count_[slot];
    }
    items_.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      items_[begin_[slot_of_[i]]++] = static_cast<std::uint32_t>(i);
    }
    for (std::size_t slot = 0; slot <= mask_; ++slot) {
      begin_[slot] -= count_[slot];
    }
  }

  /// `f(viewer index)` for every viewer in the 3 × 3 cells around (x, z) in `dim` (a superset
  /// of those whose range reaches the point), cell by cell.
  template <class F>
  void near(std::int32_t dim, double x, double z, F&& f) const {
    const std::int64_t cx = coord(x), cz = coord(z);
    for (std::int64_t i = cx - 1; i <= cx + 1; ++i) {
      for (std::int64_t k = cz - 1; k <= cz + 1; ++k) {
        if (i < INT32_MIN || i > INT32_MAX || k < INT32_MIN || k > INT32_MAX) {
          continue;
        }
        const std::size_t slot =
            find(key{dim, static_cast<std::int32_t>(i), static_cast<std::int32_t>(k)});
        if (slot == npos) {
          continue;
        }
        for (std::uint32_t n = begin_[slot]; n < begin_[slot] + count_[slot]; ++n) {
          f(items_[n]);
        }
      }
    }
  }

  /// `f(viewer index)` for every viewer in the cells around the box [min_x, max_x] × [min_z,
  /// max_z] in `dim` (finite bounds): a superset of those whose range reaches some point of it.
  template <class F>
  void near_box(std::int32_t dim, double min_x, double max_x, double min_z, double max_z,
                F&& f) const {
    const std::int64_t x0 = std::int64_t{coord(min_x)} - 1, x1 = std::int64_t{coord(max_x)} + 1;
    const std::int64_t z0 = std::int64_t{coord(min_z)} - 1, z1 = std::int64_t{coord(max_z)} + 1;
    for (std::int64_t i = x0; i <= x1; ++i) {
      for (std::int64_t k = z0; k <= z1; ++k) {
        if (i < INT32_MIN || i > INT32_MAX || k < INT32_MIN || k > INT32_MAX) {
          continue;
        }
        const std::size_t slot =
            find(key{dim, static_cast<std::int32_t>(i), static_cast<std::int32_t>(k)});
        if (slot == npos) {
          continue;
        }
        for (std::uint32_t n = begin_[slot]; n < begin_[slot] + count_[slot]; ++n) {
          f(items_[n]);
        }
      }
    }
  }

  /// The width of a cell (at least the largest range).
  [[nodiscard]] double cell_width() const noexcept { return cell_; }

private:
  struct key {
    std::int32_t dim = 0, cx = 0, cz = 0;
    bool operator==(const key&) const = default;
  };
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  /// The cell coordinate (clamped; NaN goes to 0, and is in nobody's range).
  [[nodiscard]] std::int32_t coord(double v) const noexcept {
    const double c = std::floor(v / cell_);
    if (!(c > -2147483647.0)) {
      return c < 0 ? -2147483647 : 0;
    }
    return c < 2147483647.0 ? static_cast<std::int32_t>(c) : 2147483647;
  }
  [[nodiscard]] std::size_t hash(const key& k) const noexcept {
    std::uint64_t h = static_cast<std::uint32_t>(k.cx) * 0x9E3779B97F4A7C15ULL;
    h ^= static_cast<std::uint32_t>(k.cz) * 0xC2B2AE3D27D4EB4FULL;
    h ^= static_cast<std::uint32_t>(k.dim) * 0x165667B19E3779F9ULL;
    h ^= h >> 29;
    return static_cast<std::size_t>(h) & mask_;
  }
  std::size_t insert(const key& k) {
    for (std::size_t slot = hash(k);; slot = (slot + 1) & mask_) {
      if (!used_[slot]) {
        used_[slot] = true;
        keys_[slot] = k;
        return slot;
      }
      if (keys_[slot] == k) {
        return slot;
      }
    }
  }
  [[nodiscard]] std::size_t find(const key& k) const noexcept {
    for (std::size_t slot = hash(k);; slot = (slot + 1) & mask_) {
      if (!used_[slot]) {
        return npos;
      }
      if (keys_[slot] == k) {
        return slot;
      }
    }
  }

  double cell_ = 16;
  std::vector<key> keys_;
  std::vector<bool> used_;
  std::vector<std::uint32_t> begin_, count_, slot_of_, items_;
  std::size_t mask_ = 0;
};

} // namespace emote::render
