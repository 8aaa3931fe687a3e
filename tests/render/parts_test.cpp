// The renderer's parts on their own: the tracker table (T(E) of render.md §4) and the viewer grid
// (the range queries of the event and tracking passes).

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
