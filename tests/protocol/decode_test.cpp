#include "protocol/decode.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace emote;
using namespace emote::protocol;

namespace {

request ok(std::string_view line) {
  auto r = decode_request(line);
  if (!r) {
    FAIL_CHECK("decode failed: " << r.error().error.message << " at " << r.error().error.path);
    return {};
  }
  return std::move(*r);
}

decode_failure err(std::string_view line) {
  auto r = decode_request(line);
  REQUIRE_FALSE(r.ok());
  return r.error();
}

template <class T>
const T& input_of(const request& r) {
  const auto* in = std::get_if<api::input>(&r.body);
  REQUIRE(in != nullptr);
  const auto* t = std::get_if<T>(in);
  REQUIRE(t != nullptr);
  return *t;
}

// bad_request with the given path.
void bad(std::string_view line, std::string_view path, std::string_view message_start = {}) {
  const auto f = err(line);
  CHECK(f.error.code == api::error_code::bad_request);
  CHECK(f.error.path == path);
  if (!message_start.empty()) {
    CHECK(f.error.message.starts_with(message_start));
  }
}

} // namespace

TEST_CASE("not JSON or not an object: bad_json with the parser offset") {
  auto f = err(R"({"op":"ping")");
  CHECK(f.error.code == api::error_code::bad_json);
  CHECK(f.error.message.starts_with("invalid JSON at offset 12: "));
  CHECK(f.error.path.empty());
  f = err("[1,2]");
  CHECK(f.error.code == api::error_code::bad_json);
  CHECK(f.error.message == "a message must be a JSON object");
  CHECK(err("").error.code == api::error_code::bad_json);
  CHECK(err("   ").error.code == api::error_code::bad_json);
  CHECK(err("{\"op\":\"ping\"}{}").error.code == api::error_code::bad_json);
  CHECK(err("{\"op\":\"\xC3\"}").error.code == api::error_code::bad_json);
  // The newline and a preceding \r are not part of the message.
  CHECK(ok("{\"op\":\"ping\"}\r\n").op == "ping");
}

TEST_CASE("ids, missing and unknown ops") {
  auto r = ok(R"({"op":"ping","id":"abc"})");
  CHECK(std::get<std::string>(r.id) == "abc");
  r = ok(R"({"op":"ping","id":-12})");
  CHECK(std::get<std::int64_t>(r.id) == -12);
  r = ok(R"({"op":"ping","id":null})");
  CHECK(std::holds_alternative<std::monostate>(r.id));
  bad(R"({"op":"ping","id":1.5})", "$.id", "must be a string or an integer");
  bad(R"({"op":"ping","id":{}})", "$.id");
  bad(R"({"id":3})", "$.op", "is required");
  auto f = err(R"({"op":"teleport","id":3})");
  CHECK(f.error.code == api::error_code::unknown_op);
  CHECK(f.error.message == "unknown op: teleport");
  CHECK(std::get<std::int64_t>(f.id) == 3); // the reply can carry the id
  f = err(R"({"op":5,"id":"x"})");
  CHECK(f.error.code == api::error_code::bad_request);
  CHECK(std::get<std::string>(f.id) == "x");
}

TEST_CASE("duplicate keys are refused (outside an emote.register document)") {
  auto f = err(R"({"op":"hello","token":"a","client":"c","token":"b","id":4})");
  CHECK(f.error.code == api::error_code::bad_request);
  CHECK(f.error.path == "$.token");
  CHECK(f.error.message == "duplicate key");
  CHECK(std::get<std::int64_t>(f.id) == 4);
  bad(R"({"op":"ping","id":1,"id":2})", "$.id", "duplicate key");
  CHECK(std::holds_alternative<std::monostate>(err(R"({"op":"ping","id":1,"id":2})").id));
  bad(R"({"op":"emote.play","player":"a","emote":"x:y","placement":{"position":[0,0,0],"yaw":1,"yaw":2}})",
      "$.placement.yaw", "duplicate key");
  bad(R"({"op":"world.blocks","set":[{"at":[0,0,0],"block":"solid"},{"at":[0,0,0],"block":"solid","block":"water"}]})",
      "$.set[1].block", "duplicate key");
  // The document follows the content loader's own rules (last value wins, with a warning).
  CHECK(ok(R"({"op":"emote.register","document":{"id":"a:b","id":"a:c"}})").op == "emote.register");
}

