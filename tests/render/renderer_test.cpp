// The renderer (render.md §3-§6): identity, tracking, the event and tracking passes, metadata
// diffing, entry order and sharing. Conformance cases of render.md §10 are named after them.

#include "engine/core/sha256.hpp"
#include "render/content.hpp"
#include "render/packets.hpp"
#include "tests/render/fixture.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <set>

using namespace emote;
using namespace emote::render;
using namespace emote::render::test;

namespace {

std::uint32_t bits(float f) {
  return std::bit_cast<std::uint32_t>(f);
}

/// The metadata packets in a list.
std::vector<decoded> metadata_of(const std::vector<decoded>& list) {
  std::vector<decoded> m;
  for (const auto& d : list) {
    if (d.kind == pk::entity_metadata) {
      m.push_back(d);
    }
  }
  return m;
}

api::ev_display_update transform_update(api::handle_id h, api::transform_record t,
                                        std::int32_t duration) {
  api::ev_display_update up;
  up.handle = h;
  up.transform = t;
  up.interpolation_duration = duration;
  return up;
}

std::string item_bytes(std::int32_t protocol, const std::string& snbt) {
  std::string b;
  byte_writer w(b);
  warnings none;
  write_item_stack(w, *find_version(protocol), snbt, nullptr, none);
  return b;
}

} // namespace

TEST_CASE("K1: entity id = entity_id_base + handle") {
  render_config c;
  c.entity_id_base = 1000;
  fixture fx(c);
  fx.add("alice", 769);
  const auto list = fx.step({spawn_event(1, 7)});
  const auto got = received(list, "alice");
  REQUIRE(kinds(got) == std::vector<pk>{pk::bundle_delimiter, pk::spawn_entity, pk::entity_metadata,
                                        pk::bundle_delimiter});
  CHECK(got[1].entity_id == 1007);
  CHECK(got[2].entity_id == 1007);
  CHECK(got[1].type == find_version(769)->entity_types[0]);
}

TEST_CASE("K2: angle bytes") {
  CHECK(static_cast<std::uint8_t>(angle_byte(180.0f)) == 0x80);
  CHECK(static_cast<std::uint8_t>(angle_byte(-90.0f)) == 0xC0);
  CHECK(static_cast<std::uint8_t>(angle_byte(359.9f)) == 0xFF);
  CHECK(static_cast<std::uint8_t>(angle_byte(0.0f)) == 0x00);
  CHECK(static_cast<std::uint8_t>(angle_byte(90.0f)) == 0x40);
}

TEST_CASE("display UUID (render.md §3)") {
  // The first 16 bytes of SHA-256("emote-sim-uuid" || be64(0) || be32(1000000007) || be32(1)),
  // with the version and variant bits set.
  std::string msg = "emote-sim-uuid";
  msg += std::string(8, '\0');
  const std::uint32_t id = 1000000007;
  for (int s = 24; s >= 0; s -= 8) {
    msg.push_back(static_cast<char>((id >> s) & 0xFF));
  }
  msg += std::string("\0\0\0\1", 4);
  core::sha256 h;
  h.update(msg);
  const auto d = h.finish();
  const auto u = display_uuid(0, 1000000007, 1);
  for (std::size_t i = 0; i < 16; ++i) {
    std::uint8_t want = d[i];
    if (i == 6) {
      want = static_cast<std::uint8_t>((want & 0x0F) | 0x40);
    }
    if (i == 8) {
      want = static_cast<std::uint8_t>((want & 0x3F) | 0x80);
    }
    CHECK(u[i] == want);
  }
  CHECK(display_uuid(0, 1000000007, 2) != u);
  CHECK(display_uuid(1, 1000000007, 1) != u);
}

TEST_CASE("K3: an unrotated node's spawn metadata among 8-14 is exactly 11 and 14") {
  fixture fx;
  fx.add("alice", 769);
  auto sp = spawn_event(1, 1);
  sp.transform.translation = {0, 1, 0};
  sp.transform.right_rotation = {-0.0f, -0.0f, -0.0f, 1};
  const auto list = fx.step({sp});
  const auto meta = metadata_of(received(list, "alice"));
  REQUIRE(meta.size() == 1);
  std::vector<int> in_range;
  for (int k : meta[0].keys()) {
    if (k >= 8 && k <= 14) {
      in_range.push_back(k);
    }
  }
  CHECK(in_range == std::vector<int>{11, 14});
  CHECK(bits(meta[0].entry(14)->f[0]) == bits(-0.0f));
  CHECK(meta[0].entry(11)->f[1] == 1.0f);
}

TEST_CASE("K4/K5/K6: transform changes") {
  fixture fx;
  fx.add("alice", 769);
  fx.step({spawn_event(1, 1)});
  auto t = identity_transform();
  t.translation = {0, 1, 0};
  fx.step({transform_update(1, t, 1)}); // duration 0 -> 1, translation changes

  SUBCASE("K4: translation (0,1,0) -> (0,2,0), duration 1 -> 1: keys [8, 11], 8 = 0") {
    t.translation = {0, 2, 0};
    const auto meta = metadata_of(received(fx.step({transform_update(1, t, 1)}), "alice"));
    REQUIRE(meta.size() == 1);
    CHECK(meta[0].keys() == std::vector<int>{8, 11});
    CHECK(meta[0].entry(8)->i == 0);
    CHECK(meta[0].entry(11)->f[1] == 2.0f);
  }
  SUBCASE("K5: left rotation changes, duration 1 -> 3: keys [8, 9, 13]") {
    t.left_rotation = {0, 0.70710677f, 0, 0.70710677f};
    const auto meta = metadata_of(received(fx.step({transform_update(1, t, 3)}), "alice"));
    REQUIRE(meta.size() == 1);
    CHECK(meta[0].keys() == std::vector<int>{8, 9, 13});
    CHECK(meta[0].entry(9)->i == 3);
  }
  SUBCASE("K6: translation component 0.0 -> -0.0: key 11") {
    t.translation = {-0.0f, 1, 0};
    const auto meta = metadata_of(received(fx.step({transform_update(1, t, 1)}), "alice"));
    REQUIRE(meta.size() == 1);
    CHECK(meta[0].keys() == std::vector<int>{8, 11});
    CHECK(bits(meta[0].entry(11)->f[0]) == bits(-0.0f));
  }
  SUBCASE("an identical transform still forces 8 (vanilla's force-set)") {
    const auto meta = metadata_of(received(fx.step({transform_update(1, t, 1)}), "alice"));
    REQUIRE(meta.size() == 1);
    CHECK(meta[0].keys() == std::vector<int>{8});
  }
  SUBCASE("scale changes: key 12 (metadata order translation, scale, left, right)") {
    t.scale = {2, 2, 2};
    t.right_rotation = {0, 0, 1, 0};
    const auto meta = metadata_of(received(fx.step({transform_update(1, t, 1)}), "alice"));
    REQUIRE(meta.size() == 1);
    CHECK(meta[0].keys() == std::vector<int>{8, 12, 14});
  }
}

