#pragma once
// The voxel world of players.md §2.1: per dimension, a sparse map from integer cell to a kind.
// Unset cells are `passable`. Storage is in 16×16×16 sections so that a traversal's lookups stay
// cheap and a filled box costs a byte per cell, never a map node.

#include "engine/api/types.hpp"
#include "engine/core/result.hpp"
#include "engine/core/state_digest.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace emote::world {

using api::block_kind;

struct cell {
  std::int32_t x = 0;
  std::int32_t y = 0;
  std::int32_t z = 0;
  friend constexpr bool operator==(const cell&, const cell&) = default;
  friend constexpr auto operator<=>(const cell&, const cell&) = default;
};

/// Bounds that keep one edit from exhausting memory (see docs/guide/players-implementation.md).
struct world_limits {
  /// Largest box a single non-passable fill may cover.
  std::int64_t max_fill_cells = std::int64_t{1} << 22;
  /// Most 4096-cell sections the whole world may hold (4 KiB each).
  std::int64_t max_sections = std::int64_t{1} << 14;
};

enum class world_error : std::uint8_t {
  fill_too_large,  ///< a box over `max_fill_cells`
  world_too_large, ///< the edit would need more than `max_sections` sections
};

/// One dimension's cells.
class dimension_grid {
public:
  [[nodiscard]] block_kind at(std::int64_t x, std::int64_t y, std::int64_t z) const noexcept;
  [[nodiscard]] block_kind at(const cell& c) const noexcept { return at(c.x, c.y, c.z); }
  /// Cells that are not passable.
  [[nodiscard]] std::int64_t stored_cells() const noexcept { return stored_; }
  [[nodiscard]] std::size_t sections() const noexcept { return sections_.size(); }

private:
  friend class voxel_world;
  struct section_key {
    std::int32_t x, y, z;
    friend bool operator==(const section_key&, const section_key&) = default;
  };
  struct key_hash {
    std::size_t operator()(const section_key& k) const noexcept;
  };
  struct section {
    std::array<std::uint8_t, 4096> kinds{}; ///< block_kind values; 0 = passable
    std::int32_t stored = 0;                ///< non-passable cells
  };

  /// Set one cell; returns whether its kind changed.
  bool set(const cell& c, block_kind k);
  std::int64_t clear_box(const cell& lo, const cell& hi);

  // Lookup only; never iterated where order could reach output.
  std::unordered_map<section_key, std::unique_ptr<section>, key_hash> sections_;
  std::int64_t stored_ = 0;
};

/// One `world.blocks` entry: a box (inclusive, a single cell when `from` = `to`) and a kind.
struct block_edit {
  cell from;
  cell to;
  block_kind kind = block_kind::passable;
};

class voxel_world {
public:
  explicit voxel_world(world_limits limits = {}) : limits_(limits) {}

  /// The dimension's grid, or nullptr when nothing was ever set there (all passable).
  [[nodiscard]] const dimension_grid* dimension(std::string_view dim) const noexcept;
  [[nodiscard]] block_kind at(std::string_view dim, const cell& c) const noexcept;

  /// `set(dim, cell, kind)`; returns whether the cell changed.
  core::result<bool, world_error> set(std::string_view dim, const cell& c, block_kind k);
  /// `fill(dim, min, max, kind)`, inclusive; the corners may come in any order. Returns the
  /// number of cells whose kind changed.
  core::result<std::int64_t, world_error> fill(std::string_view dim, const cell& a, const cell& b,
                                               block_kind k);
  /// Several edits at once, all or nothing: every edit is checked against the limits before
  /// any is applied. Returns the number of cells changed.
  core::result<std::int64_t, world_error> apply(std::string_view dim,
                                                std::span<const block_edit> edits);
  /// A `world.blocks` input (api::world_blocks), all or nothing like `apply`.
  core::result<std::int64_t, world_error> apply(const api::world_blocks& wb);
  /// `clear(dim)`: every cell of the dimension becomes passable. Returns the cells removed.
  std::int64_t clear(std::string_view dim);
  /// Every dimension. Returns the cells removed.
  std::int64_t clear_all();

  [[nodiscard]] std::int64_t total_sections() const noexcept;
  [[nodiscard]] const world_limits& limits() const noexcept { return limits_; }

  /// Per dimension, its stored sections in coordinate order, each with its non-passable count
  /// and a 64-bit digest of its cells (protocol.md §8 state digests). Costs one pass over the
  /// stored sections (4 KiB each).
  void describe(core::state_sink& s) const;

private:
  /// Sections a non-passable box would add at most (an upper bound: sections it touches that do
  /// not exist yet).
  [[nodiscard]] std::int64_t new_sections_for(const dimension_grid* g, const cell& lo,
                                              const cell& hi) const;

  world_limits limits_;
  std::map<std::string, dimension_grid, std::less<>> dims_;
};

} // namespace emote::world
