#include "protocol/encode.hpp"

#include "engine/rules/play_errors.hpp"
#include "protocol/decode.hpp"

#include "engine/json/wire_reader.hpp"
#include "render/tables.hpp"
#include <rapidjson/document.h>

#include <doctest/doctest.h>
#include <utility>

#include <thread>

using namespace emote;
using namespace emote::protocol;

namespace {

std::string ev(const api::event& e, bool matrix = false) {
  std::string s;
  encode_event(s, e, matrix);
  return s;
}

// The P32 record: M = T(1,2,3)·R(0°,90°,0°)·S(2,2,2).
api::transform_record p32() {
  api::transform_record t;
  t.matrix = {0, 0, 1.9999999F, 1, 0, 2, 0, 2, -1.9999999F, 0, 0, 3, 0, 0, 0, 1};
  t.translation = {1, 2, 3};
  t.left_rotation = {0, 0.70710677F, 0, 0.70710677F};
  t.scale = {1.9999998F, 1.9999999F, 1.9999998F};
  t.right_rotation = {-0.0F, -0.0F, -0.0F, 1};
  return t;
}

api::ev_display_spawn spawn(api::session_id s, api::handle_id h, std::string dim) {
  api::ev_display_spawn e;
  e.session = s;
  e.handle = h;
  e.node = "box";
  e.space = api::space::initiator;
  e.kind = api::display_kind::item;
  e.item = R"({id:"minecraft:stone",count:1})";
  e.item_display = "none";
  e.dimension = std::move(dim);
  e.position = {0, 64, 0};
  e.yaw = 0;
  e.transform = p32();
  return e;
}

api::ev_display_update update(api::handle_id h, bool visible) {
  api::ev_display_update u;
  u.handle = h;
  u.visible = visible;
  return u;
}

} // namespace

/// Alternative i of api::event, default-constructed.
template <std::size_t... I>
api::event make_alternative(std::size_t i, std::index_sequence<I...>) {
  api::event e;
  ((i == I ? static_cast<void>(e.emplace<I>()) : static_cast<void>(0)), ...);
  return e;
}

TEST_CASE("type names match the engine's and select by name or prefix") {
  for (std::size_t i = 0; i < event_type_count; ++i) {
    const api::event e = make_alternative(i, std::make_index_sequence<event_type_count>{});
    REQUIRE(e.index() == i);
    CHECK(event_type_name(i) == api::type_name(e));
    CHECK(event_type_mask(api::type_name(e)) == (1U << i));
  }
  CHECK(event_type_mask("display.") == 0b11111000U);
  CHECK(event_type_mask("partner.") == (0xFU << 10));
  CHECK(event_type_mask("display") == 0);
  CHECK(event_type_mask("display.nope") == 0);
  CHECK(event_type_mask("") == 0);
}

TEST_CASE("lifecycle records") {
  CHECK(
      ev(api::ev_playback_started{3, "alice", "fx:slide", api::role::solo}) ==
      R"({"type":"playback.started","session":3,"player":"alice","emote":"fx:slide","role":"solo"})");
  CHECK(
      ev(api::ev_playback_stopped{3, "alice", "fx:slide", api::stop_reason::game_mode_changed}) ==
      R"({"type":"playback.stopped","session":3,"player":"alice","emote":"fx:slide","reason":"GAME_MODE_CHANGED"})");
  CHECK(
      ev(api::ev_segment_started{2, 4, 1, "fx:part_b", api::branch::main}) ==
      R"({"type":"segment.started","session":2,"step":4,"repeat":1,"animation":"fx:part_b","branch":"main"})");
  CHECK(ev(api::ev_partner_reserved{5, "alice", "bob"}) ==
        R"({"type":"partner.reserved","session":5,"initiator":"alice","partner":"bob"})");
  CHECK(
      ev(api::ev_partner_released{5, "alice", "bob", api::release_why::recheck_failed}) ==
      R"({"type":"partner.released","session":5,"initiator":"alice","partner":"bob","why":"recheck_failed"})");
  CHECK(ev(api::ev_partner_matched{5, "alice", "bob"}) ==
        R"({"type":"partner.matched","session":5,"initiator":"alice","partner":"bob"})");
  CHECK(ev(api::ev_partner_timeout{5, "alice"}) ==
        R"({"type":"partner.timeout","session":5,"initiator":"alice"})");
  CHECK(ev(api::ev_player_visibility{"alice", true, true}) ==
        R"({"type":"player.visibility","player":"alice","hidden":true,"equipment":"blank"})");
  CHECK(
      ev(api::ev_render_warning{"fx:hat", "hat", "", 768, "custom_model_data dropped"}) ==
      R"({"type":"render.warning","emote":"fx:hat","node":"hat","protocol":768,"message":"custom_model_data dropped"})");
  CHECK(ev(api::ev_render_warning{"", "", "alice", 775, "no profile"}) ==
        R"({"type":"render.warning","player":"alice","protocol":775,"message":"no profile"})");
  CHECK(ev(api::ev_player_visibility{"alice", false, false}) ==
        R"({"type":"player.visibility","player":"alice","hidden":false,"equipment":"real"})");
}

