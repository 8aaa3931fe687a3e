// Playback of content loaded through the real pipeline (content::load_files → library): the
// resolution examples P13, P20 and P21–P23 end to end, and fixture F of playback.md §6.

#include "fixture.hpp"

#include "engine/content/loader.hpp"
#include "engine/playback/prepared.hpp"

#include <string>
#include <vector>

using namespace emote;
using namespace fixture;

namespace {

const char* const player_json =
    R"("player":{"hidden":true,"stop_conditions":{"movement_distance":0.1,"jump":true,"submerge":true,"ride":true,"damage":true,"attack":true,"game_mode_change":true}})";

/// An Animation document: `nodes`, `tracks` and `events` are JSON object bodies.
std::string animation(const std::string& id, const std::string& duration, const std::string& mode,
                      const std::string& nodes, const std::string& tracks = "",
                      const std::string& events = "", const std::string& molang = "") {
  std::string s = R"({"type":"animation","schema_version":4,"id":")" + id +
                  R"(","metadata":{"name":"N","description":""},"settings":{"standalone":true,)" +
                  R"("cooldown":"0t","rotation_deadzone":0,)" + player_json +
                  R"(,"playback":{"mode":")" + mode + R"("}},)";
  if (!molang.empty()) {
    s += R"("molang":{)" + molang + "},";
  }
  s += R"("nodes":{)" + nodes + R"(},"timeline":{"duration":")" + duration + R"(","tracks":{)" +
       tracks + "}";
  if (!events.empty()) {
    s += R"(,"events":{)" + events + "}";
  }
  return s + "}}";
}

std::string sequence(const std::string& id, const std::string& steps,
                     const std::string& participants = "") {
  std::string s = R"({"type":"sequence","schema_version":4,"id":")" + id +
                  R"(","metadata":{"name":"S","description":""},)";
  if (!participants.empty()) {
    s += R"("participants":)" + participants + ",";
  }
  return s + R"("settings":{"cooldown":"0t",)" + player_json + R"(},"steps":)" + steps + "}";
}

const std::string hs_participants =
    R"({"initiator":{"position":"~ ~ ~","rotation":"~ 0"},"partner":{"position":"^ ^ ^1.2","rotation":"~180 0"}})";

std::shared_ptr<const content::catalog>
load(std::vector<std::pair<std::string, std::string>> docs) {
  std::vector<content::memory_file> files;
  for (auto& [name, text] : docs) {
    files.push_back(content::memory_file{name, text});
  }
  return content::load_files(std::move(files));
}

std::string error_of(const content::catalog& c, const std::string& file) {
  for (const auto& d : c.diagnostics()) {
    if (d.file == file && d.severity == core::severity::error) {
      return d.path + ": " + d.message;
    }
  }
  return {};
}

const std::string stone = R"("item_stack_snbt":"{id:\"minecraft:stone\"}","item_display":"none")";
const std::string origin = R"("transform":{"position":[0,0,0],"rotation":[0,0,0],"scale":[1,1,1]})";

} // namespace

TEST_CASE("fixture F loaded from JSON plays P1") {
  const std::string nodes =
      R"("root":{"type":"anchor","space":"scene","transform":{"position":[1,0,0],"rotation":[0,0,0],"scale":[1,1,1]}},)"
      R"("display":{"type":"item_display","parent":"root",)" +
      stone + "," + origin + "}";
  const std::string tracks =
      R"("display":{"position":[{"time":"0t","value":["v.offset",0,0]},{"time":"10t","value":[10,0,0]}]})";
  const auto cat = load(
      {{"f.json", animation("demo:f", "10t", "once", nodes, tracks, "",
                            R"("initialize":"v.offset = 2;","tick":"v.offset = v.offset + 1;")")}});
  REQUIRE_MESSAGE(cat->find("demo:f") != nullptr, error_of(*cat, "f.json"));
  const playback::library lib(cat);
  harness h;
  h.play(lib.find("demo:f"));
  const api::frame s = h.step();
  const auto* sp = spawn_of(s, "display");
  REQUIRE(sp != nullptr);
  CHECK(x_of(sp->transform) == 4.0f);
  CHECK(sp->item == "{id:\"minecraft:stone\"}");
  CHECK(sp->item_display == "none");
  const api::frame s1 = h.step();
  CHECK(x_of(*update_of(s1, sp->handle)->transform) == doctest::Approx(5.6));
  CHECK(lib.find("demo:missing") == nullptr);
}

TEST_CASE("P13 an Animation with a lifecycle event cannot be compiled into a Sequence") {
  const std::string nodes =
      R"("n":{"type":"item_display","space":"initiator",)" + stone + "," + origin + "}";
  const std::string start_event =
      R"("start":[{"source":{"type":"server"},"origin":{"type":"root"},"commands":["say hi"]}])";
  const auto cat =
      load({{"a.json", animation("demo:eventful", "1t", "once", nodes, "", start_event)},
            {"s.json", sequence("demo:seq", R"([{"emote":"demo:eventful"}])")}});
  CHECK(cat->find("demo:eventful") != nullptr);
  CHECK(cat->find("demo:seq") == nullptr);
  CHECK(error_of(*cat, "s.json") ==
        "$.steps[0].emote: Sequence animation lifecycle events are not supported by compiled "
        "sequences: demo:eventful");
}

