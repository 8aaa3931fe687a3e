#include "server/host/content_loader.hpp"

#include "engine/content/model.hpp"
#include "engine/json/wire_reader.hpp"
#include "engine/json/writer.hpp"
#include "protocol/encode.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace emote;

namespace {

const std::filesystem::path sample_emotes =
    std::filesystem::path(EMOTE_SIM_SOURCE_DIR) / "config" / "emotes";

const protocol::emote_summary* find(const std::vector<protocol::emote_summary>& list,
                                    std::string_view id) {
  auto it = std::find_if(list.begin(), list.end(), [&](const auto& e) { return e.id == id; });
  return it == list.end() ? nullptr : &*it;
}

constexpr const char* tiny_animation = R"({
  "type": "animation", "schema_version": 4, "id": "api:blink",
  "metadata": {"name": "Blink", "description": "", "tags": ["x"]},
  "settings": {"standalone": true, "cooldown": "0t", "rotation_deadzone": 0,
    "player": {"hidden": false, "stop_conditions": {"movement_distance": 0, "jump": false,
      "submerge": false, "ride": false, "damage": false, "attack": false, "game_mode_change": false}},
    "playback": {"mode": "once", "loop_delay": "0t"}},
  "nodes": {"dot": {"type": "item_display", "space": "scene", "item_stack_snbt": "{id:\"minecraft:stone\",count:1}",
    "item_display": "none", "transform": {"position": [0,0,0], "rotation": [0,0,0], "scale": [1,1,1]}}},
  "timeline": {"duration": "2t", "tracks": {}}
})";

} // namespace

TEST_CASE("the content seam loads folders and describes the entries") {
  auto loader = server::make_content_loader();
  auto loaded = loader->load({sample_emotes}, {}, {});
  REQUIRE_MESSAGE(loaded.ok(), (loaded.ok() ? "" : loaded.error()));
  REQUIRE(loaded->catalog);
  CHECK(loaded->loaded == static_cast<std::int64_t>(loaded->catalog->size()));
  CHECK(loader->size(*loaded->catalog) == loaded->loaded);

  const auto list = loader->list(*loaded->catalog);
  CHECK(static_cast<std::int64_t>(list.size()) == loaded->loaded);
  CHECK(std::is_sorted(list.begin(), list.end(),
                       [](const auto& a, const auto& b) { return a.id < b.id; }));
  const auto* wave = find(list, "sample:wave");
  REQUIRE(wave != nullptr);
  CHECK(wave->type == "animation");
  CHECK(wave->name == "Wave");
  CHECK(wave->standalone);
  CHECK(wave->fixed_duration);
  CHECK(wave->cooldown_ticks == 20);
  CHECK_FALSE(wave->two_player);
  const auto* sit = find(list, "sample:sit");
  REQUIRE(sit != nullptr);
  CHECK(sit->type == "sequence");
  CHECK_FALSE(sit->fixed_duration); // a weighted step
  CHECK(sit->cooldown_ticks == 40);
  const auto* handshake = find(list, "sample:handshake");
  REQUIRE(handshake != nullptr);
  CHECK(handshake->two_player);

  auto info = loader->info(*loaded->catalog, "sample:sit");
  REQUIRE(info);
  std::string members;
  protocol::encode_emote_info_members(members, *info);
  rapidjson::Document d;
  REQUIRE_FALSE(json::parse_wire("{" + members.substr(1) + "}", d));
  CHECK(std::string(d["metadata"]["author"].GetString()) == "emote-sim");
  REQUIRE(d["steps"].IsArray());
  CHECK(
      json::to_json(d["steps"][1]) ==
      R"({"emote":["sample:sit_idle_look",40,"sample:sit_idle_sway",35,"emote:continue",15,"emote:break",10],"repeat":4,"transition":4})");
  CHECK(json::to_json(d["steps"][2]) == R"({"wait":10})");
  CHECK(d["nodes"].IsArray());

  auto two = loader->info(*loaded->catalog, "sample:handshake");
  REQUIRE(two);
  rapidjson::Document steps;
  REQUIRE_FALSE(json::parse_wire(two->steps_json, steps));
  CHECK(steps[0].HasMember("await_partner"));
  CHECK(steps[0].HasMember("matched"));

  auto anim = loader->info(*loaded->catalog, "sample:wave");
  REQUIRE(anim);
  CHECK(anim->steps_json.empty());
  CHECK_FALSE(loader->info(*loaded->catalog, "sample:nope"));
}

TEST_CASE("the content seam adds documents and reports their problems inside the document") {
  auto loader = server::make_content_loader();
  auto loaded = loader->load({sample_emotes}, {}, {});
  REQUIRE(loaded.ok());
  auto added = loader->add(*loaded->catalog, tiny_animation, {});
  REQUIRE(added.ok());
  CHECK(added->loaded == loaded->loaded + 1);
  const auto list = loader->list(*added->catalog);
  REQUIRE(find(list, "api:blink") != nullptr);
  CHECK(find(list, "api:blink")->duration_ticks == 2);
  auto info = loader->info(*added->catalog, "api:blink");
  REQUIRE(info);
  CHECK(info->metadata_json == R"({"name":"Blink","description":"","tags":["x"]})");
  CHECK(info->nodes_json ==
        R"([{"id":"dot","type":"item_display","parent":null,"space":"scene"}])");

  auto again = loader->add(*added->catalog, tiny_animation, {});
  REQUIRE_FALSE(again.ok());
  bool duplicate = false;
  for (const auto& d : again.error()) {
    duplicate = duplicate || (d.path == "$.id" && d.message == "duplicate emote id: api:blink");
  }
  CHECK(duplicate);

  auto broken = loader->add(*loaded->catalog, R"({"type":"animation","schema_version":5})", {});
  REQUIRE_FALSE(broken.ok());

  // Registered documents survive a reload.
  auto reloaded = loader->load({sample_emotes}, {}, {tiny_animation});
  REQUIRE(reloaded.ok());
  CHECK(reloaded->catalog->find("api:blink") != nullptr);
}

TEST_CASE("a missing folder is an error") {
  auto loader = server::make_content_loader();
  auto r = loader->load({sample_emotes / "does-not-exist"}, {}, {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().ends_with(": not a folder"));
}

TEST_CASE("emote.info metadata numbers follow the wire number rules") {
  // docs/guide/wire-format.md "Numbers the server writes": -0.0 keeps its sign, large values use
  // an exponent, every number is the shortest round-trip form; integers keep every digit.
  std::string doc = tiny_animation;
  const std::string from = R"("tags": ["x"])";
  doc.replace(doc.find(from), from.size(),
              R"("zero": -0.0, "neg": -0, "big": 1e15, "one": 1.0, "tenth": 0.1, )"
              R"("id": 12345678901234567890, "huge": 1e400)");
  auto loader = server::make_content_loader();
  auto loaded = loader->load({}, {}, {});
  REQUIRE(loaded.ok());
  auto added = loader->add(*loaded->catalog, doc, {});
  REQUIRE(added.ok());
  auto info = loader->info(*added->catalog, "api:blink");
  REQUIRE(info);
  CHECK(info->metadata_json ==
        R"({"name":"Blink","description":"","zero":-0.0,"neg":-0.0,"big":1e+15,"one":1,)"
        R"("tenth":0.1,"id":12345678901234567890,"huge":null})");
}
