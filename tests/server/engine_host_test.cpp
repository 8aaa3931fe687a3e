#include "server/host/engine_host.hpp"

#include "process.hpp"

#include "engine/content/model.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
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

/// A copy of the sample emotes in a scratch folder of this process (`name` tells tests apart).
std::filesystem::path sample_copy(const std::string& name) {
  const auto dir = server::testing::scratch_dir(name);
  std::filesystem::copy(sample_emotes, dir, std::filesystem::copy_options::recursive);
  return dir;
}

bool any_stop(const protocol::tick_output& t) {
  const api::frame& f = *t.frame;
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

  const auto reloaded = h.reload({});
  REQUIRE_FALSE(reloaded.error.has_value());
  CHECK(h.engine().catalog().find("api:blink") != nullptr);
  CHECK(h.emote_count() == reloaded.loaded);

  CHECK(h.apply(api::emote_unregister{"api:blink"}).ok());
  CHECK(h.engine().catalog().find("api:blink") == nullptr);
  REQUIRE_FALSE(h.reload({}).error.has_value());
  CHECK(h.engine().catalog().find("api:blink") == nullptr);
  CHECK(h.engine().catalog().find("sample:wave") != nullptr);
}

// protocol.md §4 emote.reload: a reload that would leave 0 emotes fails with reload_empty and
// keeps the catalog and the playbacks, unless asked for with allow_empty.
TEST_CASE("emote.reload to an emptied folder keeps the catalog unless allow_empty") {
  const auto dir = sample_copy("reload_empty");
  auto made = server::engine_host::create(server::make_content_loader(), {dir}, {});
  REQUIRE_MESSAGE(made.ok(), (made.ok() ? "" : made.error()));
  server::engine_host& h = **made;
  const std::int64_t before = h.emote_count();
  REQUIRE(before > 0);
  api::player_join j;
  j.player = "alice";
  j.fields.position = core::dvec3{0, 64, 0};
  REQUIRE(h.apply(j).ok());
  REQUIRE(h.apply(play("alice", "sample:wave")).ok());
  h.step();

  // The folder loses its files (a broken deploy): one left behind is not valid JSON.
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::filesystem::remove_all(e.path());
  }
  std::ofstream(dir / "broken.json") << "{not json";
  const auto refused = h.reload({});
  REQUIRE(refused.error.has_value());
  CHECK(refused.error->code == api::error_code::reload_empty);
  CHECK(refused.error->message.find("0 emotes") != std::string::npos);
  CHECK(refused.error->message.find("1 files skipped") != std::string::npos);
  CHECK(refused.loaded == 0);
  REQUIRE(refused.skipped.size() == 1);
  CHECK(refused.skipped[0].file == "broken.json");
  CHECK(h.emote_count() == before);
  CHECK(h.engine().catalog().find("sample:wave") != nullptr);
  CHECK_FALSE(any_stop(h.step())); // the wave keeps playing

  protocol::emote_reload_request allow;
  allow.allow_empty = true;
  const auto emptied = h.reload(allow);
  REQUIRE_FALSE(emptied.error.has_value());
  CHECK(emptied.loaded == 0);
  CHECK(h.emote_count() == 0);
  CHECK(any_stop(h.step())); // RELOAD
  // From 0 to 0 needs no permission.
  CHECK_FALSE(h.reload({}).error.has_value());
  std::filesystem::remove_all(dir);
}

// protocol.md §3: a content folder that is gone is an operational failure with its own code
// (content_unavailable), not `internal`; the running catalog stays.
TEST_CASE("emote.reload of a missing folder is content_unavailable and keeps the catalog") {
  const auto dir = sample_copy("reload_missing");
  auto made = server::engine_host::create(server::make_content_loader(), {dir}, {});
  REQUIRE_MESSAGE(made.ok(), (made.ok() ? "" : made.error()));
  server::engine_host& h = **made;
  const std::int64_t before = h.emote_count();
  std::filesystem::remove_all(dir);
  const auto failed = h.reload({});
  REQUIRE(failed.error.has_value());
  CHECK(failed.error->code == api::error_code::content_unavailable);
  CHECK(failed.error->message.find(dir.string()) != std::string::npos);
  CHECK(h.emote_count() == before);
}