TEST_CASE("hello") {
  auto r = ok(
      R"({"op":"hello","protocol":1,"role":"observer","token":"s3cret","client":"my-proxy/1.0"})");
  const auto& h = std::get<hello_request>(r.body);
  CHECK(h.role == client_role::observer);
  CHECK(h.token == "s3cret");
  CHECK(h.client == "my-proxy/1.0");
  CHECK(r.record == R"({"op":"hello","protocol":1,"role":"observer","client":"my-proxy/1.0"})");
  CHECK(std::get<hello_request>(ok(R"({"op":"hello"})").body).role == client_role::controller);
  CHECK(ok(R"({"token":"t","op":"hello","client":"c","role":"controller"})").record ==
        R"({"op":"hello","client":"c","role":"controller"})");
  auto f = err(R"({"op":"hello","protocol":2})");
  CHECK(f.error.code == api::error_code::unsupported_protocol);
  CHECK(f.error.message == "unsupported protocol version 2; supported: 1");
  bad(R"({"op":"hello","protocol":"1"})", "$.protocol", "must be an integer");
  bad(R"({"op":"hello","role":"admin"})", "$.role", "must be one of: controller, observer");
  bad(R"({"op":"hello","token":5})", "$.token", "must be a string");
}

TEST_CASE("player.join with state fields") {
  auto r = ok(
      R"({"op":"player.join","id":1,"player":"alice","uuid":"0f8a1b2c-3d4e-5f60-7182-93a4b5c6d7e8","position":[0,64,0.5],"yaw":-90,)"
      R"("dimension":"the_nether","game_mode":"creative","vehicle":null,"sneaking":true,)"
      R"("velocity":[0,-0.08,0],"main_arm":"left","right_hand":"bow","left_hand":null,)"
      R"("head":"{id:\"minecraft:crossbow\",count:1,components:{\"minecraft:charged_projectiles\":[{id:\"minecraft:arrow\",count:1}]}}",)"
      R"("permissions":{"emote.bypass":true},"health":12.5,"fire_ticks":40,"scores":{"kills":3},"keep_on_disconnect":true})");
  const auto& j = input_of<api::player_join>(r);
  CHECK(j.player == "alice");
  CHECK(j.keep_on_disconnect);
  const api::player_fields& f = j.fields;
  CHECK(f.position == api::dvec3{0, 64, 0.5});
  CHECK(f.yaw == -90.0F);
  CHECK(f.dimension == "minecraft:the_nether");
  CHECK(f.game_mode == api::game_mode::creative);
  REQUIRE(f.vehicle.has_value());
  CHECK_FALSE(f.vehicle->has_value()); // explicit null
  CHECK(f.sneaking == true);
  CHECK(f.velocity == api::dvec3{0, -0.08, 0});
  CHECK(f.main_arm == api::physical_arm::left);
  REQUIRE(f.right_hand);
  CHECK(f.right_hand->id == "minecraft:bow");
  CHECK(f.right_hand->snbt == R"({id:"minecraft:bow",count:1})");
  REQUIRE(f.left_hand);
  CHECK(f.left_hand->empty());
  REQUIRE(f.head);
  CHECK(f.head->id == "minecraft:crossbow");
  CHECK(f.head->charged);
  CHECK(f.permissions->at("emote.bypass"));
  CHECK(f.health == 12.5F);
  CHECK(f.fire_ticks == 40);
  CHECK(f.scores->at("kills") == 3);
  CHECK_FALSE(f.chest.has_value());
  CHECK_FALSE(f.pitch.has_value());
  CHECK(controller_only(r));
}

