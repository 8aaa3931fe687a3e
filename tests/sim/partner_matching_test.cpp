// Partner matching alone (engine/sim/partner_matching.hpp, players.md §7): which offer a player
// joins and why not, the reservation while OFFERING and while WAITING, the re-check into MATCHED
// or a release, and P4's step: WAITING at the offer's end, the countdown to TIMEOUT.
//
// demo:hs: offer demo:hs_offer (D 40), timeout 10s; demo:hs_short: timeout 2t. Facing pairs as
// in two_player_test.cpp: alice at (0,64,0) yaw 0, bob at (0,64,1.2) yaw 180.

#include "parts.hpp"

using namespace simtest;

namespace {

/// alice's offer of `emote` (session 1) with bob standing in front of her.
struct offer_fixture {
  explicit offer_fixture(const std::string& emote = "demo:hs") {
    t.join("alice", {0, 64, 0}, 0);
    t.join("bob", {0, 64, 1.2}, 180);
    REQUIRE(role_of(t.play("alice", emote)) == "initiator");
    t.take_records();
  }
  /// Advance the offer until it is complete, then P4 once (WAITING unless reserved).
  void end_offer() {
    sim::session& s = t.session(1);
    while (!s.pb->offer_complete()) {
      t.advance(s);
    }
    t.matching.step();
  }
  parts t;
};

} // namespace

TEST_CASE("matching: the nearest compatible offer; a tie goes to the earlier one") {
  parts t;
  t.join("p", {0, 64, 0}, 0);
  t.join("a", {0.6, 64, 0.8}, 143);
  t.join("b", {-0.6, 64, 0.8}, -143);
  t.join("c", {0, 64, 0.9}, 180);
  REQUIRE(role_of(t.play("b", "demo:hs")) == "initiator"); // 1
  REQUIRE(role_of(t.play("a", "demo:hs")) == "initiator"); // 2
  const world::player_state& p = *t.players.find("p");
  std::optional<api::unmatched_offer> miss;
  CHECK(t.matching.find_offer("demo:hs", p, &miss, false) == &t.session(1)); // h² 1.0 both
  CHECK_FALSE(miss);
  REQUIRE(role_of(t.play("c", "demo:hs")) == "initiator"); // 3, h² 0.81
  CHECK(t.matching.find_offer("demo:hs", p, &miss, false) == &t.session(3));
  CHECK(t.matching.find_offer("demo:hs_cd", p, &miss, false) == nullptr); // another emote
  CHECK_FALSE(miss);
}

TEST_CASE("matching: no candidate names the nearest offer and its first failed condition") {
  offer_fixture f;
  parts& t = f.t;
  t.join("carol", {0, 64, -1.2}, 0); // behind alice, facing away from her
  std::optional<api::unmatched_offer> miss;
  CHECK(t.matching.find_offer("demo:hs", *t.players.find("carol"), &miss, false) == nullptr);
  REQUIRE(miss);
  CHECK(miss->session == 1);
  CHECK(miss->initiator == "alice");
  CHECK(miss->reason == api::match_failure::initiator_facing);
  // A participant never joins, even a compatible offer; the reason says so.
  miss.reset();
  CHECK(t.matching.find_offer("demo:hs", *t.players.find("bob"), &miss, true) == nullptr);
  REQUIRE(miss);
  CHECK(miss->reason == api::match_failure::participant);
  // Without `miss` nothing is reported, and a compatible player finds the offer.
  CHECK(t.matching.find_offer("demo:hs", *t.players.find("bob"), nullptr, false) == &t.session(1));
}

TEST_CASE("matching: a reservation during the offer is resolved when the offer ends") {
  offer_fixture f;
  parts& t = f.t;
  sim::session& s = t.session(1);
  t.matching.reserve(s, *t.players.find("bob"), true, 0);
  CHECK(t.take_records() == strings{"reserved(1,alice,bob)"});
  CHECK(t.registry.reserving("bob") == &s);
  CHECK(s.phase() == playback::session_phase::offering);
  // A reserved offer is no candidate for anyone else.
  CHECK(t.matching.find_offer("demo:hs", *t.players.find("bob"), nullptr, false) == nullptr);

  f.end_offer();
  CHECK(t.take_records() ==
        strings{"matched(1,alice,bob)", "vis(bob,true,blank)", "started(1,bob,demo:hs,partner)"});
  CHECK(s.phase() == playback::session_phase::matched);
  REQUIRE(s.partner);
  CHECK(s.partner->player == "bob");
  CHECK(s.partner->since == t.tick.now);
  CHECK(t.registry.participating("bob") == &s);
  CHECK(t.registry.reserving("bob") == nullptr);
}

TEST_CASE("matching: a failed re-check releases, and the offer waits") {
  offer_fixture f;
  parts& t = f.t;
  sim::session& s = t.session(1);
  t.matching.reserve(s, *t.players.find("bob"), false, 0);
  t.take_records();
  api::player_fields away;
  away.position = core::dvec3{0, 64, 5};
  REQUIRE(t.players.update("bob", away, t.tick.now));
  CHECK_FALSE(t.matching.resolve_reservation(s));
  CHECK(t.take_records() == strings{"released(1,alice,bob,recheck_failed)"});
  CHECK_FALSE(s.reserved);
  f.end_offer();
  CHECK(s.phase() == playback::session_phase::waiting);
  CHECK(t.take_records().empty());
}

TEST_CASE("matching: a reservation while WAITING is resolved at once") {
  offer_fixture f;
  parts& t = f.t;
  f.end_offer();
  sim::session& s = t.session(1);
  REQUIRE(s.phase() == playback::session_phase::waiting);
  t.matching.reserve(s, *t.players.find("bob"), false, 0);
  CHECK(t.take_records() == strings{"reserved(1,alice,bob)", "matched(1,alice,bob)",
                                    "vis(bob,true,blank)", "started(1,bob,demo:hs,partner)"});
  CHECK(s.phase() == playback::session_phase::matched);
}

TEST_CASE("matching: WAITING counts down T_o ticks of P4, then TIMEOUT") {
  offer_fixture f("demo:hs_short");
  parts& t = f.t;
  f.end_offer();
  sim::session& s = t.session(1);
  REQUIRE(s.phase() == playback::session_phase::waiting);
  CHECK(s.remaining == 2);
  t.matching.step();
  CHECK(s.remaining == 1);
  CHECK(s.phase() == playback::session_phase::waiting);
  CHECK(t.take_records().empty());
  t.matching.step();
  CHECK(s.phase() == playback::session_phase::timeout);
  CHECK(t.take_records() == strings{"timeout(1,alice)"});
  // No longer an offer.
  CHECK(t.matching.find_offer("demo:hs_short", *t.players.find("bob"), nullptr, false) == nullptr);
}
