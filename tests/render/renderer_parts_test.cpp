// The renderer's named parts on their own (render/render_parts.hpp): the display registry, the
// viewer set, the output assembler, the content cache and visibility. The renderer as a whole is
// tested through renderer::step in renderer_test.cpp and the others.

#include "render/content_cache.hpp"
#include "render/display_registry.hpp"
#include "render/output_assembler.hpp"
#include "render/viewer_set.hpp"
#include "render/visibility.hpp"

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

using namespace emote;
using namespace emote::render;

namespace {

std::unique_ptr<display> make_display(api::handle_id h, api::session_id s) {
  auto d = std::make_unique<display>();
  d->handle = h;
  d->session = s;
  d->entity_id = static_cast<std::int32_t>(1000 + h);
  return d;
}

world::player_state viewer_player(const std::string& id, std::int32_t protocol, double x,
                                  std::uint64_t join_serial) {
  world::player_state p;
  p.id = id;
  p.protocol = protocol;
  p.entity_id = static_cast<std::int32_t>(join_serial);
  p.pos = {x, 64, 0};
  p.join_serial = join_serial;
  return p;
}

std::vector<std::uint32_t> to_of(const render_output& o, std::size_t entry) {
  const auto t = o.to(o.entries[entry]);
  return {t.begin(), t.end()};
}

/// A viewer set and the parts it is reconciled with.
struct viewers_fixture {
  render_config cfg;
  std::span<const version_table* const> vers = versions();
  viewer_set set{cfg, vers};
  dimension_ids dims;
  tracker_table<display> trackers;
  output_assembler out{vers};
  render_counts counts;
  render_output o;
  std::vector<const world::player_state*> players; ///< the step's, kept as a host keeps them

  void reconcile(std::vector<const world::player_state*> step_players, api::tick_number tick) {
    players = std::move(step_players);
    o.clear();
    out.begin(o);
    set.reconcile(players, tick, dims, trackers, out, counts);
    out.set_only_version(set.only_version());
    out.end();
  }
};

} // namespace

TEST_CASE("display registry: found by handle (near and far) and by session, ascending") {
  display_registry reg;
  const api::handle_id far = api::handle_id{1} << 30;
  display& a = reg.add(make_display(5, 1));
  display& b = reg.add(make_display(2, 1));
  display& c = reg.add(make_display(far, 2));
  CHECK(reg.size() == 3);
  CHECK(reg.find(5) == &a);
  CHECK(reg.find(far) == &c);
  CHECK(reg.find(3) == nullptr);
  REQUIRE(reg.of_session(1) != nullptr);
  CHECK(*reg.of_session(1) == std::vector<display*>{&b, &a});
  const auto all = reg.by_handle();
  CHECK(all == std::vector<const display*>{&b, &a, &c});
  CHECK(reg.trackers().rows()[a.row].owner == &a);
  CHECK(reg.trackers().rows()[a.row].entity_id == 1005);
  const std::uint32_t row_b = b.row;
  reg.remove(&b);
  CHECK(reg.find(2) == nullptr);
  CHECK(*reg.of_session(1) == std::vector<display*>{&a});
  CHECK(reg.trackers().rows()[row_b].owner == nullptr);
  reg.remove(&c);
  CHECK(reg.find(far) == nullptr);
  CHECK(reg.of_session(2) == nullptr);
  // The freed row is taken first.
  display& d = reg.add(make_display(9, 3));
  CHECK(d.row == row_b);
  CHECK(reg.count_spawn(9) == 1);
  CHECK(reg.count_spawn(9) == 2);
}

TEST_CASE("display registry: sessions learnt from a frame, ended by their initiator's stop") {
  display_registry reg;
  api::frame f;
  f.events.push_back(api::ev_playback_started{7, "alice", "sample:hug", api::role::initiator});
  f.events.push_back(api::ev_playback_started{7, "bob", "sample:hug", api::role::partner});
  reg.learn_sessions(f);
  REQUIRE(reg.session(7) != nullptr);
  CHECK(reg.session(7)->emote == "sample:hug");
  CHECK(reg.session(7)->initiator == "alice");
  CHECK(reg.session(7)->partner == "bob");
  api::frame partner_stops;
  partner_stops.events.push_back(api::ev_playback_stopped{7, "bob", "sample:hug"});
  reg.end_sessions(partner_stops);
  CHECK(reg.session(7) != nullptr);
  api::frame initiator_stops;
  initiator_stops.events.push_back(api::ev_playback_stopped{7, "alice", "sample:hug"});
  reg.end_sessions(initiator_stops);
  CHECK(reg.session(7) == nullptr);
}

