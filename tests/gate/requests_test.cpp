// The gate's inputs as protocol lines (gate.md §4, §9): each decodes back to the same input.
#include "gate/requests.hpp"

#include "protocol/decode.hpp"

#include <doctest/doctest.h>

using namespace emote;

namespace {

api::input decoded(const std::string& line) {
  auto r = protocol::decode_request(line);
  REQUIRE_MESSAGE(r, line);
  const auto* in = std::get_if<api::input>(&r->body);
  REQUIRE(in);
  return *in;
}

} // namespace

TEST_CASE("gate requests: a join with every field the gate sets decodes to the same input") {
  api::player_join j;
  j.player = "12345678-9abc-4def-8123-456789abcdef";
  j.uuid = api::uuid{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0x4d, 0xef, 0x81, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
  j.fields.dimension = "minecraft:the_nether";
  j.fields.position = api::dvec3{1.5, -64.25, 1e7};
  j.fields.yaw = -90.5F;
  j.fields.pitch = 12.0F;
  j.fields.alive = true;
  j.fields.game_mode = api::game_mode::creative;
  j.fields.vehicle = std::optional<std::string>("77");
  j.fields.on_ground = false;
  j.fields.sneaking = true;
  j.fields.sprinting = false;
  j.fields.viewer.protocol = std::optional<std::int32_t>(775);
  j.fields.viewer.entity_id = std::optional<std::int32_t>(42);
  j.fields.viewer.view_distance = 6;
  j.fields.viewer.name = "alice";
  j.fields.viewer.skin_textures =
      std::map<std::string, api::skin_texture>{{"default", {"dGV4\"", std::string("c2ln")}}};
  const std::string line = gate::request_line(j, "g1");
  CHECK(line.find("\"id\":\"g1\"") != std::string::npos);
  const auto back = std::get<api::player_join>(decoded(line));
  CHECK(back.player == j.player);
  CHECK(back.uuid == j.uuid);
  CHECK(back.fields.dimension == j.fields.dimension);
  CHECK(back.fields.position == j.fields.position);
  CHECK(back.fields.yaw == j.fields.yaw);
  CHECK(back.fields.pitch == j.fields.pitch);
  CHECK(back.fields.game_mode == j.fields.game_mode);
  CHECK(back.fields.vehicle == j.fields.vehicle);
  CHECK(back.fields.on_ground == j.fields.on_ground);
  CHECK(back.fields.sneaking == j.fields.sneaking);
  CHECK(back.fields.viewer.protocol == j.fields.viewer.protocol);
  CHECK(back.fields.viewer.entity_id == j.fields.viewer.entity_id);
  CHECK(back.fields.viewer.view_distance == j.fields.viewer.view_distance);
  CHECK(back.fields.viewer.name == j.fields.viewer.name);
  CHECK(back.fields.viewer.skin_textures == j.fields.viewer.skin_textures);
}

TEST_CASE("gate requests: updates with nulls, events, leave, play and stop") {
  api::player_update u;
  u.player = "p";
  u.fields.viewer.protocol = std::optional<std::int32_t>();
  u.fields.viewer.render_reset = true;
  u.fields.vehicle = std::optional<std::string>();
  const auto bu = std::get<api::player_update>(decoded(gate::request_line(u)));
  CHECK(bu.fields.viewer.protocol == std::optional<std::optional<std::int32_t>>(std::optional<std::int32_t>()));
  CHECK(bu.fields.viewer.render_reset);
  CHECK(bu.fields.vehicle == std::optional<std::optional<std::string>>(std::optional<std::string>()));

  api::player_event e;
  e.player = "p";
  e.kind = api::player_event_kind::damage;
  e.amount = 1;
  const auto be = std::get<api::player_event>(decoded(gate::request_line(e)));
  CHECK(be.kind == api::player_event_kind::damage);
  CHECK(be.amount == 1);

  CHECK(std::get<api::player_leave>(decoded(gate::request_line(api::player_leave{"p"}))).player == "p");
  api::emote_play p;
  p.player = "p";
  p.emote = "sample:wave";
  const auto bp = std::get<api::emote_play>(decoded(gate::request_line(p, "7")));
  CHECK(bp.emote == "sample:wave");
  CHECK(bp.source == api::play_source::command);
  CHECK(std::get<api::emote_stop>(decoded(gate::request_line(api::emote_stop{"p"}))).player == "p");
  CHECK(gate::request_line(api::emote_stop_all{}).empty());
}