TEST_CASE("command and callback records") {
  api::ev_command c;
  c.session = 1;
  c.player = "alice";
  c.source.type = api::command_source::kind::player;
  c.dimension = "minecraft:overworld";
  c.origin = {0.5, 65.62000000476837, -2};
  c.command = "say hi";
  CHECK(
      ev(c) ==
      R"({"type":"command","session":1,"player":"alice","source":{"type":"player"},"dimension":"minecraft:overworld","origin":[0.5,65.62000000476837,-2],"command":"say hi"})");
  c.source.type = api::command_source::kind::node;
  c.source.handle = 7;
  CHECK(ev(c).find(R"("source":{"type":"node","handle":7})") != std::string::npos);
  c.source = {api::command_source::kind::server, std::nullopt};
  CHECK(ev(c).find(R"("source":{"type":"server"})") != std::string::npos);

  api::ev_callback cb{1,        "alice", "minecraft:swing", "{\"x\":1}", "minecraft:the_nether",
                      {1, 2, 3}};
  CHECK(
      ev(cb) ==
      R"({"type":"callback","session":1,"player":"alice","name":"minecraft:swing","payload":"{\"x\":1}","dimension":"minecraft:the_nether","origin":[1,2,3]})");
}

TEST_CASE("display.spawn with every optional part, numbers at their precision") {
  api::ev_display_spawn s = spawn(1, 2, "minecraft:overworld");
  s.position = {1.4695762231022014e-16, 64, 1.2};
  s.yaw = 180;
  s.teleport_duration = 3;
  s.entity_nbt = "{Glowing:1b}";
  s.nbt = "{item:{id:\"minecraft:poppy\",count:1}}";
  s.skin = api::skin_binding{"initiator", "head", 0, {0, 12}};
  CHECK(
      ev(s) ==
      R"({"type":"display.spawn","session":1,"handle":2,"node":"box","space":"initiator","kind":"item",)"
      R"("item":"{id:\"minecraft:stone\",count:1}","item_display":"none","entity_nbt":"{Glowing:1b}",)"
      R"("nbt":"{item:{id:\"minecraft:poppy\",count:1}}","dimension":"minecraft:overworld",)"
      R"("position":[1.4695762231022014e-16,64,1.2],"yaw":180,"teleport_duration":3,)"
      R"("transform":{"translation":[1,2,3],"left_rotation":[0,0.70710677,0,0.70710677],)"
      R"("scale":[1.9999998,1.9999999,1.9999998],"right_rotation":[-0.0,-0.0,-0.0,1]},)"
      R"("visible":false,"skin":{"participant":"initiator","part":"head","order":0,"rows":[0,12]}})");
  CHECK(
      ev(s, true).find(
          R"("right_rotation":[-0.0,-0.0,-0.0,1],"matrix":[0,0,1.9999999,1,0,2,0,2,-1.9999999,0,0,3,0,0,0,1]})") !=
      std::string::npos);
}

TEST_CASE("display.spawn content by kind") {
  api::ev_display_spawn b = spawn(1, 1, "minecraft:overworld");
  b.kind = api::display_kind::block;
  b.block = R"({Name:"minecraft:stone"})";
  std::string s = ev(b);
  CHECK(s.find(R"("kind":"block","block":"{Name:\"minecraft:stone\"}","dimension")") !=
        std::string::npos);
  CHECK(s.find("item_display") == std::string::npos);

  api::ev_display_spawn t = spawn(1, 1, "minecraft:overworld");
  t.kind = api::display_kind::text;
  t.text_json = R"({"text": "hi", "color":"red"})";
  CHECK(ev(t).find(R"("kind":"text","text":{"text":"hi","color":"red"},"dimension")") !=
        std::string::npos);
  t.text_json = R"("plain")";
  CHECK(ev(t).find(R"("text":"plain","dimension")") != std::string::npos);
  t.text_json = "not json";
  CHECK(ev(t).find(R"("text":"not json","dimension")") != std::string::npos);
}

TEST_CASE("display.update carries only what changed") {
  api::ev_display_update u;
  u.handle = 4;
  u.transform = p32();
  u.interpolation_duration = 2;
  CHECK(
      ev(u) ==
      R"({"type":"display.update","handle":4,"transform":{"translation":[1,2,3],"left_rotation":[0,0.70710677,0,0.70710677],)"
      R"("scale":[1.9999998,1.9999999,1.9999998],"right_rotation":[-0.0,-0.0,-0.0,1]},"interpolation_duration":2,"start_interpolation":0})");
  CHECK(ev(update(4, true)) == R"({"type":"display.update","handle":4,"visible":true})");
  api::ev_display_update n;
  n.handle = 9;
  n.nbt = "{Glowing:1b}";
  n.item = R"({id:"minecraft:bow",count:1})";
  CHECK(
      ev(n) ==
      R"({"type":"display.update","handle":9,"nbt":"{Glowing:1b}","item":"{id:\"minecraft:bow\",count:1}"})");
}

TEST_CASE("display.view, display.move, display.remove") {
  CHECK(ev(api::ev_display_view{2, 10.5F, 3}) ==
        R"({"type":"display.view","session":2,"yaw":10.5,"teleport_duration":3})");
  CHECK(
      ev(api::ev_display_move{2, api::space::partner, {8.8, 64, -2.5}, 0}) ==
      R"({"type":"display.move","session":2,"space":"partner","position":[8.8,64,-2.5],"teleport_duration":0})");
  CHECK(ev(api::ev_display_remove{2, {1, 2, 5}}) ==
        R"({"type":"display.remove","session":2,"handles":[1,2,5]})");
}

TEST_CASE("frames, with and without events") {
  api::frame f{11,
               {api::ev_playback_stopped{1, "alice", "fx:slide", api::stop_reason::finished},
                api::ev_display_remove{1, {1}}}};
  std::string s;
  encode_frame(s, f, false);
  CHECK(
      s ==
      R"({"op":"frame","tick":11,"events":[{"type":"playback.stopped","session":1,"player":"alice","emote":"fx:slide","reason":"FINISHED"},{"type":"display.remove","session":1,"handles":[1]}]})"
      "\n");
  s.clear();
  encode_frame(s, api::frame{12, {}}, true);
  CHECK(s == "{\"op\":\"frame\",\"tick\":12,\"events\":[]}\n");
  CHECK(with_dropped(s, 5) == "{\"op\":\"frame\",\"tick\":12,\"events\":[],\"dropped\":5}\n");
}

TEST_CASE("frame_encoder shares bytes between equal filters and filters by type") {
  api::frame f{1,
               {api::ev_command{1, "alice", {}, "minecraft:overworld", {0, 0, 0}, "say a"},
                spawn(1, 1, "minecraft:overworld"), update(1, true),
                api::ev_playback_started{1, "alice", "fx:slide", api::role::solo}}};
  frame_encoder enc;
  enc.begin(f);
  auto all = enc.encode(frame_filter{});
  auto again = enc.encode(frame_filter{});
  CHECK(all.get() == again.get()); // encoded once
  CHECK(all->event_count == 4);
  CHECK(enc.variant_count() == 1);

  std::string direct;
  encode_frame(direct, f, false);
  CHECK(all->line == direct);
  auto with_matrix = enc.encode(full_filter());
  std::string direct_matrix;
  encode_frame(direct_matrix, f, true);
  CHECK(with_matrix->line == direct_matrix);
  CHECK(with_matrix.get() != all.get());

  frame_filter displays;
  displays.types = event_type_mask("display.");
  auto d = enc.encode(displays);
  CHECK(d->event_count == 2);
  CHECK(d->line.find("playback.started") == std::string::npos);
  CHECK(d->line.find("\"command\"") == std::string::npos);

  frame_filter none;
  none.types = 0;
  auto empty = enc.encode(none);
  CHECK(empty->event_count == 0);
  CHECK(empty->line == "{\"op\":\"frame\",\"tick\":1,\"events\":[]}\n");
  CHECK(enc.variant_count() == 4);
}

TEST_CASE("frame_encoder filters display records by their session's dimension across frames") {
  frame_encoder enc;
  frame_filter nether;
  nether.dimensions = {"minecraft:the_nether"};

  api::frame f1{1,
                {spawn(1, 1, "minecraft:overworld"), spawn(2, 2, "minecraft:the_nether"),
                 api::ev_playback_started{1, "alice", "fx:a", api::role::solo},
                 api::ev_playback_started{2, "bob", "fx:a", api::role::solo}}};
  enc.begin(f1);
  auto l1 = enc.encode(nether);
  CHECK(l1->event_count == 3); // bob's spawn + both lifecycle records
  CHECK(l1->line.find(R"("handle":1)") == std::string::npos);
  CHECK(l1->line.find(R"("handle":2)") != std::string::npos);

  // Later frames: updates are known by handle, view/move/remove by session.
  api::frame f2{2,
                {api::ev_display_move{1, api::space::scene, {1, 64, 0}, 0},
                 api::ev_display_view{2, 10, 3}, update(1, true), update(2, true),
                 api::ev_display_remove{1, {1}},
                 api::ev_playback_stopped{1, "alice", "fx:a", api::stop_reason::finished}}};
  enc.begin(f2);
  auto l2 = enc.encode(nether);
  CHECK(l2->event_count == 3); // view(2), update(2), stopped(1)
  CHECK(
      l2->line ==
      R"({"op":"frame","tick":2,"events":[{"type":"display.view","session":2,"yaw":10,"teleport_duration":3},)"
      R"({"type":"display.update","handle":2,"visible":true},)"
      R"({"type":"playback.stopped","session":1,"player":"alice","emote":"fx:a","reason":"FINISHED"}]})"
      "\n");

  // Handle 1 is free again; a nether session may take it.
  api::frame f3{3, {spawn(3, 1, "minecraft:the_nether"), update(1, false)}};
  enc.begin(f3);
  CHECK(enc.encode(nether)->event_count == 2);

  // Commands carry their own dimension.
  api::frame f4{4, {api::ev_command{9, "carol", {}, "minecraft:overworld", {0, 0, 0}, "say x"}}};
  enc.begin(f4);
  CHECK(enc.encode(nether)->event_count == 0);
}

TEST_CASE("frame_encoder filters by player: their records and their sessions' across frames") {
  frame_encoder enc;
  frame_filter bob;
  bob.players = {"bob"};
  frame_filter pair;
  pair.players = {"alice", "bob"};

  // A session's records come before its playback.started in the frame; they pass all the same.
  api::frame f1{1,
                {api::ev_segment_started{1, 0, 0, "fx:a", api::branch::main},
                 spawn(1, 1, "minecraft:overworld"), spawn(2, 2, "minecraft:overworld"),
                 api::ev_playback_started{1, "alice", "fx:a", api::role::solo},
                 api::ev_playback_started{2, "bob", "fx:a", api::role::solo},
                 api::ev_player_visibility{"bob", true, true},
                 api::ev_render_warning{"fx:a", "box", "", 769, "node warning"},
                 api::ev_render_warning{"", "", "bob", 769, "player warning"}}};
  enc.begin(f1);
  auto l1 = enc.encode(bob);
  CHECK(l1->event_count == 4); // spawn(2), started(bob), visibility(bob), bob's warning
  CHECK(l1->line.find(R"("handle":1)") == std::string::npos);
  CHECK(l1->line.find("alice") == std::string::npos);
  CHECK(l1->line.find("node warning") == std::string::npos);
  CHECK(enc.encode(pair)->event_count == 7); // all but the node's warning
  CHECK(enc.encode(bob).get() == l1.get());  // equal filters share bytes

  // Later frames: updates by handle, move/view/remove by session, commands by player.
  api::frame f2{2,
                {api::ev_command{2, "bob", {}, "minecraft:overworld", {0, 0, 0}, "say b"},
                 api::ev_display_move{1, api::space::scene, {1, 64, 0}, 0},
                 api::ev_display_view{2, 10, 3}, update(1, true), update(2, true),
                 api::ev_display_remove{1, {1}},
                 api::ev_playback_stopped{1, "alice", "fx:a", api::stop_reason::finished}}};
  enc.begin(f2);
  auto l2 = enc.encode(bob);
  CHECK(l2->event_count == 3); // command, view(2), update(2)
  CHECK(l2->line.find(R"("type":"display.view","session":2)") != std::string::npos);
  CHECK(l2->line.find(R"("type":"display.update","handle":2)") != std::string::npos);
  CHECK(l2->line.find("display.move") == std::string::npos);

  // A two-player session: bob's offer, carol becomes the partner; a filter on carol sees the
  // partner records and, once she takes part, the session's displays.
  frame_filter carol;
  carol.players = {"carol"};
  api::frame f3{3,
                {api::ev_display_remove{2, {2}},
                 api::ev_playback_stopped{2, "bob", "fx:a", api::stop_reason::replaced},
                 api::ev_playback_started{3, "bob", "fx:pair", api::role::initiator},
                 api::ev_partner_reserved{3, "bob", "carol"}}};
  enc.begin(f3);
  CHECK(enc.encode(carol)->event_count == 1);
  CHECK(enc.encode(bob)->event_count == 4);
  api::frame f4{4,
                {spawn(3, 2, "minecraft:overworld"), api::ev_partner_matched{3, "bob", "carol"},
                 api::ev_playback_started{3, "carol", "fx:pair", api::role::partner}}};
  enc.begin(f4);
  CHECK(enc.encode(carol)->event_count == 3);
  api::frame f5{5, {update(2, false), api::ev_partner_timeout{9, "dave"}}};
  enc.begin(f5);
  CHECK(enc.encode(carol)->event_count == 1); // handle 2 is session 3's now
  CHECK(enc.encode(bob)->event_count == 1);
}

// render.md §5.4: the renderer's warnings travel beside the Engine's frame (tick_output) and come
// last on the wire, filtered like events of their type.
TEST_CASE("a tick's renderer warnings are encoded after the frame's events") {
  api::frame f{7,
               {api::ev_playback_started{1, "bob", "fx:a", api::role::solo},
                api::ev_player_visibility{"alice", true, true}}};
  const std::vector<api::ev_render_warning> warnings{
      api::ev_render_warning{"fx:a", "box", "", 769, "node warning"},
      api::ev_render_warning{"", "", "bob", 769, "player warning"}};
  tick_output t(f);
  t.warnings = warnings;
  CHECK(t.event_count() == 4);

  // The same bytes as a frame holding the warnings as its last events.
  api::frame merged = f;
  merged.events.insert(merged.events.end(), warnings.begin(), warnings.end());
  std::string expected;
  encode_frame(expected, merged, false);
  std::string direct;
  encode_frame(direct, t, false);
  CHECK(direct == expected);

  frame_encoder enc;
  enc.begin(t);
  CHECK(enc.encode(frame_filter{})->line == expected);
  CHECK(enc.encode(frame_filter{})->event_count == 4);
  frame_filter bob;
  bob.players = {"bob"};
  const auto for_bob = enc.encode(bob);
  CHECK(for_bob->event_count == 2); // started(bob), bob's warning; not the node's
  CHECK(for_bob->line.find("player warning") != std::string::npos);
  CHECK(for_bob->line.find("node warning") == std::string::npos);
  frame_filter no_warnings;
  no_warnings.types = event_type_mask("playback.") | event_type_mask("player.");
  CHECK(enc.encode(no_warnings)->event_count == 2);
  frame_filter only_warnings;
  only_warnings.types = event_type_mask("render.warning");
  const auto warned = enc.encode(only_warnings);
  CHECK(warned->event_count == 2);
  CHECK(warned->line.rfind(R"({"op":"frame","tick":7,"events":[{"type":"render.warning")", 0) == 0);

  // Warnings alone make a tick with events.
  api::frame quiet{8, {}};
  tick_output only(quiet);
  only.warnings = std::span(warnings).first(1);
  CHECK(only.has_events());
  std::string alone;
  encode_frame(alone, only, false);
  CHECK(alone == R"({"op":"frame","tick":8,"events":[{"type":"render.warning","emote":"fx:a",)"
                 R"("node":"box","protocol":769,"message":"node warning"}]})"
                 "\n");
}

TEST_CASE("frame_encoder reuses buffers no one holds any more") {
  frame_encoder enc;
  api::frame f{1, {update(1, true)}};
  enc.begin(f);
  const encoded_frame* first = nullptr;
  {
    auto a = enc.encode(frame_filter{});
    first = a.get();
  }
  api::frame g{2, {update(1, false)}};
  enc.begin(g);
  auto b = enc.encode(frame_filter{});
  CHECK(b.get() == first); // recycled, rewritten
  CHECK(b->line.find("\"tick\":2") != std::string::npos);
  // A line still held elsewhere is never rewritten.
  api::frame h{3, {update(1, true)}};
  enc.begin(h);
  auto c = enc.encode(frame_filter{});
  CHECK(c.get() != b.get());
  CHECK(b->line.find("\"tick\":2") != std::string::npos);
  // Released on another thread, then recycled here.
  std::thread([held = std::move(b)]() mutable { held.reset(); }).join();
  c.reset();
  api::frame k{4, {}};
  enc.begin(k);
  auto d = enc.encode(frame_filter{});
  CHECK(d->line == "{\"op\":\"frame\",\"tick\":4,\"events\":[]}\n");
}

TEST_CASE("replies") {
  std::string s;
  encode_reply(s, request_id{std::string("a")},
               api::reply{1, std::nullopt, api::play_ok{1, "fx:slide", api::role::solo}});
  CHECK(s == "{\"op\":\"reply\",\"id\":\"a\",\"tick\":1,\"ok\":true,\"session\":1,\"emote\":\"fx:"
             "slide\",\"role\":\"solo\"}\n");
  s.clear();
  encode_reply(s, request_id{std::int64_t{7}}, api::reply{5, std::nullopt, api::stop_ok{2}});
  CHECK(s == "{\"op\":\"reply\",\"id\":7,\"tick\":5,\"ok\":true,\"session\":2}\n");
  s.clear();
  encode_reply(s, request_id{std::int64_t{-1}},
               api::reply{5, std::nullopt, api::count_ok{"stopped", 3}});
  CHECK(s == "{\"op\":\"reply\",\"id\":-1,\"tick\":5,\"ok\":true,\"stopped\":3}\n");
  s.clear();
  encode_reply(s, request_id{}, api::reply{0, std::nullopt, api::empty_ok{}});
  CHECK(s == "{\"op\":\"reply\",\"tick\":0,\"ok\":true}\n");
}

TEST_CASE("error replies name the op, player and emote; detail is for the developer") {
  // protocol.md §3: the subject fields come from the request, and `message` stays the text for
  // a person while `detail` names what failed.
  const auto decoded = decode_request(
      R"({"op":"emote.play","player":"al\"ice","emote":"demo:wave","source":"idle"})");
  REQUIRE(decoded);
  const error_subject about = subject_of(*decoded);
  CHECK(about.op == "emote.play");
  CHECK(about.player == "al\"ice");
  CHECK(about.emote == "demo:wave");
  std::string s;
  encode_error(s, request_id{}, 9, rules::play_error(api::error_code::no_permission), &about);
  CHECK(
      s ==
      R"({"op":"reply","tick":9,"ok":false,"error":{"code":"no_permission","message":"You do not have permission to use this emote.","op":"emote.play","player":"al\"ice","emote":"demo:wave","detail":"emote.play player \"al\"ice\" emote \"demo:wave\": You do not have permission to use this emote."}})"
      "\n");
  // A request that fails to decode still names its op and player.
  const auto bad = decode_request(R"({"op":"player.update","player":"bob","yaw":"north"})");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().subject.op == "player.update");
  CHECK(bad.error().subject.player == "bob");
  CHECK(bad.error().error.path == "$.yaw");
  CHECK(error_detail(bad.error().error, &bad.error().subject) ==
        R"(player.update player "bob": $.yaw: must be a number)");
  // An unknown op names no op; a player key longer than a request may carry is not echoed.
  const auto unknown = decode_request(R"({"op":"emote.plya","player":"bob"})");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().subject.op.empty());
  CHECK(unknown.error().subject.player == "bob");
  const auto too_long =
      decode_request(R"({"op":"player.leave","player":")" + std::string(257, 'x') + R"("})");
  REQUIRE_FALSE(too_long);
  CHECK(too_long.error().subject.op == "player.leave");
  CHECK(too_long.error().subject.player.empty());
  // The developer's text per code.
  const error_subject bob{"player.update", "bob", ""};
  CHECK(error_detail(rules::play_error(api::error_code::unknown_player), &bob) ==
        R"(player.update player "bob": no player with this key is online)");
  CHECK(error_detail(api::error{api::error_code::bad_json, "at 3", {}, {}}) == "at 3");
}

