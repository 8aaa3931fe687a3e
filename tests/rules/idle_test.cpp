#include "engine/rules/idle.hpp"

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace emote;
using namespace emote::rules;

namespace {

struct fake_host : idle_host {
  std::set<std::string> busy_players;
  std::set<std::string> failing; ///< emotes whose play fails
  std::vector<std::pair<std::string, std::string>> plays;
  bool busy(const world::player_state& p) override { return busy_players.contains(p.id); }
  bool play(const world::player_state& p, const std::string& emote) override {
    plays.emplace_back(p.id, emote);
    return !failing.contains(emote);
  }
};

access_policy idle_policy(std::int64_t delay, std::vector<std::string> emotes,
                          std::vector<std::int32_t> weights = {}) {
  access_rule r;
  r.permission = "emote.default";
  r.emotes = {"*"};
  r.idle = access_rule::idle_settings{delay, std::move(emotes), std::move(weights)};
  auto p = access_policy::compile({}, {r});
  REQUIRE(p.ok());
  return std::move(*p);
}

void join(world::player_registry& players, const char* id, tick_number now) {
  api::player_join j;
  j.player = id;
  j.fields.position = core::dvec3{0, 64, 0};
  REQUIRE(players.join(j, now).ok());
}

/// Run the pass on every tick in [from, to].
void run_ticks(idle_scheduler& s, tick_number from, tick_number to,
               const world::player_registry& players, const access_policy& policy,
               const id_set& catalog, fake_host& host) {
  for (tick_number t = from; t <= to; ++t) {
    s.run(t, players, policy, catalog, host);
  }
}

} // namespace

TEST_CASE("the choice: lone candidate, equal draws excluding the last, weighted running sums") {
  // java.util.Random(0 ^ 0x49444C45): nextInt(3) = 0, nextInt(2) = 0, nextInt(100) = 86,
  // nextInt(70) = 62 (values from a JVM).
  core::java_random rng(0 ^ 0x49444C45);
  const std::vector<idle_candidate> one{{"demo:a", 0}};
  CHECK(idle_scheduler::choose(one, std::string("demo:a"), rng) == "demo:a"); // no draw
  const std::vector<idle_candidate> equal{{"demo:a", 0}, {"demo:b", 0}, {"demo:c", 0}};
  CHECK(idle_scheduler::choose(equal, std::nullopt, rng) == "demo:a");          // nextInt(3) = 0
  CHECK(idle_scheduler::choose(equal, std::string("demo:a"), rng) == "demo:b"); // nextInt(2) = 0
  const std::vector<idle_candidate> weighted{{"demo:a", 30}, {"demo:b", 40}, {"demo:c", 30}};
  CHECK(idle_scheduler::choose(weighted, std::nullopt, rng) == "demo:c"); // 86: 30, 70, 100 > 86
  CHECK(idle_scheduler::choose(weighted, std::string("demo:c"), rng) == "demo:b"); // 62 < 70
  CHECK_FALSE(idle_scheduler::choose({}, std::nullopt, rng));
}

TEST_CASE("the pass runs on ticks with T mod 10 = 0 and plays when due") {
  world::player_registry players;
  join(players, "alice", 3);
  const access_policy policy = idle_policy(100, {"emote:sit"});
  const id_set catalog({"emote:sit"});
  idle_scheduler s(0);
  fake_host host;
  s.run(5, players, policy, catalog, host);
  CHECK(s.find("alice") == nullptr); // not a pass tick
  s.run(10, players, policy, catalog, host);
  REQUIRE(s.find("alice") != nullptr);
  CHECK(s.find("alice")->scheduled == 103);
  CHECK(s.find("alice")->candidate == std::optional<std::string>("emote:sit"));
  run_ticks(s, 11, 109, players, policy, catalog, host);
  CHECK(host.plays.empty());
  s.run(110, players, policy, catalog, host);
  REQUIRE(host.plays.size() == 1);
  CHECK(host.plays[0] == std::pair<std::string, std::string>("alice", "emote:sit"));
  CHECK(s.find("alice")->last_played == std::optional<std::string>("emote:sit"));
  CHECK(s.find("alice")->scheduled == 203); // += k·delay, k = floor(7/100) + 1
}

TEST_CASE("a busy player is skipped; the schedule catches up by whole delays") {
  world::player_registry players;
  join(players, "alice", 0);
  const access_policy policy = idle_policy(100, {"emote:sit"});
  const id_set catalog({"emote:sit"});
  idle_scheduler s(0);
  fake_host host;
  host.busy_players.insert("alice");
  run_ticks(s, 0, 340, players, policy, catalog, host);
  CHECK(host.plays.empty());
  host.busy_players.clear();
  s.run(350, players, policy, catalog, host);
  REQUIRE(host.plays.size() == 1);
  CHECK(s.find("alice")->scheduled == 400); // 100 + (floor(250/100) + 1)·100
}

