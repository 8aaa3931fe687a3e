// The renderer's parts on their own: the tracker table (T(E) of render.md §4), the viewer grid
// (the range queries of the event and tracking passes) and the display cells (the tracking
// pass's whole-cell range decisions).

#include "render/display_cells.hpp"
#include "render/tracker_table.hpp"
#include "render/viewer_grid.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <tuple>
#include <vector>

using namespace emote::render;

namespace {

struct owner {
  int id = 0;
};

std::vector<std::uint32_t> slots_of(const tracker_table<owner>& t, std::uint32_t row) {
  std::vector<std::uint32_t> out;
  t.each(row, [&](std::uint32_t s) { out.push_back(s); });
  return out;
}

} // namespace

TEST_CASE("tracker table: rows, bits, the lowest free row first") {
  tracker_table<owner> t;
  owner a{1}, b{2}, c{3};
  const std::uint32_t ra = t.add(&a);
  const std::uint32_t rb = t.add(&b);
  CHECK(ra == 0);
  CHECK(rb == 1);
  t.reserve_slots(130); // three words per row
  t.set(ra, 0);
  t.set(ra, 64);
  t.set(ra, 129);
  t.set(rb, 5);
  CHECK(slots_of(t, ra) == std::vector<std::uint32_t>{0, 64, 129});
  CHECK(t.has(rb, 5));
  CHECK_FALSE(t.has(rb, 0));
  // Widening keeps every bit.
  t.reserve_slots(300);
  CHECK(slots_of(t, ra) == std::vector<std::uint32_t>{0, 64, 129});
  t.reset(ra, 64);
  CHECK(slots_of(t, ra) == std::vector<std::uint32_t>{0, 129});
  t.forget(129);
  CHECK(slots_of(t, ra) == std::vector<std::uint32_t>{0});
  // A removed row is cleared and reused before a new one.
  t.place(ra, 3, 10.5, -2.0, 1007);
  CHECK(t.rows()[ra].entity_id == 1007);
  CHECK(t.rows()[ra].dim == 3);
  t.remove(ra);
  CHECK(t.rows()[ra].owner == nullptr);
  CHECK(slots_of(t, ra).empty());
  CHECK(t.add(&c) == ra);
  CHECK(t.rows()[ra].owner == &c);
  CHECK(t.add(&a) == 2);
}

TEST_CASE("tracker table: each() may reset the slot it is given") {
  tracker_table<owner> t;
  owner a;
  const std::uint32_t r = t.add(&a);
  t.reserve_slots(200);
  for (std::uint32_t s = 0; s < 200; s += 3) {
    t.set(r, s);
  }
  std::vector<std::uint32_t> seen;
  t.each(r, [&](std::uint32_t s) {
    seen.push_back(s);
    t.reset(r, s);
  });
  CHECK(seen.size() == 67);
  CHECK(slots_of(t, r).empty());
}

TEST_CASE("viewer grid: near() is a superset of every viewer within the reach, per dimension") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> coord(-500, 500);
  struct v {
    std::int32_t dim;
    double x, z;
  };
  std::vector<v> viewers;
  for (int i = 0; i < 400; ++i) {
    viewers.push_back({i % 3 == 0 ? 1 : 0, coord(rng), coord(rng)});
  }
  viewer_grid g;
  const double reach = 96;
  g.build(viewers.size(), reach, [&](std::size_t i) {
    return std::tuple{viewers[i].dim, viewers[i].x, viewers[i].z};
  });
  for (int q = 0; q < 200; ++q) {
    const std::int32_t dim = q % 2;
    const double x = coord(rng), z = coord(rng);
    std::set<std::uint32_t> found;
    std::vector<std::uint32_t> order;
    g.near(dim, x, z, [&](std::uint32_t i) {
      found.insert(i);
      order.push_back(i);
    });
    CHECK(found.size() == order.size()); // each viewer once
    for (std::uint32_t i = 0; i < viewers.size(); ++i) {
      const double dx = viewers[i].x - x, dz = viewers[i].z - z;
      if (viewers[i].dim == dim && dx * dx + dz * dz <= reach * reach) {
        CHECK(found.count(i) == 1);
      }
      if (found.count(i) != 0) {
        CHECK(viewers[i].dim == dim);
      }
    }
  }
}

TEST_CASE("viewer grid: extreme and non-finite coordinates are bucketed without overflow") {
  viewer_grid g;
  const std::vector<std::tuple<std::int32_t, double, double>> at{
      {0, 1e300, -1e300}, {0, std::nan(""), 0}, {0, 0, 0}, {0, -1e18, 1e18}};
  g.build(at.size(), std::numeric_limits<double>::infinity(),
          [&](std::size_t i) { return at[i]; });
  std::vector<std::uint32_t> found;
  g.near(0, 0, 0, [&](std::uint32_t i) { found.push_back(i); });
  CHECK(std::find(found.begin(), found.end(), 2U) != found.end());
}