TEST_CASE("player.join and player.update field errors name the path") {
  bad(R"({"op":"player.join","player":"a"})", "$.position", "is required");
  bad(R"({"op":"player.join","position":[0,0,0]})", "$.player", "is required");
  bad(R"({"op":"player.join","player":"","position":[0,0,0]})", "$.player", "must not be empty");
  bad(R"({"op":"player.join","player":7,"position":[0,0,0]})", "$.player", "must be a string");
  // Player keys are at most 256 bytes, wherever a request names one (protocol.md §4).
  const std::string key256(256, 'k');
  const std::string key257(257, 'k');
  CHECK(decode_request(R"({"op":"player.join","player":")" + key256 + R"(","position":[0,0,0]})")
            .ok());
  bad(R"({"op":"player.join","player":")" + key257 + R"(","position":[0,0,0]})", "$.player",
      "must be at most 256 bytes");
  bad(R"({"op":"emote.play","player":")" + key257 + R"(","emote":"a:b"})", "$.player",
      "must be at most 256 bytes");
  bad(R"({"op":"state.get","player":")" + key257 + R"("})", "$.player",
      "must be at most 256 bytes");
  bad(R"({"op":"subscribe","players":["a",")" + key257 + R"("]})", "$.players[1]",
      "must be at most 256 bytes");
  bad(R"({"op":"player.join","player":"a","position":[0,0]})", "$.position",
      "must contain 3 values");
  bad(R"({"op":"player.join","player":"a","position":[0,"1",0]})", "$.position[1]",
      "must be a number");
  bad(R"({"op":"player.join","player":"a","position":{}})", "$.position", "must be an array");
  bad(R"({"op":"player.update","player":"a","yaw":"north"})", "$.yaw", "must be a number");
  bad(R"({"op":"player.update","player":"a","yaw":1e39})", "$.yaw",
      "is out of range for a 32-bit float");
  bad(R"({"op":"player.update","player":"a","on_ground":1})", "$.on_ground", "must be a boolean");
  bad(R"({"op":"player.update","player":"a","game_mode":"hardcore"})", "$.game_mode",
      "must be one of: survival, creative, adventure, spectator");
  bad(R"({"op":"player.update","player":"a","main_arm":"middle"})", "$.main_arm");
  bad(R"({"op":"player.update","player":"a","vehicle":""})", "$.vehicle", "must not be empty");
  bad(R"({"op":"player.update","player":"a","fire_ticks":2.5})", "$.fire_ticks",
      "must be an integer");
  bad(R"({"op":"player.update","player":"a","xp_level":2147483648})", "$.xp_level",
      "must be between -2147483648 and 2147483647");
  bad(R"({"op":"player.update","player":"a","permissions":{"emote.vip":"yes"}})",
      "$.permissions.emote.vip", "must be a boolean");
  bad(R"({"op":"player.update","player":"a","scores":[]})", "$.scores", "must be an object");
  // protocol.md §5: at most 1,024 scores and 1,024 permissions, names at most 256 bytes.
  const auto many = [](const char* value, int n) {
    std::string m = "{";
    for (int i = 0; i < n; ++i) {
      m += (i > 0 ? ",\"o" : "\"o") + std::to_string(i) + "\":" + value;
    }
    return m + "}";
  };
  CHECK(emote::protocol::decode_request(R"({"op":"player.update","player":"a","scores":)" +
                                        many("1", 1024) + "}")
            .ok());
  bad(R"({"op":"player.update","player":"a","scores":)" + many("1", 1025) + "}", "$.scores",
      "must have at most 1024 entries (has 1025)");
  bad(R"({"op":"player.update","player":"a","permissions":)" + many("true", 1025) + "}",
      "$.permissions", "must have at most 1024 entries");
  bad(R"({"op":"player.update","player":"a","scores":{")" + std::string(257, 'x') + R"(":1}})",
      "$.scores." + std::string(32, 'x'), "a name is at most 256 bytes");
  bad(R"({"op":"player.update","player":"a","dimension":"Nether!"})", "$.dimension");
  bad(R"({"op":"player.update","player":"a","right_hand":5})", "$.right_hand");
  bad(R"({"op":"player.update","player":"a","right_hand":"{count:1}"})", "$.right_hand",
      "invalid item stack: item stack needs an id");
  bad(R"({"op":"player.update","player":"a","right_hand":"{id:\"minecraft:bow\""})", "$.right_hand",
      "invalid compound SNBT");
  bad(R"({"op":"player.update","player":"a","velocity":[0,0,100e307]})", "$.velocity[2]",
      "is out of range for a 64-bit float");
  bad(R"({"op":"player.update","player":"a","velocity":[0,0,1e999]})", "$.velocity[2]",
      "is out of range for a 64-bit float");
}