TEST_CASE("a failed play retries 20 ticks later with the same candidate") {
  world::player_registry players;
  join(players, "alice", 0);
  const access_policy policy = idle_policy(50, {"emote:sit"});
  const id_set catalog({"emote:sit"});
  idle_scheduler s(0);
  fake_host host;
  host.failing.insert("emote:sit");
  run_ticks(s, 0, 50, players, policy, catalog, host);
  CHECK(host.plays.size() == 1);
  CHECK(s.find("alice")->scheduled == 70);
  run_ticks(s, 51, 70, players, policy, catalog, host);
  CHECK(host.plays.size() == 2);
  CHECK(s.find("alice")->scheduled == 90);
  CHECK_FALSE(s.find("alice")->last_played);
}

TEST_CASE("no resolvable candidate: choose again and retry in 20 ticks") {
  world::player_registry players;
  join(players, "alice", 0);
  const access_policy policy = idle_policy(50, {"emote:sit"});
  idle_scheduler s(0);
  fake_host host;
  const id_set empty;
  run_ticks(s, 0, 50, players, policy, empty, host);
  CHECK(host.plays.empty());
  CHECK_FALSE(s.find("alice")->candidate);
  CHECK(s.find("alice")->scheduled == 70);
  const id_set loaded({"emote:sit"});
  run_ticks(s, 51, 60, players, policy, loaded, host);
  CHECK(host.plays.empty());
  // Due again at 70: the candidate now resolves, and the play waits for the next retry.
  s.run(70, players, policy, loaded, host);
  CHECK(host.plays.empty());
  CHECK(s.find("alice")->scheduled == 90);
  CHECK(s.find("alice")->candidate == std::optional<std::string>("emote:sit"));
  run_ticks(s, 71, 90, players, policy, loaded, host);
  REQUIRE(host.plays.size() == 1);
}

TEST_CASE("a new action or new settings recreate the state") {
  world::player_registry players;
  join(players, "alice", 0);
  const access_policy policy = idle_policy(100, {"emote:sit"});
  const id_set catalog({"emote:sit"});
  idle_scheduler s(0);
  fake_host host;
  s.run(0, players, policy, catalog, host);
  CHECK(s.find("alice")->scheduled == 100);
  api::player_fields u;
  u.sneaking = true;
  players.update("alice", u, 42);
  s.run(50, players, policy, catalog, host);
  CHECK(s.find("alice")->scheduled == 142);
  const access_policy longer = idle_policy(300, {"emote:sit"});
  s.run(60, players, longer, catalog, host);
  CHECK(s.find("alice")->scheduled == 342);
  run_ticks(s, 61, 340, players, longer, catalog, host);
  CHECK(host.plays.empty());
}

TEST_CASE("players without idle settings have no state; forget and clear drop states") {
  world::player_registry players;
  join(players, "alice", 0);
  join(players, "bob", 0);
  api::player_fields u;
  u.permissions = std::map<std::string, bool>{{"emote.default", false}};
  players.update("bob", u, 0);
  const access_policy policy = idle_policy(100, {"emote:sit"});
  const id_set catalog({"emote:sit"});
  idle_scheduler s(0);
  fake_host host;
  s.run(0, players, policy, catalog, host);
  CHECK(s.find("alice") != nullptr);
  CHECK(s.find("bob") == nullptr);
  s.forget("alice");
  CHECK(s.find("alice") == nullptr);
  s.run(10, players, policy, catalog, host);
  CHECK(s.find("alice") != nullptr);
  s.clear();
  CHECK(s.find("alice") == nullptr);
  // A player who left without forget() is dropped by the next pass.
  s.run(20, players, policy, catalog, host);
  players.leave("alice");
  s.run(30, players, policy, catalog, host);
  CHECK(s.find("alice") == nullptr);
}

TEST_CASE("players are visited in join order and share one generator") {
  world::player_registry players;
  join(players, "zed", 0);
  join(players, "amy", 0);
  const access_policy policy = idle_policy(10, {"demo:a", "demo:b", "demo:c"});
  const id_set catalog({"demo:a", "demo:b", "demo:c"});
  idle_scheduler s(0);
  fake_host host;
  s.run(10, players, policy, catalog, host);
  // Draw order: zed's creation, zed's choice after playing, amy's creation, amy's choice.
  REQUIRE(host.plays.size() == 2);
  CHECK(host.plays[0].first == "zed");
  CHECK(host.plays[1].first == "amy");
  core::java_random rng(0 ^ 0x49444C45);
  const std::vector<idle_candidate> c{{"demo:a", 0}, {"demo:b", 0}, {"demo:c", 0}};
  const auto zed_first = idle_scheduler::choose(c, std::nullopt, rng);
  const auto zed_next = idle_scheduler::choose(c, zed_first, rng);
  const auto amy_first = idle_scheduler::choose(c, std::nullopt, rng);
  const auto amy_next = idle_scheduler::choose(c, amy_first, rng);
  CHECK(host.plays[0].second == *zed_first);
  CHECK(s.find("zed")->candidate == zed_next);
  CHECK(host.plays[1].second == *amy_first);
  CHECK(s.find("amy")->candidate == amy_next);
}
