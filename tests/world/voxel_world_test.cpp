#include "engine/world/voxel_world.hpp"

#include <doctest/doctest.h>

#include <limits>
#include <vector>

using namespace emote::world;

namespace {
constexpr const char* ow = "minecraft:overworld";
}

TEST_CASE("unset cells are passable; set reports a change only when the kind changes") {
  voxel_world w;
  CHECK(w.at(ow, {0, 0, 0}) == block_kind::passable);
  CHECK(w.dimension(ow) == nullptr);
  CHECK(*w.set(ow, {3, -7, -20}, block_kind::solid));
  CHECK_FALSE(*w.set(ow, {3, -7, -20}, block_kind::solid));
  CHECK(w.at(ow, {3, -7, -20}) == block_kind::solid);
  CHECK(w.at(ow, {3, -7, -19}) == block_kind::passable);
  CHECK(*w.set(ow, {3, -7, -20}, block_kind::water));
  CHECK(w.at(ow, {3, -7, -20}) == block_kind::water);
  CHECK(*w.set(ow, {3, -7, -20}, block_kind::passable));
  CHECK_FALSE(*w.set(ow, {3, -7, -20}, block_kind::passable));
  CHECK(w.dimension(ow)->stored_cells() == 0);
  CHECK(w.dimension(ow)->sections() == 0); // emptied sections are dropped
  CHECK(w.at("minecraft:the_nether", {3, -7, -20}) == block_kind::passable);
}

TEST_CASE("fill is inclusive, takes its corners in any order and counts changed cells") {
  voxel_world w;
  CHECK(*w.fill(ow, {2, 1, 2}, {-1, 0, 0}, block_kind::solid) == 4 * 2 * 3);
  CHECK(w.at(ow, {-1, 0, 0}) == block_kind::solid);
  CHECK(w.at(ow, {2, 1, 2}) == block_kind::solid);
  CHECK(w.at(ow, {3, 1, 2}) == block_kind::passable);
  CHECK(*w.fill(ow, {0, 0, 0}, {0, 5, 0}, block_kind::solid) == 4); // 2 cells were solid
  CHECK(*w.fill(ow, {-100, -100, -100}, {100, 100, 100}, block_kind::passable) == 28);
  CHECK(w.dimension(ow)->stored_cells() == 0);
}

TEST_CASE("clearing a huge box costs only what the world holds") {
  voxel_world w;
  REQUIRE(w.set(ow, {5, 5, 5}, block_kind::water));
  constexpr auto lo = std::numeric_limits<std::int32_t>::min();
  constexpr auto hi = std::numeric_limits<std::int32_t>::max();
  CHECK(*w.fill(ow, {lo, lo, lo}, {hi, hi, hi}, block_kind::passable) == 1);
}

TEST_CASE("cells at the int32 edges") {
  voxel_world w;
  constexpr auto lo = std::numeric_limits<std::int32_t>::min();
  constexpr auto hi = std::numeric_limits<std::int32_t>::max();
  CHECK(*w.fill(ow, {hi - 1, lo, hi}, {hi, lo + 1, hi}, block_kind::solid) == 4);
  CHECK(w.at(ow, {hi, lo, hi}) == block_kind::solid);
  const dimension_grid* g = w.dimension(ow);
  CHECK(g->at(std::int64_t{hi} + 1, lo, hi) == block_kind::passable);
}

TEST_CASE("limits refuse oversized edits and apply is all or nothing") {
  voxel_world w({/*max_fill_cells=*/1000, /*max_sections=*/4});
  auto big = w.fill(ow, {0, 0, 0}, {10, 10, 10}, block_kind::solid); // 1331 cells
  REQUIRE_FALSE(big.ok());
  CHECK(big.error() == world_error::fill_too_large);
  auto wide = w.fill(ow, {0, 0, 0}, {99, 0, 0}, block_kind::solid); // 7 sections
  REQUIRE_FALSE(wide.ok());
  CHECK(wide.error() == world_error::world_too_large);
  CHECK(w.total_sections() == 0);

  const std::vector<block_edit> edits{{{0, 0, 0}, {0, 0, 0}, block_kind::solid},
                                      {{0, 0, 0}, {10, 10, 10}, block_kind::water}};
  REQUIRE_FALSE(w.apply(ow, edits).ok());
  CHECK(w.at(ow, {0, 0, 0}) == block_kind::passable); // nothing applied

  const std::vector<block_edit> fine{{{0, 0, 0}, {0, 0, 0}, block_kind::solid},
                                     {{1, 0, 0}, {2, 0, 0}, block_kind::water},
                                     {{0, 0, 0}, {0, 0, 0}, block_kind::passable}};
  CHECK(*w.apply(ow, fine) == 4);
  CHECK(w.at(ow, {0, 0, 0}) == block_kind::passable);
  CHECK(w.at(ow, {2, 0, 0}) == block_kind::water);
  // Filling inside existing sections needs no new ones.
  CHECK(*w.fill(ow, {0, 1, 0}, {15, 1, 0}, block_kind::solid) == 16);
}

TEST_CASE("clear one dimension or all of them") {
  voxel_world w;
  REQUIRE(w.fill(ow, {0, 0, 0}, {1, 1, 1}, block_kind::solid).ok());
  REQUIRE(w.set("minecraft:the_end", {0, 0, 0}, block_kind::water).ok());
  CHECK(w.clear("minecraft:nowhere") == 0);
  CHECK(w.clear(ow) == 8);
  CHECK(w.at(ow, {0, 0, 0}) == block_kind::passable);
  CHECK(w.at("minecraft:the_end", {0, 0, 0}) == block_kind::water);
  CHECK(w.clear_all() == 1);
  CHECK(w.total_sections() == 0);
}

TEST_CASE("a world.blocks input applies its edits in order") {
  voxel_world w;
  emote::api::world_blocks wb;
  wb.dimension = "minecraft:the_end";
  emote::api::block_edit fill;
  fill.from[0] = 0;
  fill.to[0] = 3;
  fill.kind = block_kind::solid;
  emote::api::block_edit hole;
  hole.from[0] = hole.to[0] = 1;
  hole.kind = block_kind::passable;
  wb.edits = {fill, hole};
  CHECK(*w.apply(wb) == 5);
  CHECK(w.at("minecraft:the_end", {0, 0, 0}) == block_kind::solid);
  CHECK(w.at("minecraft:the_end", {1, 0, 0}) == block_kind::passable);
  CHECK(w.at("minecraft:the_end", {3, 0, 0}) == block_kind::solid);
  CHECK(w.at(ow, {0, 0, 0}) == block_kind::passable);
}