TEST_CASE("K7: brightness and a default shadow radius from entity_nbt") {
  fixture fx;
  fx.add("alice", 769);
  auto sp = spawn_event(1, 1);
  sp.entity_nbt = "{brightness:{block:15,sky:15},shadow_radius:0.0f}";
  const auto meta = metadata_of(received(fx.step({sp}), "alice"));
  REQUIRE(meta.size() == 1);
  REQUIRE(meta[0].entry(16) != nullptr);
  CHECK(meta[0].entry(16)->i == 15728880);
  CHECK(meta[0].entry(18) == nullptr);
  CHECK(fx.out.warnings.empty());
}

TEST_CASE("K8: Glowing:1b sets the shared flag 0x40 at spawn") {
  fixture fx;
  fx.add("alice", 769);
  auto sp = spawn_event(1, 1);
  sp.entity_nbt = "{Glowing:1b}";
  const auto meta = metadata_of(received(fx.step({sp}), "alice"));
  REQUIRE(meta.size() == 1);
  REQUIRE(meta[0].entry(0) != nullptr);
  CHECK(meta[0].entry(0)->i == 0x40);
  CHECK(meta[0].keys().front() == 0);
}

TEST_CASE("K9/K10: visible at spawn and flipping") {
  fixture fx;
  fx.add("alice", 769);
  auto sp = spawn_event(1, 1);
  sp.visible = false;
  const auto spawn = received(fx.step({sp}), "alice");
  // K9: nothing differs from the defaults: a three-packet bundle without metadata.
  CHECK(kinds(spawn) ==
        std::vector<pk>{pk::bundle_delimiter, pk::spawn_entity, pk::bundle_delimiter});

  api::ev_display_update up;
  up.handle = 1;
  up.visible = true;
  const auto meta = metadata_of(received(fx.step({up}), "alice"));
  // K10: one metadata with index 23 = the item.
  REQUIRE(meta.size() == 1);
  CHECK(meta[0].keys() == std::vector<int>{23});
  CHECK(meta[0].entry(23)->raw == item_bytes(769, stone_item));

  up.visible = false;
  const auto hide = metadata_of(received(fx.step({up}), "alice"));
  REQUIRE(hide.size() == 1);
  CHECK(hide[0].entry(23)->raw == item_bytes(769, ""));

  // The same visibility again changes nothing.
  CHECK(fx.step({up}).empty());
}

TEST_CASE("item display mode and the participant-hand item refresh") {
  fixture fx;
  fx.add("alice", 769);
  auto sp = spawn_event(1, 1);
  sp.item_display = "head";
  const auto meta = metadata_of(received(fx.step({sp}), "alice"));
  REQUIRE(meta.size() == 1);
  CHECK(meta[0].keys() == std::vector<int>{23, 24});
  CHECK(meta[0].entry(24)->i == 5);

  api::ev_display_update up;
  up.handle = 1;
  up.item = "{count:1,id:\"minecraft:dirt\"}";
  const auto change = metadata_of(received(fx.step({up}), "alice"));
  REQUIRE(change.size() == 1);
  CHECK(change[0].keys() == std::vector<int>{23});
  CHECK(change[0].entry(23)->raw == item_bytes(769, *up.item));
}

TEST_CASE("K12: text display billboard, see_through and shadow") {
  fixture fx;
  fx.add("alice", 769);
  auto sp = spawn_event(1, 1, api::display_kind::text);
  sp.entity_nbt = "{billboard:\"center\",see_through:1b,shadow:1b}";
  const auto meta = metadata_of(received(fx.step({sp}), "alice"));
  REQUIRE(meta.size() == 1);
  CHECK(meta[0].entry(15)->i == 3);
  CHECK(meta[0].entry(27)->i == 0x03);
  CHECK(meta[0].entry(24) == nullptr); // line width stays 200
}

TEST_CASE("NBT: track state over entity_nbt, reverting keys, alignment, casts, unknown keys") {
  fixture fx;
  fx.add("alice", 769);
  auto sp = spawn_event(1, 1, api::display_kind::text);
  sp.entity_nbt = "{view_range:2,line_width:100.7d,alignment:\"left\"}";
  sp.nbt = "{view_range:0.5f}";
  const auto meta = metadata_of(received(fx.step({sp}), "alice"));
  REQUIRE(meta.size() == 1);
  CHECK(meta[0].entry(17)->f[0] == 0.5f); // the track state wins
  CHECK(meta[0].entry(24)->i == 100);     // a double is floored, as vanilla's NumericTag
  CHECK(meta[0].entry(27)->i == 0x08);    // align left

  api::ev_display_update up;
  up.handle = 1;
  up.nbt = "{}";
  const auto change = metadata_of(received(fx.step({up}), "alice"));
  REQUIRE(change.size() == 1);
  CHECK(change[0].keys() == std::vector<int>{17});
  CHECK(change[0].entry(17)->f[0] == 2.0f); // back to entity_nbt's value

  up.nbt = "{Glowing:1b,CustomName:\"x\"}";
  const auto glow = metadata_of(received(fx.step({up}), "alice"));
  REQUIRE(glow.size() == 1);
  CHECK(glow[0].keys() == std::vector<int>{0});
  CHECK(glow[0].entry(0)->i == 0x40);
  REQUIRE(fx.out.warnings.size() == 1);
  CHECK(fx.out.warnings[0].node == "node1");
  CHECK(fx.out.warnings[0].protocol == 769);
  CHECK(fx.out.warnings[0].message.find("CustomName") != std::string::npos);
  // once per (emote, node, protocol, message)
  up.nbt = "{Glowing:0b,CustomName:\"y\"}";
  fx.step({up});
  CHECK(fx.out.warnings.empty());
}

