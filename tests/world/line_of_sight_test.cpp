#include "engine/world/line_of_sight.hpp"

#include <doctest/doctest.h>

#include <vector>

using emote::core::dvec3;
using namespace emote::world;

namespace {

player_state at(double x, double y, double z, const char* dim = "minecraft:overworld") {
  player_state p;
  p.id = "p";
  p.pos = {x, y, z};
  p.dimension = dim;
  return p;
}

void put(voxel_world& w, cell c, block_kind k) {
  REQUIRE(w.set("minecraft:overworld", c, k));
}

} // namespace

TEST_CASE("R43: solid blocks sight, water and passable do not") {
  const player_state i = at(0.5, 64, 0.5);
  const player_state p = at(0.5, 64, 2.0);
  voxel_world w;
  CHECK(line_of_sight(w, i, p));
  put(w, {0, 65, 1}, block_kind::solid);
  CHECK_FALSE(line_of_sight(w, i, p));
  put(w, {0, 65, 1}, block_kind::water);
  CHECK(line_of_sight(w, i, p));
  put(w, {0, 65, 1}, block_kind::passable);
  CHECK(line_of_sight(w, i, p));
}

TEST_CASE("R44: the traversal through corners, and a → b differs from b → a") {
  const player_state i = at(0.5, 64, 0.5);
  const player_state p = at(2.5, 64, 2.5);
  const std::vector<grid_cell> forward{{0, 65, 0}, {0, 65, 1}, {1, 65, 1}, {1, 65, 2}, {2, 65, 2}};
  CHECK(traversal_cells(eye_position(i), eye_position(p)) == forward);
  const std::vector<grid_cell> backward{{2, 65, 2}, {2, 65, 1}, {1, 65, 1}, {1, 65, 0}, {0, 65, 0}};
  CHECK(traversal_cells(eye_position(p), eye_position(i)) == backward);
  {
    voxel_world w;
    put(w, {0, 65, 1}, block_kind::solid);
    CHECK_FALSE(line_of_sight(w, i, p));
    CHECK(line_of_sight(w, p, i));
  }
  {
    voxel_world w;
    put(w, {1, 65, 0}, block_kind::solid);
    CHECK(line_of_sight(w, i, p));
    CHECK_FALSE(line_of_sight(w, p, i));
  }
  {
    voxel_world w;
    put(w, {2, 65, 1}, block_kind::solid);
    CHECK_FALSE(line_of_sight(w, p, i));
  }
}

TEST_CASE("R45: a ray in the plane x = 1 visits only the x = 1 column") {
  const player_state i = at(1.0, 64, 0.5);
  const player_state p = at(1.0, 64, 2.0);
  {
    voxel_world w;
    put(w, {0, 65, 1}, block_kind::solid);
    CHECK(line_of_sight(w, i, p));
  }
  {
    voxel_world w;
    put(w, {1, 65, 1}, block_kind::solid);
    CHECK_FALSE(line_of_sight(w, i, p));
  }
}

TEST_CASE("R46: an eye inside a solid block sees nothing and is not seen") {
  {
    voxel_world w;
    put(w, {0, 65, 0}, block_kind::solid);
    CHECK_FALSE(line_of_sight(w, at(0.5, 64, 0.5), at(0.5, 64, 1.7)));
  }
  {
    voxel_world w;
    put(w, {0, 65, 1}, block_kind::solid);
    CHECK_FALSE(line_of_sight(w, at(0.5, 64, 0.5), at(0.5, 64, 1.7)));
  }
}

TEST_CASE("R47: a ray ending on the near face of a solid block is not blocked") {
  voxel_world w;
  put(w, {0, 65, 1}, block_kind::solid);
  const dimension_grid* g = w.dimension("minecraft:overworld");
  CHECK(sight_between(g, {0.5, 65.5, 0.5}, {0.5, 65.5, 1.0}));
  CHECK(sight_between(g, {0.5, 65.5, 0.5}, {0.5, 65.5, 0.9999}));
  // Just past the face it is blocked.
  CHECK_FALSE(sight_between(g, {0.5, 65.5, 0.5}, {0.5, 65.5, 1.0001}));
}