TEST_CASE("a number beyond binary64 is bad_request with its path and the request's id") {
  auto f = err(R"({"op":"player.update","id":7,"player":"a","yaw":1e400})");
  CHECK(f.error.code == api::error_code::bad_request);
  CHECK(f.error.path == "$.yaw");
  CHECK(f.error.message == "is out of range for a 64-bit float");
  REQUIRE(std::holds_alternative<std::int64_t>(f.id));
  CHECK(std::get<std::int64_t>(f.id) == 7);
  // Any digits count, also a number RapidJSON alone would refuse, and the id after it.
  f = err(R"({"op":"player.update","player":"a","position":[1,)" + std::string(400, '9') +
          R"(,3],"id":"p"})");
  CHECK(f.error.code == api::error_code::bad_request);
  CHECK(f.error.path == "$.position[1]");
  CHECK(std::get<std::string>(f.id) == "p");
  // An integer field: not an integer in range.
  bad(R"({"op":"player.update","player":"a","xp_level":1e400})", "$.xp_level");
}

TEST_CASE("player.update changes only what it names; 4.0 is an integer") {
  auto r = ok(
      R"({"op":"player.update","player":"bob","on_ground":false,"position":[1,2,3],"hurt_time":4.0,"pitch":null})");
  const auto& u = input_of<api::player_update>(r);
  CHECK(u.fields.on_ground == false);
  CHECK(u.fields.hurt_time == 4);
  CHECK_FALSE(u.fields.pitch.has_value()); // null = absent
  CHECK_FALSE(u.fields.alive.has_value());
  // Unknown fields are ignored (forward compatibility).
  CHECK(ok(R"({"op":"player.update","player":"bob","future_field":1})").op == "player.update");
}

TEST_CASE("player.event kinds and their fields") {
  auto jump =
      input_of<api::player_event>(ok(R"({"op":"player.event","player":"a","event":"jump"})"));
  CHECK(jump.kind == api::player_event_kind::jump);
  auto dmg = input_of<api::player_event>(
      ok(R"({"op":"player.event","player":"a","event":"damage","amount":3,"lethal":true})"));
  CHECK(dmg.kind == api::player_event_kind::damage);
  CHECK(dmg.amount == 3.0);
  CHECK(dmg.lethal);
  auto atk = input_of<api::player_event>(
      ok(R"({"op":"player.event","player":"a","event":"attack","target":"zombie-1"})"));
  CHECK(atk.target == "zombie-1");
  auto mnt = input_of<api::player_event>(
      ok(R"({"op":"player.event","player":"a","event":"mount","vehicle":"boat-7"})"));
  CHECK(mnt.vehicle == "boat-7");
  auto gm = input_of<api::player_event>(
      ok(R"({"op":"player.event","player":"a","event":"game_mode","game_mode":"spectator"})"));
  CHECK(gm.mode == api::game_mode::spectator);
  CHECK(input_of<api::player_event>(ok(R"({"op":"player.event","player":"a","event":"respawn"})"))
            .kind == api::player_event_kind::respawn);

  bad(R"({"op":"player.event","player":"a"})", "$.event", "is required");
  bad(R"({"op":"player.event","player":"a","event":"sneeze"})", "$.event", "must be one of:");
  bad(R"({"op":"player.event","player":"a","event":"damage"})", "$.amount", "is required");
  bad(R"({"op":"player.event","player":"a","event":"damage","amount":-1})", "$.amount",
      "must not be negative");
  bad(R"({"op":"player.event","player":"a","event":"damage","amount":1,"lethal":"no"})",
      "$.lethal");
  bad(R"({"op":"player.event","player":"a","event":"game_mode"})", "$.game_mode", "is required");
}

