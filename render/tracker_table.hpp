#pragma once
// The tracker sets T(E) of render.md §4: which viewer slots track which display, one row of bits
// per live display. A part of the renderer (render/render_parts.hpp), with its own unit tests
// (tests/render/parts_test.cpp).

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace emote::render {

/// T(E) of render.md §4 for every live display: a row of bits per display (bit s = viewer slot
/// s tracks it) in one block, with the row's position, dimension and entity id beside it, so
/// the tracking pass walks contiguous memory instead of the displays themselves. `Owner` is what
/// a row belongs to (the renderer's display).
template <class Owner>
class tracker_table {
public:
  struct row_info {
    double x = 0, z = 0;
    std::int32_t dim = 0;
    std::int32_t entity_id = 0;
    Owner* owner = nullptr; ///< null: a free row
  };

  /// A row for `owner`, with no bits set.
  std::uint32_t add(Owner* owner) {
    std::uint32_t row = 0;
    if (!free_.empty()) {
      // The lowest free row, as the engine gives the lowest free handle: rows then mostly
      // follow handles, which keeps the tracking pass's lists in order.
      std::pop_heap(free_.begin(), free_.end(), std::greater<>());
      row = free_.back();
      free_.pop_back();
    } else {
      row = static_cast<std::uint32_t>(info_.size());
      info_.emplace_back();
      bits_.resize(bits_.size() + stride_, 0);
    }
    info_[row] = row_info{};
    info_[row].owner = owner;
    return row;
  }
  void remove(std::uint32_t row) {
    std::fill_n(bits_.begin() + static_cast<std::ptrdiff_t>(row * stride_), stride_, 0);
    info_[row] = row_info{};
    free_.push_back(row);
    std::push_heap(free_.begin(), free_.end(), std::greater<>());
  }
  void place(std::uint32_t row, std::int32_t dim, double x, double z, std::int32_t entity_id) {
    row_info& i = info_[row];
    i.dim = dim;
    i.x = x;
    i.z = z;
    i.entity_id = entity_id;
  }
  void move(std::uint32_t row, double x, double z) {
    info_[row].x = x;
    info_[row].z = z;
  }
  /// Room for viewer slots 0..slots-1 in every row.
  void reserve_slots(std::uint32_t slots) {
    const std::size_t want = (static_cast<std::size_t>(slots) + 63) / 64;
    if (want <= stride_) {
      return;
    }
    std::vector<std::uint64_t> wider(info_.size() * want, 0);
    for (std::size_t r = 0; r < info_.size(); ++r) {
      std::copy_n(bits_.begin() + static_cast<std::ptrdiff_t>(r * stride_), stride_,
                  wider.begin() + static_cast<std::ptrdiff_t>(r * want));
    }
    bits_.swap(wider);
    stride_ = want;
  }

  [[nodiscard]] bool has(std::uint32_t row, std::uint32_t slot) const noexcept {
    return ((bits_[row * stride_ + slot / 64] >> (slot % 64)) & 1U) != 0;
  }
  void set(std::uint32_t row, std::uint32_t slot) noexcept {
    bits_[row * stride_ + slot / 64] |= std::uint64_t{1} << (slot % 64);
  }
  void reset(std::uint32_t row, std::uint32_t slot) noexcept {
    bits_[row * stride_ + slot / 64] &= ~(std::uint64_t{1} << (slot % 64));
  }
  /// `f(slot)` for every slot of the row, ascending; `f` may reset the slot it is given.
  template <class F>
  void each(std::uint32_t row, F&& f) const {
    const std::uint64_t* w = bits_.data() + row * stride_;
    for (std::size_t k = 0; k < stride_; ++k) {
      for (std::uint64_t b = w[k]; b != 0; b &= b - 1) {
        f(static_cast<std::uint32_t>(k * 64 + static_cast<std::size_t>(std::countr_zero(b))));
      }
    }
  }
  /// The row's words (stride() of them; bit s of word s / 64 is slot s).
  [[nodiscard]] const std::uint64_t* words(std::uint32_t row) const noexcept {
    return bits_.data() + row * stride_;
  }
  [[nodiscard]] std::uint64_t* words(std::uint32_t row) noexcept {
    return bits_.data() + row * stride_;
  }
  [[nodiscard]] std::size_t stride() const noexcept { return stride_; }
  void prefetch(std::uint32_t row) const noexcept {
    __builtin_prefetch(bits_.data() + row * stride_);
  }
  /// Clear `slot` in every row.
  void forget(std::uint32_t slot) noexcept {
    if (slot / 64 >= stride_) {
      return;
    }
    for (std::size_t r = 0; r < info_.size(); ++r) {
      bits_[r * stride_ + slot / 64] &= ~(std::uint64_t{1} << (slot % 64));
    }
  }

  [[nodiscard]] const std::vector<row_info>& rows() const noexcept { return info_; }

private:
  std::vector<std::uint64_t> bits_; ///< rows × stride_ words
  std::size_t stride_ = 0;
  std::vector<row_info> info_;
  std::vector<std::uint32_t> free_;
};

} // namespace emote::render