TEST_CASE("R48: 128 blocks is in range, a hair more is not; dimensions must match") {
  voxel_world w;
  CHECK(line_of_sight(w, at(0.5, 64, 0.5), at(0.5, 64, 128.5)));
  CHECK_FALSE(line_of_sight(w, at(0.5, 64, 0.5), at(0.5, 64, 128.50000000001)));
  CHECK_FALSE(line_of_sight(w, at(0.5, 64, 0.5), at(0.5, 64, 1.5, "minecraft:the_nether")));
  // 128 exactly with a block in between is still blocked by the block, not the range.
  put(w, {0, 65, 60}, block_kind::solid);
  CHECK_FALSE(line_of_sight(w, at(0.5, 64, 0.5), at(0.5, 64, 128.5)));
}

TEST_CASE("R49: the partner's eye height decides whether a low wall blocks") {
  voxel_world w;
  put(w, {0, 64, 1}, block_kind::solid);
  const player_state i = at(0.5, 64, 0.5);
  player_state p = at(0.5, 64, 2.5);
  CHECK(line_of_sight(w, i, p));
  p.sneaking = true;
  CHECK(line_of_sight(w, i, p));
  p.sneaking = false;
  p.swimming = true;
  CHECK_FALSE(line_of_sight(w, i, p));
}

TEST_CASE("coincident eyes and very short rays") {
  voxel_world w;
  put(w, {0, 65, 0}, block_kind::solid);
  // players.md §2.2 step 3: A = B sees, even inside a block.
  CHECK(line_of_sight(w, at(0.5, 64, 0.5), at(0.5, 64, 0.5)));
  // players.md §2.4 step 1: |d|² < 1e-7 is never blocked.
  const dimension_grid* g = w.dimension("minecraft:overworld");
  CHECK(sight_between(g, {0.5, 65.5, 0.5}, {0.5, 65.5, 0.5001}));
  CHECK_FALSE(sight_between(g, {0.5, 65.5, 0.5}, {0.5, 65.5, 0.501}));
}

TEST_CASE("cube_hit: start inside, entry faces, and misses") {
  const grid_cell c{0, 0, 0};
  CHECK(cube_hit({0.5, 0.5, 0.5}, {3, 0, 0}, c));       // starts inside
  CHECK(cube_hit({-1, 0.5, 0.5}, {3, 0, 0}, c));        // enters through x = 0
  CHECK(cube_hit({2, 0.5, 0.5}, {-3, 0, 0}, c));        // enters through x = 1
  CHECK_FALSE(cube_hit({-1, 1.5, 0.5}, {3, 0, 0}, c));  // passes above
  CHECK_FALSE(cube_hit({-2, 0.5, 0.5}, {1, 0, 0}, c));  // stops short (t = 2 > 1)
  CHECK(cube_hit({-1, 1.00000005, 0.5}, {3, 0, 0}, c)); // within the 1e-7 tolerance
  CHECK_FALSE(cube_hit({-1, 1.0000002, 0.5}, {3, 0, 0}, c));
}

TEST_CASE("non-finite or far-apart points are handled without hanging") {
  voxel_world w;
  put(w, {0, 0, 0}, block_kind::solid);
  const dimension_grid* g = w.dimension("minecraft:overworld");
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK_FALSE(sight_between(g, {0, 0, 0}, {inf, 0, 0}));
  CHECK_FALSE(sight_between(g, {nan, 0, 0}, {1, 0, 0}));
  CHECK_FALSE(sight_between(g, {0, 0, 0}, {1e300, 0, 0}));
  // Huge coordinates close together: the traversal stays short.
  CHECK(sight_between(g, {1e17, 5, 5}, {1e17 + 64, 5, 5}));
  CHECK(sight_between(g, {2147483647.5, 5, 5}, {2147483700.5, 5, 5}));
}