TEST_CASE("K13/K14/K15: range") {
  SUBCASE("K13: dx 150, dz 60 with range 160 is out of range") {
    fixture fx;
    fx.add("far", 769, 150, 60);
    fx.add("near", 769, 150, 50);
    const auto list = fx.step({spawn_event(1, 1)});
    CHECK(received(list, "far").empty());
    CHECK(received(list, "near").size() == 4); // 150² + 50² ≤ 160²
  }
  SUBCASE("K14: view distance 6 on a server of 10 at dx 100, dz 100: R = 96") {
    fixture fx;
    auto& p = fx.add("alice", 769, 100, 100);
    p.view_distance = 6;
    CHECK(received(fx.step({spawn_event(1, 1)}), "alice").empty());
  }
  SUBCASE("K15: view distance 12, render.view_distance 6, dx 100: vd 6, R = 96") {
    render_config c;
    c.view_distance = 6;
    fixture fx(c);
    auto& p = fx.add("alice", 769, 100, 0);
    p.view_distance = 12;
    auto& q = fx.add("bob", 769, 96, 0);
    q.view_distance = 12;
    const auto list = fx.step({spawn_event(1, 1)});
    CHECK(received(list, "alice").empty());
    CHECK(received(list, "bob").size() == 4);
  }
  SUBCASE("another dimension is never in range; the vertical offset does not count") {
    fixture fx;
    auto& p = fx.add("nether", 769);
    p.dimension = "minecraft:the_nether";
    auto& q = fx.add("high", 769);
    q.pos.y = 5000;
    const auto list = fx.step({spawn_event(1, 1)});
    CHECK(received(list, "nether").empty());
    CHECK(received(list, "high").size() == 4);
  }
}