TEST_CASE("a play that made an initiator names the offer it did not join") {
  // protocol.md §4 emote.play, players.md §7.3.
  std::string s;
  const api::unmatched_offer u{4, "alice", api::match_failure::partner_facing};
  encode_reply(s, request_id{std::int64_t{2}},
               api::reply{7, std::nullopt, api::play_ok{9, "x:hs", api::role::initiator}}, nullptr,
               &u);
  CHECK(
      s ==
      R"({"op":"reply","id":2,"tick":7,"ok":true,"session":9,"emote":"x:hs","role":"initiator","unmatched":{"session":4,"initiator":"alice","reason":"partner_facing"}})"
      "\n");
  s.clear();
  encode_reply(s, request_id{std::int64_t{3}},
               api::reply{7, std::nullopt, api::play_ok{5, "x:hs", api::role::partner}}, nullptr,
               &u); // only an initiator's reply says it
  CHECK(s.find("unmatched") == std::string::npos);
  CHECK(api::parse_match_failure("line_of_sight") == api::match_failure::line_of_sight);
}

TEST_CASE("error replies carry path, remaining_ticks and supported versions") {
  std::string s;
  api::error cooldown{api::error_code::cooldown, "Emote cooldown: 5s remaining.", {}, 81};
  encode_reply(s, request_id{std::string("b")}, api::reply{20, cooldown, api::empty_ok{}});
  CHECK(
      s ==
      R"({"op":"reply","id":"b","tick":20,"ok":false,"error":{"code":"cooldown","message":"Emote cooldown: 5s remaining.","remaining_ticks":81,"detail":"the emote is on cooldown for 81 more ticks"}})"
      "\n");
  s.clear();
  encode_error(s, request_id{}, 3,
               api::error{api::error_code::bad_request, "must be a string", "$.player", {}});
  CHECK(
      s ==
      R"({"op":"reply","tick":3,"ok":false,"error":{"code":"bad_request","message":"must be a string","path":"$.player","detail":"$.player: must be a string"}})"
      "\n");
  s.clear();
  encode_error(s, request_id{}, 0,
               api::error{api::error_code::unsupported_protocol,
                          "unsupported protocol version 2; supported: 1",
                          "$.protocol",
                          {}});
  CHECK(s.find(R"("path":"$.protocol","supported":[1],"detail":)") != std::string::npos);
  CHECK(needs_reply(request_id{}, false));
  CHECK_FALSE(needs_reply(request_id{}, true));
  CHECK(needs_reply(request_id{std::int64_t{0}}, true));
}

