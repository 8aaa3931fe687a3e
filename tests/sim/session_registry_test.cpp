// The session registry alone (engine/sim/session_registry.hpp): registration in creation order,
// participation and reservation lookups, detach into the ended sessions, the displays counted
// against the limit, walks that a stop does not disturb, P5's creation order over registered and
// ended sessions, and molang.md §5.2 `is_hidden_by_emote`. Bookkeeping only, so the sessions
// here carry no playback.

#include "engine/sim/session_registry.hpp"

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

using namespace emote;
using sim::session;
using sim::session_registry;

namespace {

/// A session of `player` with the registry's next id and `displays` display entities.
session& add(session_registry& r, const std::string& player, std::int64_t displays = 1,
             bool hidden = false, api::tick_number since = 0) {
  auto s = std::make_unique<session>();
  s->id = r.next_id();
  s->emote = "t:e";
  s->displays = displays;
  s->settings.hidden = hidden;
  s->initiator.player = player;
  s->initiator.since = since;
  return r.add(std::move(s));
}

std::vector<api::session_id> ids(std::span<session* const> walk) {
  std::vector<api::session_id> out;
  for (const session* s : walk) {
    out.push_back(s->id);
  }
  return out;
}

} // namespace

TEST_CASE("registry: ids count up, the initiator participates, displays are counted") {
  session_registry r;
  CHECK(r.next_id() == 1);
  CHECK(r.displays() == 0);
  session& a = add(r, "alice", 3);
  session& b = add(r, "bob", 4);
  CHECK(a.id == 1);
  CHECK(b.id == 2);
  CHECK(r.next_id() == 3);
  CHECK(r.size() == 2);
  CHECK(r.displays() == 7);
  CHECK(r.participating("alice") == &a);
  CHECK(r.participating("bob") == &b);
  CHECK(r.participating("carol") == nullptr);
  CHECK(r.reserving("alice") == nullptr);
}

TEST_CASE("registry: detach moves the session to the ended ones and drops its participants") {
  session_registry r;
  session& a = add(r, "alice", 3);
  session& b = add(r, "bob", 4);
  b.partner.emplace();
  b.partner->player = "carol";
  r.add_participant(b, "carol");
  CHECK(r.participating("carol") == &b);

  r.detach(b);
  CHECK(r.size() == 1);
  CHECK(r.sessions().front().get() == &a);
  CHECK(r.participating("bob") == nullptr);
  CHECK(r.participating("carol") == nullptr);
  CHECK(r.participating("alice") == &a);
  CHECK(r.displays() == 3);
  // Ended, not destroyed: the session is still there until clear_ended.
  std::vector<api::session_id> ended;
  r.clear_ended([&](session& s) { ended.push_back(s.id); });
  CHECK(ended == std::vector<api::session_id>{2});
  ended.clear();
  r.clear_ended([&](session& s) { ended.push_back(s.id); });
  CHECK(ended.empty());
  // The id is not reused.
  CHECK(r.next_id() == 3);
}

TEST_CASE("registry: a participant entry taken over by a newer session is not dropped") {
  session_registry r;
  session& a = add(r, "alice");
  session& b = add(r, "alice"); // the replacement registers before the old one's stop ends
  CHECK(r.participating("alice") == &b);
  r.detach(a);
  CHECK(r.participating("alice") == &b);
}

TEST_CASE("registry: reservations are per player and dropped only by their session") {
  session_registry r;
  session& a = add(r, "alice");
  session& b = add(r, "bob");
  r.add_reservation(a, "carol");
  CHECK(r.reserving("carol") == &a);
  r.drop_reservation(b, "carol"); // not b's
  CHECK(r.reserving("carol") == &a);
  r.add_reservation(b, "carol");
  CHECK(r.reserving("carol") == &b);
  r.drop_reservation(a, "carol");
  CHECK(r.reserving("carol") == &b);
  r.drop_reservation(b, "carol");
  CHECK(r.reserving("carol") == nullptr);
  // detach leaves a reservation for its owner to drop (players.md §3.6 drops it with a record).
  r.add_reservation(a, "dave");
  r.detach(a);
  CHECK(r.reserving("dave") == &a);
  r.drop_reservation(a, "dave");
  CHECK(r.reserving("dave") == nullptr);
}

TEST_CASE("registry: a walk is not changed by detaching during it") {
  session_registry r;
  add(r, "a");
  add(r, "b");
  add(r, "c");
  const auto walk = r.walk();
  CHECK(ids(walk) == std::vector<api::session_id>{1, 2, 3});
  std::vector<api::session_id> seen;
  for (session* s : walk) {
    seen.push_back(s->id);
    if (s->id == 1) {
      r.detach(*r.sessions()[0]); // session 1 itself
      r.detach(*r.sessions()[0]); // and session 2, ahead of the walk
    }
  }
  CHECK(seen == std::vector<api::session_id>{1, 2, 3});
  CHECK(ids(r.walk()) == std::vector<api::session_id>{3});
}

TEST_CASE("registry: P5 order merges registered and ended sessions by id") {
  session_registry r;
  for (const char* p : {"a", "b", "c", "d", "e"}) {
    add(r, p);
  }
  // Ended out of id order: 4, then 2.
  r.detach(*r.sessions()[3]);
  r.detach(*r.sessions()[1]);
  add(r, "f");
  std::vector<api::session_id> order;
  r.for_each_in_creation_order([&](session& s) { order.push_back(s.id); });
  CHECK(order == std::vector<api::session_id>{1, 2, 3, 4, 5, 6});
  std::vector<api::session_id> ended;
  r.clear_ended([&](session& s) { ended.push_back(s.id); });
  CHECK(ended == std::vector<api::session_id>{2, 4});
  order.clear();
  r.for_each_in_creation_order([&](session& s) { order.push_back(s.id); });
  CHECK(order == std::vector<api::session_id>{1, 3, 5, 6});
}

TEST_CASE("registry: hidden by emote from the tick after the player became a participant") {
  session_registry r;
  add(r, "alice", 1, true, 10);
  add(r, "bob", 1, false, 10);
  CHECK_FALSE(r.hidden_by_emote("alice", 10));
  CHECK(r.hidden_by_emote("alice", 11));
  CHECK_FALSE(r.hidden_by_emote("bob", 11)); // the emote does not hide
  CHECK_FALSE(r.hidden_by_emote("carol", 11));
  session& a = *r.sessions()[0];
  a.partner.emplace();
  a.partner->player = "carol";
  a.partner->since = 20;
  r.add_participant(a, "carol");
  CHECK_FALSE(r.hidden_by_emote("carol", 20));
  CHECK(r.hidden_by_emote("carol", 21));
  r.detach(a);
  CHECK_FALSE(r.hidden_by_emote("alice", 30));
  CHECK_FALSE(r.hidden_by_emote("carol", 30));
}