TEST_CASE("viewer set: slots, rejoin, unsupported protocols, the earliest of equal ids") {
  viewers_fixture fx;
  const auto alice = viewer_player("alice", 769, 0, 1);
  const auto bob = viewer_player("bob", 775, 10, 2);
  auto old = viewer_player("old", 1, 0, 3);
  fx.reconcile({&alice, &bob, &old}, 0);
  REQUIRE(fx.set.act().size() == 2);
  CHECK(fx.set.act()[0].p == &alice);
  CHECK(fx.set.act()[1].p == &bob);
  CHECK(fx.set.only_version() == fx.vers.size()); // two versions
  CHECK(fx.set.player("old") == &old);            // a player, not a viewer
  REQUIRE(fx.o.warnings.size() == 1);
  CHECK(fx.o.warnings[0].player == "old");
  CHECK(fx.o.warnings[0].message.find("not supported") != std::string::npos);
  const std::uint32_t alice_slot = fx.set.act()[0].v->slot;
  const std::uint32_t bob_slot = fx.set.act()[1].v->slot;
  CHECK(fx.set.act_of_slot(alice_slot) == 0);
  CHECK(fx.set.act_of_slot(bob_slot) == 1);

  // A tracked display: bob's bit goes when bob rejoins (rule 3), alice's stays.
  display d;
  const std::uint32_t row = fx.trackers.add(&d);
  fx.trackers.reserve_slots(2);
  fx.trackers.set(row, alice_slot);
  fx.trackers.set(row, bob_slot);
  const auto bob2 = viewer_player("bob", 775, 10, 4);
  fx.reconcile({&alice, &bob2}, 1);
  CHECK(fx.trackers.has(row, alice_slot));
  CHECK_FALSE(fx.trackers.has(row, bob_slot));
  CHECK(fx.o.warnings.empty()); // once per tuple

  // Alice's client discards its entities (rule 4): her bits go, her slot stays.
  auto alice_reset = alice;
  alice_reset.client_epoch = 1;
  fx.reconcile({&alice_reset}, 2);
  CHECK_FALSE(fx.trackers.has(row, alice_slot));
  CHECK(fx.set.act()[0].v->slot == alice_slot);
  CHECK(fx.set.only_version() == fx.set.act()[0].ver); // one version now

  // Equal ids: the first is the viewer, and the one player() finds.
  const auto twin = viewer_player("alice", 769, 50, 9);
  fx.reconcile({&alice_reset, &twin}, 3);
  CHECK(fx.set.act().size() == 1);
  CHECK(fx.set.player("alice") == &alice_reset);
}

TEST_CASE("viewer set: a resync at most once per window (render.md §4 rule 5), counted") {
  viewers_fixture fx;
  const auto alice = viewer_player("alice", 775, 0, 1);
  fx.reconcile({&alice}, 0);
  fx.set.request_resync("alice");
  fx.reconcile({&alice}, 1);
  CHECK(fx.set.act()[0].v->resync);
  fx.set.act()[0].v->resync = false; // the tracking pass's part
  fx.set.request_resync_all();
  fx.reconcile({&alice}, 5);
  CHECK_FALSE(fx.set.act()[0].v->resync); // inside the window: waits
  fx.reconcile({&alice}, 20);
  CHECK_FALSE(fx.set.act()[0].v->resync);
  fx.reconcile({&alice}, 21);
  CHECK(fx.set.act()[0].v->resync); // the window's end
  CHECK(fx.counts.resync_requests == 2);
  CHECK(fx.counts.resyncs == 2);
}

TEST_CASE("output assembler: versions ascending, recipients written once per audience") {
  viewers_fixture fx;
  const auto a = viewer_player("a", 775, 0, 1);
  const auto b = viewer_player("b", 769, 0, 2);
  const auto c = viewer_player("c", 775, 0, 3);
  fx.reconcile({&a, &b, &c}, 0);
  render_output o;
  fx.out.begin(o);
  fx.out.set_only_version(fx.set.only_version());
  std::vector<const active*> aud;
  for (const active& x : fx.set.act()) {
    aud.push_back(&x);
  }
  fx.out.group_by_version(aud);
  for (int step = 0; step < 2; ++step) {
    fx.out.grouped_step([&](std::size_t ver, byte_writer& w) {
      w.u8(static_cast<std::uint8_t>(ver));
      w.u8(static_cast<std::uint8_t>(step));
    });
  }
  REQUIRE(o.entries.size() == 4);
  CHECK(o.entries[0].protocol == 769);
  CHECK(o.entries[1].protocol == 775);
  CHECK(to_of(o, 0) == std::vector<std::uint32_t>{1});
  CHECK(to_of(o, 1) == std::vector<std::uint32_t>{0, 2});
  // The second step shares the first one's recipients.
  CHECK(o.entries[2].to_begin == o.entries[0].to_begin);
  CHECK(o.entries[3].to_begin == o.entries[1].to_begin);
  CHECK(o.recipients.size() == 3);
  // Nothing built: no entry.
  fx.out.grouped_step([](std::size_t, byte_writer&) {});
  CHECK(o.entries.size() == 4);
  // A delimiter is built once per version and output.
  const range_ref d1 = fx.out.delimiter_bytes(0);
  const range_ref d2 = fx.out.delimiter_bytes(0);
  CHECK(d1.begin == d2.begin);
  // Warnings once per tuple.
  fx.out.warn("e", "n", "", 775, "m");
  fx.out.warn("e", "n", "", 775, "m");
  fx.out.warn("e", "n", "", 769, "m");
  CHECK(o.warnings.size() == 2);
  fx.out.end();
}