TEST_CASE("welcome and bye") {
  std::string s;
  encode_welcome(s, welcome_info{"0.1.0", 42, 20, true, false, 12, {}});
  CHECK(s.starts_with(
      R"({"op":"welcome","protocol":1,"server":"emote-sim/0.1.0","tick":42,"tps":20,"clock":"manual","role":"controller","emotes":12,"minecraft":{"767":{"version":"1.21.1","packets":{"bundle_delimiter":0,)"));
  CHECK(s.ends_with(R"("player_flags_index":0}}})"
                    "\n"));
  // The packet ids per supported version (protocol.md §2), as minecraft-data 3.119.0 numbers them:
  // 1.21.4 has no entity_teleport in render's sense (render/tables.hpp) and so does not list it.
  CHECK(
      s.find(
          R"("769":{"version":"1.21.4","packets":{"bundle_delimiter":0,"spawn_entity":1,"entity_metadata":93,"entity_destroy":71,"sync_entity_position":32,"entity_look":50,"entity_equipment":96},"byte_serializer":0,"player_flags_index":0})") !=
      std::string::npos);
  CHECK(
      s.find(
          R"("775":{"version":"26.1","packets":{"bundle_delimiter":0,"spawn_entity":1,"entity_metadata":99,"entity_destroy":77,"sync_entity_position":35,"entity_look":56,"entity_equipment":102},"byte_serializer":0,"player_flags_index":0}})") !=
      std::string::npos);
  {
    rapidjson::Document d;
    REQUIRE_FALSE(d.Parse(s.data(), s.size() - 1).HasParseError());
    std::size_t n = 0;
    for (const auto* v : emote::render::versions()) {
      const auto key = std::to_string(v->protocol);
      REQUIRE(d["minecraft"].HasMember(key.c_str()));
      CHECK(d["minecraft"][key.c_str()]["packets"]["entity_metadata"].GetInt() ==
            v->packet_ids[static_cast<std::size_t>(emote::render::packet_kind::entity_metadata)]);
      ++n;
    }
    CHECK(d["minecraft"].MemberCount() == n);
    CHECK(n >= 9);
  }
  s.clear();
  encode_welcome(s, welcome_info{"0.1.0", 0, 20, false, true, 0, {}});
  CHECK(s.find(R"("clock":"realtime","role":"observer")") != std::string::npos);
  s.clear();
  // The build id (protocol.md §2) follows the server's version.
  encode_welcome(s, welcome_info{"0.1.0", 0, 20, false, false, 0, "c417296 GNU-12.2.0"});
  CHECK(s.starts_with(
      R"({"op":"welcome","protocol":1,"server":"emote-sim/0.1.0","build":"c417296 GNU-12.2.0","tick":0,)"));
  s.clear();
  encode_bye(s, "slow_consumer");
  CHECK(s == "{\"op\":\"bye\",\"reason\":\"slow_consumer\"}\n");
  s.clear();
  encode_bye(s);
  CHECK(s == "{\"op\":\"bye\"}\n");
}