TEST_CASE("viewer grid: a box query finds every viewer whose range reaches a point of the box") {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> coord(-300, 300), size(0, 40);
  struct at {
    std::int32_t dim;
    double x, z;
  };
  std::vector<at> viewers;
  for (int i = 0; i < 300; ++i) {
    viewers.push_back({i % 4 == 0 ? 1 : 0, coord(rng), coord(rng)});
  }
  viewer_grid g;
  const double reach = 64;
  g.build(viewers.size(), reach, [&](std::size_t i) {
    return std::tuple{viewers[i].dim, viewers[i].x, viewers[i].z};
  });
  for (int q = 0; q < 200; ++q) {
    const double x0 = coord(rng), z0 = coord(rng);
    const double x1 = x0 + size(rng), z1 = z0 + size(rng);
    std::set<std::uint32_t> found;
    g.near_box(0, x0, x1, z0, z1, [&](std::uint32_t i) { CHECK(found.insert(i).second); });
    for (std::uint32_t i = 0; i < viewers.size(); ++i) {
      // The nearest point of the box.
      const double nx = std::clamp(viewers[i].x, x0, x1), nz = std::clamp(viewers[i].z, z0, z1);
      const double dx = nx - viewers[i].x, dz = nz - viewers[i].z;
      if (viewers[i].dim == 0 && dx * dx + dz * dz <= reach * reach) {
        CHECK(found.count(i) == 1);
      }
    }
  }
}

namespace {

struct row {
  double x = 0, z = 0;
  std::int32_t dim = 0;
  std::int32_t entity_id = 0;
  struct owner* owner = nullptr;
};

} // namespace

TEST_CASE("display cells: a whole-box decision agrees with every point's own test") {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> coord(-200, 200), jitter(-1e-9, 1e-9);
  owner o;
  std::vector<row> rows;
  for (int i = 0; i < 2000; ++i) {
    row r;
    r.x = coord(rng);
    r.z = coord(rng);
    r.dim = i % 5 == 0 ? 7 : 0;
    r.owner = i % 17 == 3 ? nullptr : &o; // free rows are skipped
    rows.push_back(r);
  }
  // Rows exactly on a range's circle (and within a rounding of it) decide at the edge.
  for (int i = 0; i < 64; ++i) {
    const double a = i * 0.1;
    row r;
    r.x = 50 + 40 * std::cos(a) + jitter(rng);
    r.z = -20 + 40 * std::sin(a);
    r.owner = &o;
    rows.push_back(r);
  }
  display_cells cells;
  cells.build(rows, 25);
  std::size_t listed = 0, inside = 0, outside = 0, edge = 0;
  for (const display_cells::cell& c : cells.cells()) {
    std::uint32_t previous = 0;
    bool first = true;
    for (const std::uint32_t r : cells.rows(c)) {
      ++listed;
      CHECK(rows[r].dim == c.dim);
      CHECK(rows[r].owner != nullptr);
      CHECK((first || r > previous)); // ascending within a cell
      CHECK(rows[r].x >= c.box.min_x);
      CHECK(rows[r].x <= c.box.max_x);
      CHECK(rows[r].z >= c.box.min_z);
      CHECK(rows[r].z <= c.box.max_z);
      previous = r;
      first = false;
    }
    for (const auto& [qx, qz, r2] : {std::tuple{50.0, -20.0, 1600.0}, std::tuple{0.0, 0.0, 10000.0},
                                     std::tuple{-150.0, 170.0, 400.0}, std::tuple{0.0, 0.0, -1.0}}) {
      const box_reach reach = reach_of(c.box, qx, qz, r2);
      inside += reach == box_reach::inside;
      outside += reach == box_reach::outside;
      edge += reach == box_reach::edge;
      for (const std::uint32_t r : cells.rows(c)) {
        const bool in = distance2(rows[r].x - qx, rows[r].z - qz) <= r2;
        if (reach == box_reach::inside) {
          CHECK(in);
        }
        if (reach == box_reach::outside) {
          CHECK_FALSE(in);
        }
      }
    }
  }
  std::size_t live = 0;
  for (const row& r : rows) {
    live += r.owner != nullptr;
  }
  CHECK(listed == live);
  CHECK(cells.nowhere().empty());
  // All three answers occur, so the test can tell a wrong one.
  CHECK(inside > 0);
  CHECK(outside > 0);
  CHECK(edge > 0);
}

TEST_CASE("display cells: a row at a non-finite position is nowhere, a point box is exact") {
  owner o;
  std::vector<row> rows(4);
  for (row& r : rows) {
    r.owner = &o;
  }
  rows[0] = row{std::nan(""), 0, 0, 1, &o};
  rows[1] = row{10, 0, 0, 2, &o};
  rows[2] = row{std::numeric_limits<double>::infinity(), 5, 0, 3, &o};
  rows[3] = row{10, 0, 0, 4, &o}; // the same position as row 1: one cell, a point box
  display_cells cells;
  cells.build(rows, 40);
  CHECK(std::vector<std::uint32_t>(cells.nowhere().begin(), cells.nowhere().end()) ==
        std::vector<std::uint32_t>{0, 2});
  REQUIRE(cells.cells().size() == 1);
  const display_cells::cell& c = cells.cells()[0];
  CHECK(cells.rows(c).size() == 2);
  // A point box is never at an edge: the range holds it or not.
  CHECK(reach_of(c.box, 0, 0, 100) == box_reach::inside);
  CHECK(reach_of(c.box, 0, 0, 99.999) == box_reach::outside);
}