TEST_CASE("emote.play, stop, stop_all, leave") {
  auto p = input_of<api::emote_play>(ok(
      R"({"op":"emote.play","id":"a","player":"alice","emote":"fx:slide","source":"api","bypass":true,"placement":{"position":[12,64,-4],"yaw":90}})"));
  CHECK(p.player == "alice");
  CHECK(p.emote == "fx:slide");
  CHECK(p.source == api::play_source::api);
  CHECK(p.bypass);
  REQUIRE(p.placement);
  CHECK(p.placement->position == api::dvec3{12, 64, -4});
  CHECK(p.placement->yaw == 90.0F);
  auto d = input_of<api::emote_play>(ok(R"({"op":"emote.play","player":"a","emote":"x:y"})"));
  CHECK(d.source == api::play_source::command);
  CHECK_FALSE(d.bypass);
  CHECK_FALSE(d.placement);
  bad(R"({"op":"emote.play","player":"a"})", "$.emote", "is required");
  bad(R"({"op":"emote.play","player":"a","emote":"x:y","source":"wheel"})", "$.source",
      "must be one of: command, idle, api");
  bad(R"({"op":"emote.play","player":"a","emote":"x:y","placement":{"yaw":1}})",
      "$.placement.position", "is required");
  bad(R"({"op":"emote.play","player":"a","emote":"x:y","placement":{"position":[0,0,0],"yaw":"e"}})",
      "$.placement.yaw");
  CHECK(input_of<api::emote_stop>(ok(R"({"op":"emote.stop","player":"a"})")).player == "a");
  (void)input_of<api::emote_stop_all>(ok(R"({"op":"emote.stop_all"})"));
  CHECK(input_of<api::player_leave>(ok(R"({"op":"player.leave","player":"a"})")).player == "a");
}

TEST_CASE("world.blocks and world.clear") {
  auto w = input_of<api::world_blocks>(ok(
      R"({"op":"world.blocks","set":[{"at":[0,65,1],"block":"solid"},{"from":[3,0,3],"to":[1,2,1],"block":"air"}]})"));
  CHECK(w.dimension == "minecraft:overworld");
  REQUIRE(w.edits.size() == 2);
  CHECK(w.edits[0].from[1] == 65);
  CHECK(w.edits[0].to[1] == 65);
  CHECK(w.edits[0].kind == api::block_kind::solid);
  CHECK(w.edits[1].from[0] == 1); // corners ordered
  CHECK(w.edits[1].to[0] == 3);
  CHECK(w.edits[1].kind == api::block_kind::passable); // air
  bad(R"({"op":"world.blocks"})", "$.set", "is required");
  bad(R"({"op":"world.blocks","set":[{"at":[0,0,0]}]})", "$.set[0].block", "is required");
  bad(R"({"op":"world.blocks","set":[{"at":[0,0,0],"block":"lava"}]})", "$.set[0].block",
      "must be one of: solid, passable, water, air");
  bad(R"({"op":"world.blocks","set":[{"at":[0,0.5,0],"block":"solid"}]})", "$.set[0].at[1]",
      "must be an integer");
  bad(R"({"op":"world.blocks","set":[{"from":[0,0,0],"block":"solid"}]})", "$.set[0].to",
      "is required");
  bad(R"({"op":"world.blocks","set":[{"at":[0,0,0],"from":[0,0,0],"to":[1,1,1],"block":"solid"}]})",
      "$.set[0]", "must have either at, or from and to");
  bad(R"({"op":"world.blocks","set":[{"from":[-2147483648,0,0],"to":[2147483647,0,0],"block":"solid"}]})",
      "$.set[0]", "too many cells");
  bad(R"({"op":"world.blocks","set":[{"from":[0,0,0],"to":[255,255,255],"block":"solid"},{"at":[0,0,0],"block":"solid"}]})",
      "$.set[1]", "too many cells");
  auto c =
      input_of<api::world_clear>(ok(R"({"op":"world.clear","dimension":"minecraft:the_end"})"));
  CHECK(c.dimension == "minecraft:the_end");
  CHECK_FALSE(input_of<api::world_clear>(ok(R"({"op":"world.clear"})")).dimension);
}