TEST_CASE("query results") {
  sim::state_snapshot st;
  st.players = {
      {"alice",
       1,
       api::role::initiator,
       false,
       "minecraft:overworld",
       {0.5, 64, -3},
       90,
       "Alice_MC"},
      {"bob", std::nullopt, std::nullopt, true, "minecraft:the_nether", {1, 2, 3.25}, -45.5F, {}}};
  st.sessions = {{1, "fx:handshake", "OFFERING", 4, "alice", std::nullopt}};
  st.cooldowns = {{"alice", "fx:handshake", "cooldown", 96}};
  std::string s;
  encode_state_members(s, st, {});
  CHECK(
      s ==
      R"(,"players":[{"player":"alice","session":1,"role":"initiator","reserved":false,"dimension":"minecraft:overworld","position":[0.5,64,-3],"yaw":90,"name":"Alice_MC"},)"
      R"({"player":"bob","session":null,"role":null,"reserved":true,"dimension":"minecraft:the_nether","position":[1,2,3.25],"yaw":-45.5}],)"
      R"("sessions":[{"session":1,"emote":"fx:handshake","state":"OFFERING","tick":4,"initiator":"alice","partner":null}],)"
      R"("cooldowns":[{"player":"alice","emote":"fx:handshake","state":"cooldown","remaining_ticks":96}],"displays":[])");

  // The live displays (issue "catching up"): content as in display.spawn, the current state.
  render::display_info disp;
  disp.handle = 3;
  disp.session = 1;
  disp.node = "hat";
  disp.kind = api::display_kind::text;
  disp.text_json = R"({"text":"hi"})";
  disp.dimension = "minecraft:overworld";
  disp.position = {1.5, 64, -2};
  disp.yaw = 90;
  disp.transform.translation = {0, 1, 0};
  disp.transform.scale = {1, 1, 1};
  disp.transform.left_rotation = {0, 0, 0, 1};
  disp.transform.right_rotation = {0, 0, 0, 1};
  disp.visible = true;
  s.clear();
  encode_state_members(s, {}, std::vector<render::display_info>{disp});
  CHECK(s == R"(,"players":[],"sessions":[],"cooldowns":[],"displays":[{"handle":3,"session":1,)"
             R"("node":"hat","kind":"text","text":{"text":"hi"},"dimension":"minecraft:overworld",)"
             R"("position":[1.5,64,-2],"yaw":90,"transform":{"translation":[0,1,0],)"
             R"("left_rotation":[0,0,0,1],"scale":[1,1,1],"right_rotation":[0,0,0,1]},)"
             R"("visible":true}])");

  s.clear();
  emote_summary e{"fx:slide", "animation", "Slide", "", true, 10, true, 100, false};
  encode_emote_list_members(s, {e});
  CHECK(
      s ==
      R"(,"emotes":[{"id":"fx:slide","type":"animation","name":"Slide","description":"","standalone":true,"duration_ticks":10,"fixed_duration":true,"cooldown_ticks":100,"two_player":false}])");

  s.clear();
  emote_details d{e, R"(["box"])", R"({"name":"Slide","author":"x"})", ""};
  encode_emote_info_members(s, d);
  // protocol.md §3: the reply's "id" is the request id; the emote's id must not repeat the key.
  CHECK(s.starts_with(R"(,"emote":"fx:slide","type":"animation","name":"Slide")"));
  CHECK(s.find(R"("id":)") == std::string::npos);
  CHECK(s.ends_with(
      R"("two_player":false,"nodes":["box"],"metadata":{"name":"Slide","author":"x"})"));
  d.steps_json = "[]";
  s.clear();
  encode_emote_info_members(s, d);
  CHECK(s.ends_with(R"(,"steps":[])"));

  s.clear();
  core::diagnostics diags{
      {"a.json", 3, 5, "$.id", "duplicate emote id: fx:a", core::severity::error, {}},
      {"b.json", 1, 1, "$", "byte order mark ignored", core::severity::warning, {}}};
  encode_reload_members(s, 7, diags);
  CHECK(
      s ==
      R"(,"loaded":7,"skipped":[{"file":"a.json","path":"$.id","line":3,"column":5,"message":"duplicate emote id: fx:a"}])");
}

