#include "engine/world/player_registry.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace emote;
using namespace emote::world;

namespace {

api::player_join join_of(const char* id, double x = 0) {
  api::player_join j;
  j.player = id;
  j.fields.position = core::dvec3{x, 64, 0};
  return j;
}

std::vector<std::string> order(const player_registry& r) {
  std::vector<std::string> out;
  r.for_each([&](const player_state& p) { out.push_back(p.id); });
  return out;
}

} // namespace

TEST_CASE("joining an online id is refused and changes nothing") {
  player_registry r;
  REQUIRE(r.join(join_of("alice", 1), 0).ok());
  auto again = r.join(join_of("alice", 99), 5);
  REQUIRE_FALSE(again.ok());
  CHECK(again.error() == join_error::already_online);
  CHECK(r.find("alice")->pos.x == 1);
  CHECK(r.find("alice")->last_action_tick == 0);
  CHECK(r.size() == 1);
}

TEST_CASE("players are kept in join order; a rejoin is a new, later join") {
  player_registry r;
  REQUIRE(r.join(join_of("carol"), 0).ok());
  REQUIRE(r.join(join_of("alice"), 0).ok());
  REQUIRE(r.join(join_of("bob"), 1).ok());
  CHECK(order(r) == std::vector<std::string>{"carol", "alice", "bob"});
  CHECK(r.leave("carol"));
  CHECK_FALSE(r.leave("carol"));
  CHECK_FALSE(r.online("carol"));
  REQUIRE(r.join(join_of("carol"), 2).ok());
  CHECK(order(r) == std::vector<std::string>{"alice", "bob", "carol"});
  CHECK(r.find("carol")->incarnation == 2); // never the incarnation of the earlier join
  CHECK(r.find("alice")->incarnation == 1);
}

TEST_CASE("updates, events and requests go to online players only") {
  player_registry r;
  api::player_fields u;
  u.sneaking = true;
  CHECK_FALSE(r.update("nobody", u, 0).has_value());
  api::player_event e;
  e.kind = api::player_event_kind::jump;
  CHECK_FALSE(r.event("nobody", e, 0).has_value());
  CHECK_FALSE(r.touch("nobody", 0));

  REQUIRE(r.join(join_of("alice"), 0).ok());
  CHECK(r.update("alice", u, 3)->changed);
  CHECK(r.event("alice", e, 4)->events.size() == 1);
  CHECK(r.find("alice")->last_action_tick == 4);
  CHECK(r.touch("alice", 8));
  CHECK(r.find("alice")->last_action_tick == 8);
}

TEST_CASE("a mount without a vehicle id always boards a new vehicle") {
  player_registry r;
  REQUIRE(r.join(join_of("alice"), 0).ok());
  api::player_event m;
  m.kind = api::player_event_kind::mount;
  auto first = r.event("alice", m, 1);
  REQUIRE(first->events.size() == 1);
  CHECK(first->events[0].kind == event_kind::start_riding);
  auto second = r.event("alice", m, 2);
  REQUIRE(second->events.size() == 1);
  CHECK(second->events[0].kind == event_kind::start_riding);
  CHECK(r.find("alice")->riding());
}

TEST_CASE("begin_tick records yaw_prev") {
  player_registry r;
  api::player_join j = join_of("alice");
  j.fields.yaw = 10.0f;
  REQUIRE(r.join(j, 0).ok());
  api::player_fields u;
  u.yaw = 40.0f;
  r.update("alice", u, 0);
  CHECK(r.find("alice")->yaw_prev == 10.0f);
  r.begin_tick();
  CHECK(r.find("alice")->yaw_prev == 40.0f);
}