TEST_CASE("K16/K17: walking into and out of range") {
  fixture fx;
  fx.add("alice", 769, 300, 0);
  fx.step({spawn_event(1, 1), spawn_event(1, 2)});
  auto t = identity_transform();
  t.translation = {0, 3, 0};
  CHECK(fx.step({transform_update(1, t, 2)}).empty()); // nobody tracks it

  // K16: the tracking pass spawns it with the current transform.
  fx.get("alice").pos.x = 100;
  const auto in = received(fx.step(), "alice");
  REQUIRE(kinds(in) == std::vector<pk>{pk::bundle_delimiter, pk::spawn_entity, pk::entity_metadata,
                                       pk::bundle_delimiter, pk::bundle_delimiter, pk::spawn_entity,
                                       pk::entity_metadata, pk::bundle_delimiter});
  CHECK(in[1].entity_id == 1'000'000'001);
  CHECK(in[5].entity_id == 1'000'000'002);
  REQUIRE(in[2].entry(11) != nullptr);
  CHECK(in[2].entry(11)->f[1] == 3.0f);
  CHECK(in[2].entry(9)->i == 2);
  CHECK(in[2].entry(8) == nullptr); // start delta 0 is the default

  CHECK(fx.step().empty()); // nothing new

  // K17: one entity_destroy with its tracked ids ascending.
  fx.get("alice").pos.x = 500;
  const auto out = received(fx.step(), "alice");
  REQUIRE(out.size() == 1);
  CHECK(out[0].kind == pk::entity_destroy);
  CHECK(out[0].ids == std::vector<std::int32_t>{1'000'000'001, 1'000'000'002});
  CHECK(fx.step().empty());
}

TEST_CASE("K18: two viewers on 769 and one on 775 share one entry per protocol") {
  fixture fx;
  fx.add("a769", 769);
  fx.add("b775", 775);
  fx.add("c769", 769);
  fx.add("none", std::nullopt); // never a viewer
  const auto list = fx.step({spawn_event(1, 1)});
  REQUIRE(list.size() == 8);
  for (std::size_t k = 0; k < list.size(); k += 2) {
    CHECK(list[k].protocol == 769);
    CHECK(list[k].to == std::vector<std::string>{"a769", "c769"});
    CHECK(list[k + 1].protocol == 775);
    CHECK(list[k + 1].to == std::vector<std::string>{"b775"});
    CHECK(list[k].pkt.kind == list[k + 1].pkt.kind);
  }
  CHECK(received(list, "none").empty());
  // 775 writes the spawn's velocity as lpVec3 after the position; 769 as three shorts at the end.
  CHECK(list[2].pkt.velocity_zero);
  CHECK(list[3].pkt.velocity_zero);
  CHECK(list[3].bytes.size() == list[2].bytes.size() - 5);

  // Changes go once per protocol too, and the recipients of equal audiences are shared.
  auto t = identity_transform();
  t.translation = {0, 1, 0};
  const auto change = fx.step({transform_update(1, t, 0)});
  REQUIRE(change.size() == 2);
  CHECK(change[0].protocol == 769);
  CHECK(change[0].to == std::vector<std::string>{"a769", "c769"});
  CHECK(change[1].protocol == 775);
}

TEST_CASE("K19: a reused handle keeps its entity id and gets a new UUID") {
  fixture fx;
  fx.add("alice", 769);
  const auto first = received(fx.step({spawn_event(1, 3)}), "alice");
  api::ev_display_remove rm;
  rm.session = 1;
  rm.handles = {3};
  const auto gone = received(fx.step({rm}), "alice");
  REQUIRE(gone.size() == 1);
  CHECK(gone[0].ids == std::vector<std::int32_t>{1'000'000'003});
  const auto second = received(fx.step({spawn_event(2, 3)}), "alice");
  REQUIRE(first.size() == 4);
  REQUIRE(second.size() == 4);
  CHECK(first[1].entity_id == second[1].entity_id);
  CHECK(first[1].uuid != second[1].uuid);
  CHECK(first[1].uuid == display_uuid(0, 1'000'000'003, 1));
  CHECK(second[1].uuid == display_uuid(0, 1'000'000'003, 2));
}

TEST_CASE("a display spawned and removed in one frame sends nothing but counts for the UUID") {
  fixture fx;
  fx.add("alice", 769);
  api::ev_display_remove rm;
  rm.session = 1;
  rm.handles = {1};
  CHECK(fx.step({spawn_event(1, 1), rm}).empty());
  CHECK(fx.r->displays().empty());
  const auto again = received(fx.step({spawn_event(2, 1)}), "alice");
  REQUIRE(again.size() == 4);
  CHECK(again[1].uuid == display_uuid(0, 1'000'000'001, 2));
}

TEST_CASE("display.remove: one entity_destroy per viewer of its tracked ids, equal ones shared") {
  fixture fx;
  fx.add("near", 769);
  fx.add("mid", 769, 200, 0);
  fx.add("far", 769, 1000, 0);
  fx.add("near2", 769, 1, 0);
  auto a = spawn_event(1, 1);
  auto b = spawn_event(1, 2);
  b.position = {140, 64, 0};
  auto c = spawn_event(1, 4);
  fx.step({a, b, c});
  api::ev_display_remove rm;
  rm.session = 1;
  rm.handles = {4, 2, 1};
  const auto list = fx.step({rm});
  REQUIRE(list.size() == 2);
  CHECK(list[0].to == std::vector<std::string>{"near", "near2"});
  CHECK(list[0].pkt.ids == std::vector<std::int32_t>{1'000'000'001, 1'000'000'002, 1'000'000'004});
  CHECK(list[1].to == std::vector<std::string>{"mid"});
  CHECK(list[1].pkt.ids == std::vector<std::int32_t>{1'000'000'002});
  CHECK(fx.r->displays().empty());
}

TEST_CASE("K20: player.visibility sends flags to p and its viewers, blank equipment to viewers") {
  fixture fx;
  auto& alice = fx.add("alice", 769);
  alice.entity_id = 42;
  alice.sneaking = true;
  alice.glowing = true;
  fx.add("bob", 769, 10, 10);
  fx.add("carol", 769, 600, 0); // beyond R_p = min(512, 160)
  api::ev_player_visibility vis;
  vis.player = "alice";
  vis.hidden = true;
  vis.blank_equipment = true;
  const auto list = fx.step({vis});
  REQUIRE(list.size() == 2);
  CHECK(list[0].to == std::vector<std::string>{"alice", "bob"});
  CHECK(list[0].pkt.kind == pk::entity_metadata);
  CHECK(list[0].pkt.entity_id == 42);
  CHECK(list[0].pkt.keys() == std::vector<int>{0});
  CHECK(list[0].pkt.entry(0)->i == (0x02 | 0x20 | 0x40));
  CHECK(list[1].to == std::vector<std::string>{"bob"});
  CHECK(list[1].pkt.kind == pk::entity_equipment);
  REQUIRE(list[1].pkt.equipment.size() == 6);
  for (std::size_t s = 0; s < 6; ++s) {
    CHECK(list[1].pkt.equipment[s].first == static_cast<std::int8_t>(s));
    CHECK(list[1].pkt.equipment[s].second == item_bytes(769, ""));
  }

  // carol walks within R_p: the tracking pass sends her the same packets once.
  fx.get("carol").pos.x = 100;
  const auto later = fx.step();
  REQUIRE(later.size() == 2);
  CHECK(later[0].to == std::vector<std::string>{"carol"});
  CHECK(later[0].bytes == list[0].bytes);
  CHECK(later[1].bytes == list[1].bytes);
  CHECK(fx.step().empty());

  // Restored with "real" equipment: flags only, invisible cleared.
  vis.hidden = false;
  vis.blank_equipment = false;
  const auto restore = fx.step({vis});
  REQUIRE(restore.size() == 1);
  CHECK(restore[0].to == std::vector<std::string>{"alice", "bob", "carol"});
  CHECK(restore[0].pkt.entry(0)->i == (0x02 | 0x40));
  fx.get("carol").pos.x = 600;
  fx.step();
  fx.get("carol").pos.x = 100;
  CHECK(fx.step().empty()); // not hidden any more

  // Without an entity id: no packets.
  auto& dave = fx.add("dave", 769);
  (void)dave;
  api::ev_player_visibility vd;
  vd.player = "dave";
  vd.hidden = true;
  vd.blank_equipment = true;
  CHECK(fx.step({vd}).empty());
}

TEST_CASE("K23: the position packet carries the yaw of the last display.view") {
  for (std::int32_t protocol : {767, 769}) {
    CAPTURE(protocol);
    fixture fx;
    fx.add("alice", protocol);
    fx.step({spawn_event(1, 1)});
    api::ev_display_view vw;
    vw.session = 1;
    vw.yaw = 90;
    const auto look = received(fx.step({vw}), "alice");
    REQUIRE(look.size() == 1);
    CHECK(look[0].kind == pk::entity_look);
    CHECK(look[0].yaw == 0x40);
    api::ev_display_move mv;
    mv.session = 1;
    mv.position = {1, 64, 2};
    const auto move = received(fx.step({mv}), "alice");
    REQUIRE(move.size() == 1);
    CHECK(move[0].x == 1);
    CHECK(move[0].z == 2);
    CHECK_FALSE(move[0].on_ground);
    if (protocol == 767) {
      CHECK(move[0].kind == pk::entity_teleport);
      CHECK(move[0].yaw == 0x40);
    } else {
      CHECK(move[0].kind == pk::sync_entity_position);
      CHECK(move[0].yaw_f == 90.0f);
      CHECK(move[0].dx == 0);
      CHECK(move[0].pitch_f == 0);
    }
    // Later trackers spawn with the current yaw and position.
    fx.add("bob", protocol);
    const auto late = received(fx.step(), "bob");
    REQUIRE(late.size() >= 2);
    CHECK(late[1].yaw == 0x40);
    CHECK(late[1].x == 1);
  }
}

TEST_CASE("display.move moves only its space; a session's displays move together") {
  fixture fx;
  fx.add("alice", 769);
  auto a = spawn_event(1, 1);
  auto b = spawn_event(1, 2);
  b.space = api::space::partner;
  auto c = spawn_event(2, 3);
  fx.step({a, b, c});
  api::ev_display_move mv;
  mv.session = 1;
  mv.space = api::space::scene;
  mv.position = {5, 64, 5};
  const auto got = received(fx.step({mv}), "alice");
  REQUIRE(got.size() == 1);
  CHECK(got[0].entity_id == 1'000'000'001);
  const auto ds = fx.r->displays();
  REQUIRE(ds.size() == 3);
  CHECK(ds[0].position.x == 5);
  CHECK(ds[1].position.x == 0);
  CHECK(ds[2].position.x == 0);
}

TEST_CASE("K25: a move and a teleport_duration change: the position packet, then index 10") {
  fixture fx;
  fx.add("alice", 769);
  fx.step({spawn_event(1, 1)});
  api::ev_display_move mv;
  mv.session = 1;
  mv.position = {1, 64, 0};
  mv.teleport_duration = 3;
  auto t = identity_transform();
  t.translation = {0, 1, 0};
  const auto got = received(fx.step({mv, transform_update(1, t, 0)}), "alice");
  REQUIRE(kinds(got) == std::vector<pk>{pk::sync_entity_position, pk::entity_metadata});
  CHECK(got[1].keys() == std::vector<int>{8, 10, 11});
  CHECK(got[1].entry(10)->i == 3);
  // The same duration again: no index 10.
  mv.position = {2, 64, 0};
  const auto again = received(fx.step({mv}), "alice");
  CHECK(kinds(again) == std::vector<pk>{pk::sync_entity_position});
}

TEST_CASE("K24: a dimension change and back in one tick respawns everything in range") {
  fixture fx;
  fx.add("alice", 769);
  fx.step({spawn_event(1, 1), spawn_event(1, 2)});
  fx.get("alice").client_epoch += 2; // two dimension updates
  const auto got = received(fx.step(), "alice");
  REQUIRE(got.size() == 8);
  CHECK(got[0].kind == pk::bundle_delimiter); // no entity_destroy: the client dropped them
  CHECK(got[1].entity_id == 1'000'000'001);
  CHECK(got[5].entity_id == 1'000'000'002);
}

TEST_CASE("a client reset drops the tracked set before the event pass") {
  fixture fx;
  fx.add("alice", 769);
  fx.step({spawn_event(1, 1)});
  fx.get("alice").client_epoch += 1;
  auto t = identity_transform();
  t.translation = {0, 5, 0};
  const auto got = received(fx.step({transform_update(1, t, 0)}), "alice");
  // The change is not sent to the reset client; its spawn bundle carries the new transform.
  REQUIRE(kinds(got) == std::vector<pk>{pk::bundle_delimiter, pk::spawn_entity, pk::entity_metadata,
                                        pk::bundle_delimiter});
  CHECK(got[2].entry(11)->f[1] == 5.0f);
}

TEST_CASE("viewers leaving, losing their protocol, rejoining") {
  fixture fx;
  fx.add("alice", 769);
  fx.add("bob", 769);
  fx.step({spawn_event(1, 1)});
  SUBCASE("a viewer leaving is dropped silently") {
    fx.remove("alice");
    CHECK(fx.step().empty());
    auto t = identity_transform();
    t.translation = {0, 1, 0};
    const auto list = fx.step({transform_update(1, t, 0)});
    REQUIRE(list.size() == 1);
    CHECK(list[0].to == std::vector<std::string>{"bob"});
  }
  SUBCASE("protocol null drops silently; a protocol again starts from nothing") {
    fx.get("alice").protocol = std::nullopt;
    CHECK(fx.step().empty());
    fx.get("alice").protocol = 769;
    const auto list = fx.step();
    CHECK(received(list, "alice").size() == 4);
    CHECK(received(list, "bob").empty());
  }
  SUBCASE("a new join of the same name starts from nothing") {
    fx.get("alice").join_serial = 99;
    const auto list = fx.step();
    CHECK(kinds(received(list, "alice")) == std::vector<pk>{pk::bundle_delimiter, pk::spawn_entity,
                                                            pk::entity_metadata,
                                                            pk::bundle_delimiter});
  }
  SUBCASE("an unsupported protocol is no viewer, with one warning") {
    fx.get("alice").protocol = 700;
    CHECK(received(fx.step(), "alice").empty());
    REQUIRE(fx.out.warnings.size() == 1);
    CHECK(fx.out.warnings[0].player == "alice");
    CHECK(fx.out.warnings[0].protocol == 700);
    fx.step();
    CHECK(fx.out.warnings.empty());
  }
}

TEST_CASE("resync: destroy everything tracked, then the current state") {
  fixture fx;
  fx.add("alice", 769);
  fx.add("bob", 769, 100, 0);
  fx.step({spawn_event(1, 1), spawn_event(1, 2)});
  const std::vector<std::string> who{"alice", "nobody"};
  fx.r->resync(who);
  const auto list = fx.step();
  CHECK(received(list, "bob").empty());
  const auto got = received(list, "alice");
  REQUIRE(got.size() == 9);
  CHECK(got[0].kind == pk::entity_destroy);
  CHECK(got[0].ids == std::vector<std::int32_t>{1'000'000'001, 1'000'000'002});
  CHECK(got[2].entity_id == 1'000'000'001);
  CHECK(fx.step().empty()); // once

  // render.md §4 rule 5: bob was never resynced, so at once; alice was, one tick ago, so her
  // request waits for the end of the 20-tick window, once however often it is repeated.
  const api::tick_number resynced = fx.tick - 1;
  fx.r->resync_all();
  const auto all = fx.step();
  CHECK(received(all, "alice").empty());
  CHECK(received(all, "bob").size() == 9);
  while (fx.tick + 1 < resynced + 20) {
    fx.r->resync(who);
    CHECK(received(fx.step(), "alice").empty());
  }
  const auto late = fx.step();
  CHECK(fx.tick == resynced + 20);
  CHECK(received(late, "alice").size() == 9);
  CHECK(fx.step().empty());
  CHECK(fx.r->counts().resyncs == 3);
}

TEST_CASE("the tracking pass shares spawn bytes between viewers of one version") {
  fixture fx;
  fx.step({spawn_event(1, 1)});
  fx.add("a", 769);
  fx.add("b", 769);
  fx.add("c", 775);
  const auto list = fx.step();
  REQUIRE(list.size() == 12);
  // One spawn_entity encoding per version: a's and b's entries point at the same bytes.
  std::set<std::uint32_t> spawn_data;
  for (const got& g : list) {
    REQUIRE(g.to.size() == 1);
    if (g.pkt.kind == pk::spawn_entity) {
      spawn_data.insert(g.data_begin);
    }
  }
  CHECK(spawn_data.size() == 2);
  // Entries are per viewer, in join order.
  CHECK(list[0].to[0] == "a");
  CHECK(list[4].to[0] == "b");
  CHECK(list[8].to[0] == "c");
}

TEST_CASE("determinism: the same inputs give the same bytes") {
  auto run = [] {
    fixture fx;
    fx.add("a", 769, 10, 0);
    fx.add("b", 775, 0, 10);
    fx.add("c", 767, 200, 0);
    std::string all;
    auto t = identity_transform();
    std::vector<std::vector<api::event>> frames;
    frames.push_back({spawn_event(1, 1), spawn_event(1, 2, api::display_kind::text),
                      spawn_event(1, 3, api::display_kind::block)});
    for (int k = 1; k < 6; ++k) {
      t.translation = {0, static_cast<float>(k), 0};
      api::ev_display_move mv;
      mv.session = 1;
      mv.position = {static_cast<double>(k) * 30, 64, 0};
      frames.push_back({mv, transform_update(2, t, k)});
    }
    for (auto& f : frames) {
      fx.step(f);
      for (const auto& e : fx.out.entries) {
        all += std::to_string(e.protocol) + ":";
        for (auto i : fx.out.to(e)) {
          all += std::to_string(i) + ",";
        }
        all += std::string(fx.out.bytes(e));
      }
    }
    return all;
  };
  const std::string one = run();
  CHECK(one.size() > 100);
  CHECK(one == run());
}

TEST_CASE("skin-bound heads take the participant's textures") {
  fixture fx;
  fx.allow_undecoded = true;
  auto& alice = fx.add("alice", 769);
  alice.skin_textures["head:0"] = api::skin_texture{"dGV4dHVyZQ==", std::string("c2ln")};
  alice.uuid = api::uuid{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  auto sp = spawn_event(1, 1);
  sp.item = "{count:1,id:\"minecraft:player_head\"}";
  sp.skin = api::skin_binding{"initiator", "head", 0, {0, 12}};
  api::ev_playback_started st;
  st.session = 1;
  st.player = "alice";
  st.emote = "demo:wave";
  const auto list = fx.step({sp, st});
  REQUIRE(list.size() == 4);
  const skin_profile prof{&alice.skin_textures["head:0"], &*alice.uuid, "alice"};
  std::string want;
  byte_writer w(want);
  warnings none;
  write_item_stack(w, *find_version(769), sp.item, &prof, none);
  // The test reader reads no data components: look for the Slot's bytes in the packet.
  CHECK(list[2].bytes.find(want) != std::string::npos);

  // The partner is unknown: the head shows no profile of alice.
  auto other = spawn_event(2, 2);
  other.item = sp.item;
  other.skin = api::skin_binding{"partner", "head", 0, {0, 12}};
  const auto list2 = fx.step({other});
  REQUIRE(list2.size() == 4);
  CHECK(list2[2].bytes.find(want) == std::string::npos);
}

TEST_CASE("K11 (renderer side): a stone block display carries state id 1 on every version") {
  for (const version_table* v : versions()) {
    CAPTURE(v->protocol);
    fixture fx;
    fx.add("alice", v->protocol);
    const auto meta =
        metadata_of(received(fx.step({spawn_event(1, 1, api::display_kind::block)}), "alice"));
    REQUIRE(meta.size() == 1);
    REQUIRE(meta[0].entry(23) != nullptr);
    CHECK(meta[0].entry(23)->serializer ==
          v->serializer_ids[static_cast<std::size_t>(serializer::block_state)]);
    CHECK(meta[0].entry(23)->i == 1);
  }
}

TEST_CASE("every packet kind decodes on every supported version, all bytes consumed") {
  for (const version_table* v : versions()) {
    CAPTURE(v->protocol);
    fixture fx;
    auto& alice = fx.add("alice", v->protocol);
    alice.entity_id = 7;
    fx.add("bob", v->protocol, 20, 0);
    std::set<packet_kind> seen;
    auto note = [&](const std::vector<got>& list) {
      for (const got& g : list) {
        CHECK(g.decoded_ok);
        seen.insert(g.pkt.kind);
      }
    };
    auto text = spawn_event(1, 2, api::display_kind::text);
    text.entity_nbt = "{line_width:50,background:0,text_opacity:-128b,alignment:\"right\"}";
    auto block = spawn_event(1, 3, api::display_kind::block);
    block.entity_nbt = "{billboard:\"vertical\",view_range:0.25f,glow_color_override:255}";
    note(fx.step({spawn_event(1, 1), text, block}));
    api::ev_display_move mv;
    mv.session = 1;
    mv.position = {3, 65, 4};
    mv.teleport_duration = 3;
    api::ev_display_view vw;
    vw.session = 1;
    vw.yaw = -45;
    vw.teleport_duration = 3;
    auto t = identity_transform();
    t.scale = {2, 2, 2};
    api::ev_display_update nbt;
    nbt.handle = 2;
    nbt.nbt = "{shadow:1b}";
    api::ev_player_visibility vis;
    vis.player = "alice";
    vis.hidden = true;
    vis.blank_equipment = true;
    note(fx.step({mv, vw, transform_update(1, t, 2), nbt, vis}));
    api::ev_display_remove rm;
    rm.session = 1;
    rm.handles = {1, 2, 3};
    note(fx.step({rm}));
    const std::set<packet_kind> want{pk::bundle_delimiter,
                                     pk::spawn_entity,
                                     pk::entity_metadata,
                                     pk::entity_destroy,
                                     v->move == move_layout::sync_entity_position
                                         ? pk::sync_entity_position
                                         : pk::entity_teleport,
                                     pk::entity_look,
                                     pk::entity_equipment};
    CHECK(seen == want);
  }
}

TEST_CASE("sharing: another viewer costs recipient indexes, not bytes") {
  // The same ticks with 1 and with 100 viewers of one version: the packet bytes are identical.
  auto run = [](int viewers) {
    fixture fx;
    for (int k = 0; k < viewers; ++k) {
      fx.add("p" + std::to_string(k), 769, k % 10, k / 10);
    }
    std::vector<api::event> spawns;
    for (int h = 1; h <= 50; ++h) {
      spawns.push_back(spawn_event(1 + h / 10, h));
    }
    std::vector<std::size_t> sizes;
    fx.step(spawns);
    sizes.push_back(fx.out.data.size());
    std::vector<api::event> updates;
    for (int h = 1; h <= 50; ++h) {
      auto t = identity_transform();
      t.translation = {0, static_cast<float>(h), 0};
      updates.push_back(transform_update(h, t, 1));
    }
    fx.step(updates);
    sizes.push_back(fx.out.data.size());
    // Everyone walks away and back: the tracking pass builds each bundle once.
    for (auto& p : fx.players) {
      p.pos.x += 1000;
    }
    fx.step();
    sizes.push_back(fx.out.data.size());
    for (auto& p : fx.players) {
      p.pos.x -= 1000;
    }
    fx.step();
    sizes.push_back(fx.out.data.size());
    // Consecutive entries of one viewer share its one-name recipients range.
    sizes.push_back(fx.out.recipients.size());
    return sizes;
  };
  const auto one = run(1);
  const auto many = run(100);
  CHECK(one[0] == many[0]);
  CHECK(one[1] == many[1]);
  CHECK(one[2] == many[2]);
  CHECK(one[3] == many[3]);
  CHECK(many[4] == 100);
}

TEST_CASE("K21 (renderer side): an enchanted stack's entry is content's encoding of it") {
  fixture fx;
  fx.allow_undecoded = true; // the stack carries a data component
  fx.add("alice", 769);
  auto sp = spawn_event(1, 1);
  sp.item = "{count:1,id:\"minecraft:diamond_sword\",components:{\"minecraft:enchantments\":{"
            "sharpness:5}}}";
  const auto list = fx.step({sp});
  REQUIRE(list.size() == 4);
  const std::string want = item_bytes(769, sp.item);
  CHECK(want != item_bytes(769, ""));
  CHECK(list[2].bytes.find(want) != std::string::npos);
}

TEST_CASE("K26 (renderer side): a player name that is no valid profile name stays out") {
  fixture fx;
  fx.allow_undecoded = true;
  auto& alice = fx.add("alice", 775);
  alice.name = "0f8a1c2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b";
  alice.skin_textures["default"] = api::skin_texture{"dGV4dHVyZQ==", std::nullopt};
  auto sp = spawn_event(1, 1);
  sp.item = "{count:1,id:\"minecraft:player_head\"}";
  sp.skin = api::skin_binding{"initiator", "body", 2, {0, 12}};
  api::ev_playback_started st;
  st.session = 1;
  st.player = "alice";
  const auto list = fx.step({sp, st});
  REQUIRE(list.size() == 4);
  CHECK(list[2].bytes.find(alice.name) == std::string::npos);
  CHECK(list[2].bytes.find("dGV4dHVyZQ==") != std::string::npos); // the default textures
}

TEST_CASE("a handle freed by one session and spawned by a later one in the same frame") {
  fixture fx;
  fx.add("alice", 769);
  const auto first = received(fx.step({spawn_event(1, 1)}), "alice");
  api::ev_display_remove rm;
  rm.session = 1;
  rm.handles = {1};
  const auto got = received(fx.step({rm, spawn_event(2, 1)}), "alice");
  REQUIRE(kinds(got) == std::vector<pk>{pk::entity_destroy, pk::bundle_delimiter, pk::spawn_entity,
                                        pk::entity_metadata, pk::bundle_delimiter});
  CHECK(got[2].entity_id == first[1].entity_id);
  CHECK(got[2].uuid != first[1].uuid);
  const auto ds = fx.r->displays();
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].session == 2);
}

TEST_CASE("hidden players are sent again after a client reset and on resync") {
  fixture fx;
  auto& alice = fx.add("alice", 769);
  alice.entity_id = 42;
  fx.add("bob", 769, 10, 0);
  api::ev_player_visibility vis;
  vis.player = "alice";
  vis.hidden = true;
  vis.blank_equipment = true;
  fx.step({vis});
  CHECK(fx.step().empty());
  fx.get("bob").client_epoch += 1;
  const auto again = fx.step();
  REQUIRE(again.size() == 2);
  CHECK(again[0].to == std::vector<std::string>{"bob"});
  CHECK(again[0].pkt.entry(0)->i == 0x20);
  CHECK(again[1].pkt.kind == pk::entity_equipment);
  const std::vector<std::string> who{"bob"};
  fx.r->resync(who);
  CHECK(received(fx.step(), "bob").size() == 2);
  // alice herself gets no tracking-pass packets about herself.
  CHECK(received(fx.step(), "alice").empty());
}

TEST_CASE("snapshot: every viewer's tracked state for one subscriber; later steps unchanged "
          "(render.md §4 rule 6)") {
  // Two renderers fed the same frames; one is also asked for snapshots. Their shared output must
  // stay byte-identical.
  fixture fx, twin;
  for (fixture* f : {&fx, &twin}) {
    f->add("alice", 769);
    f->add("bob", 775, 3, 0);
    f->add("far", 769, 1000, 0);
  }
  const std::vector<api::event> spawn{spawn_event(1, 1), spawn_event(1, 2)};
  fx.step(spawn);
  twin.step(spawn);
  render_output snap;
  fx.r->snapshot(snap);
  // Per viewer in join order: destroy of what it tracks, then spawn bundles (4 packets each);
  // the viewer out of range tracks nothing and gets nothing.
  std::map<std::uint32_t, std::vector<std::int32_t>> ids; // recipient -> packet ids
  std::vector<std::uint32_t> order;
  for (const packet_entry& e : snap.entries) {
    const auto to = snap.to(e);
    REQUIRE(to.size() == 1);
    if (order.empty() || order.back() != to[0]) {
      order.push_back(to[0]);
    }
    ids[to[0]].push_back(static_cast<std::uint8_t>(snap.bytes(e)[0]));
  }
  CHECK(order == std::vector<std::uint32_t>{0, 1});
  for (const std::uint32_t who : {0U, 1U}) {
    const version_table& v = *find_version(who == 0 ? 769 : 775);
    const auto id = [&](pk k) { return v.packet_ids[static_cast<std::size_t>(k)]; };
    CHECK(ids[who] == std::vector<std::int32_t>{
                          id(pk::entity_destroy), id(pk::bundle_delimiter), id(pk::spawn_entity),
                          id(pk::entity_metadata), id(pk::bundle_delimiter),
                          id(pk::bundle_delimiter), id(pk::spawn_entity), id(pk::entity_metadata),
                          id(pk::bundle_delimiter)});
  }
  // The same snapshot twice; and the shared stream as if no snapshot had been made.
  render_output again;
  fx.r->snapshot(again);
  CHECK(again.data == snap.data);
  for (int k = 0; k < 3; ++k) {
    api::ev_display_update up = {};
    up.handle = 1;
    api::transform_record t = identity_transform();
    t.translation = {0, static_cast<float>(k + 1), 0};
    up.transform = t;
    up.interpolation_duration = 2;
    const std::vector<api::event> ev{up};
    fx.step(ev);
    twin.step(ev);
    CHECK(fx.out.data == twin.out.data);
    CHECK(fx.out.recipients == twin.out.recipients);
    CHECK(fx.out.entries.size() == twin.out.entries.size());
  }
}

TEST_CASE("a step nobody receives builds no packets, yet tracks and warns as one that does "
          "(render.md §6)") {
  // Two renderers fed the same frames; `quiet` is told for the first steps that nobody receives
  // its packets. Its warnings and tracker sets (seen through snapshots) must not differ, and once
  // it builds again its output must be the other's.
  fixture loud, quiet;
  for (fixture* f : {&loud, &quiet}) {
    f->add("alice", 769);
    f->add("bob", 775, 40, 0);
    f->add("walker", 769, 400, 0);
  }
  quiet.build_packets = false;
  std::vector<std::vector<api::event>> frames;
  api::ev_display_spawn odd = spawn_event(1, 3);
  odd.item_display = "no_such_mode"; // a warning, once per protocol
  frames.push_back({spawn_event(1, 1), spawn_event(1, 2, api::display_kind::text), odd});
  for (int k = 1; k < 8; ++k) {
    api::ev_display_move mv;
    mv.session = 1;
    mv.position = {static_cast<double>(k) * 25, 64, 0};
    api::transform_record t = identity_transform();
    t.translation = {0, static_cast<float>(k), 0};
    frames.push_back({mv, transform_update(2, t, k)});
  }
  frames.push_back({spawn_event(2, 4, api::display_kind::block)});
  std::size_t warned = 0;
  for (std::size_t k = 0; k < frames.size(); ++k) {
    // The walker comes into range and leaves again while nobody receives.
    loud.get("walker").pos.x = quiet.get("walker").pos.x = 400.0 - static_cast<double>(k) * 50;
    loud.step(frames[k]);
    quiet.step(frames[k]);
    CHECK(quiet.out.entries.empty());
    CHECK(quiet.out.recipients.empty());
    CHECK(quiet.out.data.empty());
    REQUIRE(quiet.out.warnings.size() == loud.out.warnings.size());
    for (std::size_t w = 0; w < loud.out.warnings.size(); ++w) {
      CHECK(quiet.out.warnings[w].message == loud.out.warnings[w].message);
      CHECK(quiet.out.warnings[w].protocol == loud.out.warnings[w].protocol);
    }
    warned += loud.out.warnings.size();
    CHECK_FALSE(loud.out.entries.empty());
    render_output a, b;
    loud.r->snapshot(a);
    quiet.r->snapshot(b);
    CHECK(a.data == b.data);
    CHECK(a.recipients == b.recipients);
    CHECK(a.entries.size() == b.entries.size());
  }
  CHECK(warned == 2); // the item display mode, on 769 and on 775
  // Receiving again: the same bytes as the renderer that always built them.
  quiet.build_packets = true;
  for (int k = 0; k < 3; ++k) {
    api::ev_display_move mv;
    mv.session = 1;
    mv.position = {static_cast<double>(k), 64, 1};
    loud.step({mv});
    quiet.step({mv});
    CHECK_FALSE(quiet.out.entries.empty());
    CHECK(quiet.out.data == loud.out.data);
    CHECK(quiet.out.recipients == loud.out.recipients);
    CHECK(quiet.out.entries.size() == loud.out.entries.size());
  }
}