TEST_CASE("every encoded line is valid JSON") {
  api::frame f{1, {}};
  f.events.push_back(spawn(1, 1, "minecraft:overworld"));
  api::ev_display_spawn t = spawn(1, 2, "minecraft:overworld");
  t.kind = api::display_kind::text;
  t.text_json = R"({"text":"a\nb"})";
  f.events.push_back(t);
  f.events.push_back(api::ev_command{1, "we\"ird\n", {}, "d", {-0.0, 1e300, 5e-324}, "say \x01"});
  std::string s;
  encode_frame(s, f, true);
  rapidjson::Document d;
  CHECK_FALSE(emote::json::parse_wire(std::string_view(s).substr(0, s.size() - 1), d));
  CHECK(d["events"].Size() == 3);
}

TEST_CASE("packets with audiences: each recipient list once, entries by index (render.md §6.1)") {
  render::render_output r;
  r.data = "abcdef";
  // Entries 0 and 2 share a range; entry 3 has another range with the same names as entry 0;
  // entry 1 has its own list.
  r.recipients = {0, 1, 2, 0, 1};
  r.entries.push_back(render::packet_entry{769, 0, 2, 0, 1});
  r.entries.push_back(render::packet_entry{775, 2, 1, 1, 2});
  r.entries.push_back(render::packet_entry{769, 0, 2, 3, 1});
  r.entries.push_back(render::packet_entry{769, 3, 2, 4, 2});
  const std::vector<std::string> names{"alice", "bob", "carol"};
  const frame_packets p{&r, names};
  std::string with;
  encode_packets_member(with, p, true);
  CHECK(with == R"(,"audiences":[["alice","bob"],["carol"]],"packets":[)"
                R"({"audience":0,"protocol":769,"data":"YQ=="},)"
                R"({"audience":1,"protocol":775,"data":"YmM="},)"
                R"({"audience":0,"protocol":769,"data":"ZA=="},)"
                R"({"audience":0,"protocol":769,"data":"ZWY="}])");
  // The same entries with to lists: every list spelled out.
  std::string without;
  encode_packets_member(without, p);
  CHECK(without == R"(,"packets":[{"to":["alice","bob"],"protocol":769,"data":"YQ=="},)"
                   R"({"to":["carol"],"protocol":775,"data":"YmM="},)"
                   R"({"to":["alice","bob"],"protocol":769,"data":"ZA=="},)"
                   R"({"to":["alice","bob"],"protocol":769,"data":"ZWY="}])");
  // A frame encoder keeps both forms apart.
  api::frame f;
  f.tick = 3;
  frame_encoder enc;
  tick_output t(f);
  t.packets = p;
  enc.begin(t);
  frame_filter plain;
  plain.packets = true;
  frame_filter named = plain;
  named.audiences = true;
  CHECK(enc.encode(plain)->line.find(R"("to":["alice","bob"])") != std::string::npos);
  CHECK(enc.encode(named)->line.find(R"("audiences":[["alice","bob"],["carol"]])") !=
        std::string::npos);
  CHECK(enc.encode(named)->packet_count == 4);
}