TEST_CASE("content cache: one encoding per source and version; off and check modes agree") {
  const auto vers = versions();
  display d;
  d.kind = api::display_kind::item;
  d.item = "{id:\"minecraft:diamond\",count:1}";
  display same = d;
  same.handle = 2;
  display other = d;
  other.item = "{id:\"minecraft:stick\",count:1}";
  content_cache on(vers, core::cache_mode::on);
  const cached_content& first = on.get(d, 0);
  CHECK(&on.get(same, 0) == &first);
  CHECK(on.size() == 1);
  const cached_content& stick = on.get(other, 0);
  CHECK(first.warnings.empty());
  CHECK_FALSE(first.raw.empty());
  CHECK(stick.raw != first.raw);
  CHECK(on.size() == 2);
  content_cache off(vers, core::cache_mode::off);
  CHECK(off.get(d, 0) == first);
  CHECK(off.size() == 0);
  content_cache check(vers, core::cache_mode::check);
  CHECK(check.get(d, 0) == first);
  CHECK_NOTHROW(check.get(same, 0)); // a hit, encoded again and compared
  CHECK(check.size() == 1);
}

TEST_CASE("visibility: a hide's flags go to the viewers in range once; a new hide sends again") {
  viewers_fixture fx;
  auto hidden = viewer_player("h", 775, 0, 1);
  const auto near = viewer_player("near", 775, 100, 2);
  auto far = viewer_player("far", 775, 1'000, 3);
  const std::vector<const world::player_state*> players{&hidden, &near, &far};
  fx.reconcile(players, 0);
  visibility vis(fx.vers);
  std::vector<const active*> scratch;
  render_output o;
  fx.out.begin(o);
  fx.out.set_only_version(fx.set.only_version());
  vis.on_event(api::ev_player_visibility{"h", true, true}, fx.set, fx.dims, fx.out, scratch);
  // Flags to the player and the viewer within R_p (160 at view distance 10); blank equipment to
  // the other only.
  REQUIRE(o.entries.size() == 2);
  CHECK(to_of(o, 0) == std::vector<std::uint32_t>{0, 1});
  CHECK(to_of(o, 1) == std::vector<std::uint32_t>{1});
  CHECK(fx.set.act()[1].v->hidden_seen.size() == 1);
  fx.out.end();

  // The far viewer walks in (R_p is 160 at view distance 10): the tracking pass sends it the
  // flags and equipment, once.
  far.pos.x = 150;
  fx.reconcile(players, 1);
  const auto track = [&] {
    render_output t;
    fx.out.begin(t);
    vis.begin_tracking(fx.set, fx.dims);
    for (const active& a : fx.set.act()) {
      vis.send_near(a, fx.out);
    }
    fx.out.end();
    return t;
  };
  render_output t1 = track();
  REQUIRE(t1.entries.size() == 2);
  CHECK(to_of(t1, 0) == std::vector<std::uint32_t>{2});
  CHECK(track().entries.empty());

  // Shown, then hidden again: a new epoch, so everyone near is sent it again.
  render_output o2;
  fx.out.begin(o2);
  vis.on_event(api::ev_player_visibility{"h", false, false}, fx.set, fx.dims, fx.out, scratch);
  vis.on_event(api::ev_player_visibility{"h", true, false}, fx.set, fx.dims, fx.out, scratch);
  fx.out.end();
  CHECK(vis.hidden().at("h").epoch == 2);
  CHECK(track().entries.empty()); // the hide's own step sent them (near and far both in range)

  // A departed hidden player is forgotten.
  fx.reconcile({&near, &far}, 2);
  vis.forget_departed(fx.set);
  CHECK(vis.hidden().empty());
}