TEST_CASE("P20 a Sequence of controls only is rejected") {
  const auto cat =
      load({{"s.json", sequence("demo:seq", R"([{"emote":["emote:continue","emote:break"]}])")}});
  CHECK(cat->find("demo:seq") == nullptr);
  CHECK(error_of(*cat, "s.json") == "$.steps: Sequence must reference at least one animation");
}

TEST_CASE("P21 loaded: the partner copy of the real expansion mirrors and shows from MATCHED") {
  const std::string nodes =
      R"("body":{"type":"item_display","space":"initiator","item_stack_snbt":"{id:\"minecraft:player_head\"}",)"
      R"("item_display":"none","skin":{"part":"body","order":0},)" +
      origin + "}";
  const std::string tracks =
      R"("body":{"position":[{"time":"0t","value":[0,1,0]},{"time":"1t","value":[0,2,0]}],)"
      R"("visible":[{"time":"0t","value":true},{"time":"1t","value":false}]})";
  const auto cat = load(
      {{"a.json", animation("demo:handshake", "2t", "once", nodes, tracks)},
       {"s.json",
        sequence(
            "demo:hs",
            R"([{"await_partner":{"emote":"demo:handshake","timeout":"3s"},"matched":[{"emote":"demo:handshake"}],"timeout":[{"emote":"demo:handshake"}]}])",
            hs_participants)}});
  REQUIRE_MESSAGE(cat->find("demo:hs") != nullptr, error_of(*cat, "s.json"));
  const playback::library lib(cat);
  const auto emote = lib.find("demo:hs");
  REQUIRE(emote != nullptr);
  REQUIRE(emote->union_nodes().size() == 2);
  CHECK(emote->union_nodes()[1].node->id == "__partner__body");
  harness h;
  h.yaw = 0;
  auto& pb = h.play(emote);
  const api::frame s = h.step();
  const auto* body = spawn_of(s, "body");
  const auto* copy = spawn_of(s, "__partner__body");
  REQUIRE(body != nullptr);
  REQUIRE(copy != nullptr);
  CHECK(copy->position.x == 1.4695762231022014e-16);
  CHECK(copy->position.z == 1.2);
  REQUIRE(copy->skin.has_value());
  CHECK(copy->skin->participant == "partner");
  CHECK(copy->skin->rows[0] == 0);
  CHECK(copy->skin->rows[1] == 12);
  CHECK(copy->transform.translation[1] == body->transform.translation[1]);
  h.step();
  const api::frame s2 = h.step([](playback::playback& p, playback::tick_context& ctx) {
    if (p.offer_complete()) {
      p.start_branch(api::branch::matched, ctx);
      p.activate_partner_space();
    }
  });
  CHECK(pb.phase() == playback::session_phase::matched);
  CHECK(update_of(s2, copy->handle)->visible == std::optional<bool>(true));
}

TEST_CASE("P22/P23 loaded: anchors only give no handles; a hierarchy is expanded") {
  const std::string give = R"("giver":{"type":"anchor","space":"initiator",)" + origin +
                           R"(},"receiver":{"type":"anchor","space":"partner",)" + origin + "}";
  const std::string hier = R"("root":{"type":"anchor","space":"initiator",)" + origin +
                           R"(},"display":{"type":"item_display","parent":"root",)" + stone + "," +
                           origin + "}";
  const std::string hier_tracks =
      R"("display":{"position":[{"time":"0t","value":["q.anim_time_ticks",0,0]}]})";
  auto hs = [](const std::string& x) {
    return sequence("demo:hs_" + x.substr(5),
                    R"([{"await_partner":{"emote":")" + x +
                        R"(","timeout":"1s"},"matched":[{"emote":")" + x +
                        R"("}],"timeout":[{"emote":")" + x + R"("}]}])",
                    hs_participants);
  };
  const auto cat = load({{"give.json", animation("demo:give", "2t", "once", give)},
                         {"hier.json", animation("demo:hier", "4t", "once", hier, hier_tracks)},
                         {"s1.json", hs("demo:give")},
                         {"s2.json", hs("demo:hier")}});
  const playback::library lib(cat);
  const auto g = lib.find("demo:hs_give");
  REQUIRE_MESSAGE(g != nullptr, error_of(*cat, "s1.json"));
  CHECK(g->union_nodes().size() == 2);
  CHECK(g->handle_count() == 0);
  const auto hh = lib.find("demo:hs_hier");
  REQUIRE_MESSAGE(hh != nullptr, error_of(*cat, "s2.json"));
  REQUIRE(hh->union_nodes().size() == 4);
  const content::node& copy = *hh->union_nodes()[3].node;
  CHECK(copy.id == "__partner__display");
  CHECK(hh->union_nodes()[static_cast<std::size_t>(copy.parent)].node->id == "__partner__root");
  harness h;
  h.yaw = 180;
  h.play(hh);
  const api::frame s = h.step();
  const auto* d = spawn_of(s, "display");
  const auto* c = spawn_of(s, "__partner__display");
  REQUIRE(d != nullptr);
  REQUIRE(c != nullptr);
  for (int k = 1; k <= 3; ++k) {
    const api::frame f = h.step();
    CHECK(update_of(f, d->handle)->transform->translation[0] == static_cast<float>(k));
    CHECK(update_of(f, c->handle)->transform->translation[0] ==
          doctest::Approx(static_cast<float>(-k)));
  }
}