TEST_CASE("content and cooldown ops") {
  auto reg = ok(
      R"({"op":"emote.register","document":{"schema_version":4,"type":"animation","id":"api:wave"}})");
  CHECK(std::get<emote_register_request>(reg.body).document ==
        R"({"schema_version":4,"type":"animation","id":"api:wave"})");
  bad(R"({"op":"emote.register"})", "$.document", "is required");
  bad(R"({"op":"emote.register","document":"{}"})", "$.document", "must be an object");
  CHECK(input_of<api::emote_unregister>(ok(R"({"op":"emote.unregister","emote":"api:wave"})"))
            .emote == "api:wave");
  CHECK(input_of<api::cooldown_clear>(ok(R"({"op":"cooldown.clear","player":"a"})")).player == "a");
  CHECK_FALSE(input_of<api::cooldown_clear>(ok(R"({"op":"cooldown.clear"})")).player);
  CHECK(std::get<emote_info_request>(ok(R"({"op":"emote.info","emote":"fx:slide"})").body).emote ==
        "fx:slide");
  bad(R"({"op":"emote.info"})", "$.emote", "is required");
  CHECK(std::holds_alternative<emote_list_request>(ok(R"({"op":"emote.list"})").body));
  CHECK_FALSE(std::get<emote_reload_request>(ok(R"({"op":"emote.reload"})").body).allow_empty);
  CHECK(std::get<emote_reload_request>(ok(R"({"op":"emote.reload","allow_empty":true})").body)
            .allow_empty);
  bad(R"({"op":"emote.reload","allow_empty":1})", "$.allow_empty");
  CHECK(std::get<state_get_request>(ok(R"({"op":"state.get","player":"bob"})").body).query.player ==
        "bob");
}

TEST_CASE("state.get paging: limit, after (protocol.md §4)") {
  const auto q = [](const std::string& line) {
    return std::get<state_get_request>(ok(line).body).query;
  };
  const auto all = q(R"({"op":"state.get"})");
  CHECK(all.limit == 0);
  CHECK_FALSE(all.after);
  const auto first = q(R"({"op":"state.get","limit":2})");
  CHECK(first.limit == 2);
  CHECK_FALSE(first.after);
  const auto more = q(R"({"op":"state.get","limit":10000,"after":"bob"})");
  CHECK(more.limit == 10000);
  CHECK(more.after == std::optional<std::string>("bob"));
  bad(R"({"op":"state.get","limit":0})", "$.limit", "must be between 1 and 10000");
  bad(R"({"op":"state.get","limit":10001})", "$.limit", "must be between 1 and 10000");
  bad(R"({"op":"state.get","limit":1.5})", "$.limit", "must be an integer");
  bad(R"({"op":"state.get","after":"bob"})", "$.after", "requires limit");
  bad(R"({"op":"state.get","limit":2,"after":""})", "$.after");
  bad(R"({"op":"state.get","player":"a","limit":2})", "$.player",
      "cannot be combined with after or limit");
}

TEST_CASE("clock.step bounds") {
  CHECK(std::get<clock_step_request>(ok(R"({"op":"clock.step","ticks":72000})").body).ticks ==
        72000);
  CHECK(std::get<clock_step_request>(ok(R"({"op":"clock.step"})").body).ticks == 1);
  bad(R"({"op":"clock.step","ticks":0})", "$.ticks", "must be between 1 and 72000");
  bad(R"({"op":"clock.step","ticks":72001})", "$.ticks");
  bad(R"({"op":"clock.step","ticks":"5"})", "$.ticks", "must be an integer");
}

