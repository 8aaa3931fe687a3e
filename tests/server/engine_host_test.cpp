#include "server/engine_host.hpp"

#include "engine/content/model.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <variant>

using namespace emote;

namespace {

const std::filesystem::path sample_emotes =
    std::filesystem::path(EMOTE_SIM_SOURCE_DIR) / "config" / "emotes";

constexpr const char* blink = R"({
  "type": "animation", "schema_version": 4, "id": "api:blink",
  "metadata": {"name": "Blink", "description": ""},
  "settings": {"standalone": true, "cooldown": "0t", "rotation_deadzone": 0,
    "player": {"hidden": false, "stop_conditions": {"movement_distance": 0, "jump": false,
      "submerge": false, "ride": false, "damage": false, "attack": false, "game_mode_change": false}},
    "playback": {"mode": "once", "loop_delay": "0t"}},
  "nodes": {"dot": {"type": "item_display", "space": "scene", "item_stack_snbt": "{id:\"minecraft:stone\",count:1}",
    "item_display": "none", "transform": {"position": [0,0,0], "rotation": [0,0,0], "scale": [1,1,1]}}},
  "timeline": {"duration": "2t", "tracks": {}}
})";

api::emote_play play(std::string player, std::string emote) {
  api::emote_play p;
  p.player = std::move(player);
  p.emote = std::move(emote);
  return p;
}

bool any_stop(const api::frame& f) {
  return std::any_of(f.events.begin(), f.events.end(), [](const api::event& e) {
    return std::holds_alternative<api::ev_playback_stopped>(e);
  });
}

} // namespace

// protocol.md §4 emote.register: `{"emote": ID}`; unlike emote.reload it stops nothing; runtime
// registrations survive emote.reload (and an unregistered one does not come back).
TEST_CASE("emote.register keeps running playbacks, survives reload, and unregister drops it") {
  auto made = server::engine_host::create(server::make_content_loader(), {sample_emotes}, {});
  REQUIRE_MESSAGE(made.ok(), (made.ok() ? "" : made.error()));
  server::engine_host& h = **made;

  api::player_join j;
  j.player = "alice";
  j.fields.position = core::dvec3{0, 64, 0};
  REQUIRE(h.apply(j).ok());
  REQUIRE(h.apply(play("alice", "sample:wave")).ok()); // a loop: plays until stopped
  h.step();

  auto id = h.register_emote(blink);
  REQUIRE_MESSAGE(id.ok(), (id.ok() ? "" : id.error().message));
  CHECK(*id == "api:blink");
  CHECK(h.engine().catalog().find("api:blink") != nullptr);
  CHECK_FALSE(any_stop(h.step())); // the wave keeps playing

  auto again = h.register_emote(blink);
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().code == api::error_code::bad_request);

  CHECK(h.apply(play("alice", "api:blink")).ok());
  h.step();

  const auto reloaded = h.reload();
  REQUIRE_FALSE(reloaded.error.has_value());
  CHECK(h.engine().catalog().find("api:blink") != nullptr);
  CHECK(h.emote_count() == reloaded.loaded);

  CHECK(h.apply(api::emote_unregister{"api:blink"}).ok());
  CHECK(h.engine().catalog().find("api:blink") == nullptr);
  REQUIRE_FALSE(h.reload().error.has_value());
  CHECK(h.engine().catalog().find("api:blink") == nullptr);
  CHECK(h.engine().catalog().find("sample:wave") != nullptr);
}