TEST_CASE("subscribe filters") {
  auto s =
      std::get<subscribe_request>(
          ok(R"({"op":"subscribe","events":["display.","playback.stopped"],"dimensions":["the_nether","minecraft:overworld","the_nether"],"lossy":true,"matrix":true})")
              .body)
          .subscription;
  CHECK(s.filter.types == (event_type_mask("display.") | event_type_mask("playback.stopped")));
  CHECK(s.filter.dimensions ==
        std::vector<std::string>{"minecraft:overworld", "minecraft:the_nether"});
  CHECK(s.lossy);
  CHECK(s.filter.matrix);
  CHECK_FALSE(s.empty_frames);
  auto all = std::get<subscribe_request>(ok(R"({"op":"subscribe"})").body).subscription;
  CHECK(all.filter == frame_filter{});
  auto none =
      std::get<subscribe_request>(ok(R"({"op":"subscribe","events":[],"empty_frames":true})").body)
          .subscription;
  CHECK(none.filter.types == 0);
  CHECK(none.empty_frames);
  bad(R"({"op":"subscribe","events":["display"]})", "$.events[0]",
      "unknown event type or prefix: display");
  bad(R"({"op":"subscribe","events":"display."})", "$.events", "must be an array");
  bad(R"({"op":"subscribe","dimensions":[]})", "$.dimensions", "must not be empty");
  bad(R"({"op":"subscribe","lossy":"yes"})", "$.lossy", "must be a boolean");
  CHECK_FALSE(controller_only(ok(R"({"op":"subscribe"})")));
}

TEST_CASE("subscribe: a players filter") {
  auto s =
      std::get<subscribe_request>(
          ok(R"({"op":"subscribe","players":["bob","alice","bob"],"events":["playback."]})").body)
          .subscription;
  CHECK(s.filter.players == std::vector<std::string>{"alice", "bob"});
  CHECK(std::get<subscribe_request>(ok(R"({"op":"subscribe"})").body)
            .subscription.filter.players.empty());
  bad(R"({"op":"subscribe","players":[]})", "$.players", "must not be empty");
  bad(R"({"op":"subscribe","players":"alice"})", "$.players", "must be an array of player names");
  bad(R"({"op":"subscribe","players":["alice",""]})", "$.players[1]");
  bad(R"({"op":"subscribe","players":[7]})", "$.players[0]", "must be a string");
}

TEST_CASE("observer ops and controller ops") {
  for (const char* line : {R"({"op":"ping"})", R"({"op":"state.get"})", R"({"op":"emote.list"})",
                           R"({"op":"emote.info","emote":"x:y"})", R"({"op":"hello"})",
                           R"({"op":"bye"})", R"({"op":"subscribe"})"}) {
    CHECK_FALSE(controller_only(ok(line)));
  }
  for (const char* line :
       {R"({"op":"player.join","player":"a","position":[0,0,0]})",
        R"({"op":"player.leave","player":"a"})", R"({"op":"emote.stop_all"})",
        R"({"op":"emote.reload"})", R"({"op":"world.clear"})", R"({"op":"cooldown.clear"})",
        R"({"op":"clock.step"})", R"({"op":"emote.unregister","emote":"a:b"})",
        R"({"op":"render.resync"})"}) {
    CHECK(controller_only(ok(line)));
  }
  auto e = forbidden_error("emote.play");
  CHECK(e.code == api::error_code::forbidden);
  CHECK(e.message == "observers may not send emote.play (a controller op)");
}

TEST_CASE("the record copy is compact, exact and token-free") {
  auto r =
      ok(R"( { "op" : "player.update", "player":"a", "position":[0.1, 64, -0.0], "yaw": 1.50 } )");
  CHECK(r.record == R"({"op":"player.update","player":"a","position":[0.1,64,-0.0],"yaw":1.5})");
  // Decoding the record gives the same request.
  auto again = ok(r.record);
  CHECK(input_of<api::player_update>(again).fields.position ==
        input_of<api::player_update>(r).fields.position);
  CHECK(again.record == r.record);
}

TEST_CASE("viewer fields (render.md §2)") {
  auto r = ok(
      R"({"op":"player.join","player":"alice","position":[0,64,0],"protocol":769,)"
      R"("entity_id":42,"view_distance":12,"name":"Alice_1","glowing":true,)"
      R"("skin_textures":{"head:0":{"value":"dGV4","signature":"c2ln"},"default":{"value":"ZGVm"}},)"
      R"("uuid":"0f8a1b2c3d4e5f60718293a4b5c6d7e8"})");
  const auto& j = input_of<api::player_join>(r);
  REQUIRE(j.fields.viewer.protocol);
  CHECK(*j.fields.viewer.protocol == 769);
  CHECK(*j.fields.viewer.entity_id == 42);
  CHECK(*j.fields.viewer.view_distance == 12);
  CHECK(*j.fields.viewer.name == "Alice_1");
  CHECK(*j.fields.viewer.glowing);
  REQUIRE(j.fields.viewer.skin_textures);
  CHECK(j.fields.viewer.skin_textures->at("head:0").value == "dGV4");
  CHECK(*j.fields.viewer.skin_textures->at("head:0").signature == "c2ln");
  CHECK_FALSE(j.fields.viewer.skin_textures->at("default").signature);
  REQUIRE(j.uuid);
  CHECK((*j.uuid)[0] == 0x0f);

  // null: no longer a viewer; render_reset is write-only true.
  auto u = ok(R"({"op":"player.update","player":"alice","protocol":null,"render_reset":true})");
  const auto& up = input_of<api::player_update>(u);
  REQUIRE(up.fields.viewer.protocol);
  CHECK_FALSE(*up.fields.viewer.protocol);
  CHECK(up.fields.viewer.render_reset);
  CHECK(ok(R"({"op":"player.update","player":"alice","yaw":3})").body.index() ==
        ok(R"({"op":"player.update","player":"alice","protocol":775})").body.index());

  // K22: a protocol outside the supported list names the list.
  const auto k22 = err(R"({"op":"player.update","player":"alice","protocol":700})");
  CHECK(k22.error.code == api::error_code::bad_request);
  CHECK(k22.error.path == "$.protocol");
  CHECK(k22.error.message.find("767") != std::string::npos);
  CHECK(k22.error.message.find("775") != std::string::npos);
  bad(R"({"op":"player.update","player":"alice","protocol":1099511627776})", "$.protocol");
  bad(R"({"op":"player.update","player":"alice","protocol":"769"})", "$.protocol");
  bad(R"({"op":"player.update","player":"alice","view_distance":1})", "$.view_distance");
  bad(R"({"op":"player.update","player":"alice","view_distance":33})", "$.view_distance");
  bad(R"({"op":"player.update","player":"alice","render_reset":false})", "$.render_reset");
  bad(R"({"op":"player.update","player":"alice","skin_textures":{"head:0":{}}})",
      "$.skin_textures.head:0.value");
  bad(R"({"op":"player.update","player":"alice","skin_textures":[]})", "$.skin_textures");
  bad(R"({"op":"player.update","player":"alice","name":")" + std::string(257, 'a') + R"("})",
      "$.name");
  bad(R"({"op":"player.join","player":"bob","position":[0,0,0],"uuid":"0000"})", "$.uuid");
}

TEST_CASE("subscribe with packets; render.resync") {
  auto s = ok(R"({"op":"subscribe","packets":true})");
  CHECK(std::get<subscribe_request>(s.body).subscription.filter.packets);
  CHECK_FALSE(
      std::get<subscribe_request>(ok(R"({"op":"subscribe"})").body).subscription.filter.packets);
  // K27: packets and lossy cannot go together.
  bad(R"({"op":"subscribe","packets":true,"lossy":true})", "$.lossy");
  // render.md §6.1: audiences only with packets.
  CHECK(std::get<subscribe_request>(ok(R"({"op":"subscribe","packets":true,"audiences":true})").body)
            .subscription.filter.audiences);
  bad(R"({"op":"subscribe","audiences":true})", "$.audiences");
  bad(R"({"op":"subscribe","packets":true,"audiences":1})", "$.audiences");

  auto all = ok(R"({"op":"render.resync"})");
  CHECK(std::get<render_resync_request>(all.body).all);
  auto some = ok(R"({"op":"render.resync","players":["alice","bob"]})");
  const auto& q = std::get<render_resync_request>(some.body);
  CHECK_FALSE(q.all);
  CHECK(q.players == std::vector<std::string>{"alice", "bob"});
  bad(R"({"op":"render.resync","players":"alice"})", "$.players");
  bad(R"({"op":"render.resync","players":[""]})", "$.players[0]");
}
