// formats.md §7, Animation examples F1-F30 (each changes only what it names in A0).
#include "support.hpp"

#include "engine/core/snbt.hpp"

#include <string>

using namespace content_test;

namespace {

std::shared_ptr<const animation> only_animation(const catalog& c) {
  REQUIRE(c.entries().size() == 1);
  return c.entries()[0].animation;
}

} // namespace

TEST_CASE("F1: A0 is accepted with its values") {
  const auto c = load(a0());
  accepted(*c);
  CHECK(warnings(*c).empty());
  const auto a = only_animation(*c);
  CHECK(a->id == "test:base");
  CHECK(a->duration.count() == 10);
  CHECK(a->settings.cooldown.count() == 0);
  CHECK(a->settings.rotation_deadzone == 50);
  CHECK(a->settings.mode == playback_mode::once);
  CHECK(a->settings.display_interpolation.count() == 1);
  const auto d = a->find_node("display");
  REQUIRE(d >= 0);
  CHECK(a->nodes[static_cast<std::size_t>(d)].space == emote::core::space::scene);
  CHECK(a->nodes[static_cast<std::size_t>(d)].parent == a->find_node("root"));
  REQUIRE(a->skin.size() == 1);
  CHECK(a->skin[0].node_id == "player_head");
  CHECK(a->skin[0].participant == participant::initiator);
  CHECK(a->skin[0].part == skin_part::head);
  CHECK(a->skin[0].start == 0);
  CHECK(a->skin[0].end == 12);
  // Tracks and events as written.
  const auto& head = a->tracks[static_cast<std::size_t>(a->find_node("player_head"))];
  REQUIRE(head.position.size() == 2);
  CHECK(head.position[0].easing == easing::ease_in_out_sine);
  CHECK(head.position[1].pre[1].constant == 1);
  const auto& disp = a->tracks[static_cast<std::size_t>(d)];
  REQUIRE(disp.rotation.size() == 1);
  CHECK(disp.rotation[0].post[1].is_expression());
  CHECK(disp.rotation[0].post[1].source == "q.anim_time * 90");
  REQUIRE(a->events.timeline.size() == 1);
  CHECK(a->events.timeline[0].commands == std::vector<std::string>{"say hi"});
  CHECK(a->events.timeline[0].source == event_source::player);
  CHECK(a->symbols != nullptr);
}

TEST_CASE("F2: time strings convert") {
  const auto c = load(a0().set("settings.cooldown", "\"1.5s\"").set("timeline.duration", "\"4s\""));
  accepted(*c);
  const auto a = only_animation(*c);
  CHECK(a->settings.cooldown.count() == 30);
  CHECK(a->duration.count() == 80);
}

TEST_CASE("F3: a number is not a time") {
  rejected(*load(a0().set("timeline.duration", "80")), "$.timeline.duration", "must be a string");
}

TEST_CASE("F4: the 8 MiB limit") {
  const std::string text = a0().text();
  std::string over = text;
  over.append(8388609 - text.size(), ' ');
  std::string exact = text;
  exact.append(8388608 - text.size(), ' ');
  rejected(*load(std::vector{over}), "$", "file must not exceed 8388608 bytes");
  accepted(*load(std::vector{exact}));
}

TEST_CASE("F5: rotation_deadzone range") {
  rejected(*load(a0().set("settings.rotation_deadzone", "180.1")), "$.settings.rotation_deadzone",
           "must be between 0 and 180");
  accepted(*load(a0().set("settings.rotation_deadzone", "180")));
  accepted(*load(a0().set("settings.rotation_deadzone", "0")));
}

TEST_CASE("F6: negative movement distance") {
  rejected(*load(a0().set("settings.player.stop_conditions.movement_distance", "-0.1")),
           "$.settings.player.stop_conditions.movement_distance", "must not be negative");
}

TEST_CASE("F7: vector length") {
  rejected(*load(a0().set("nodes.player_head.transform.position", "[0,1.5]")),
           "$.nodes.player_head.transform.position", "must contain 3 values");
}

TEST_CASE("F8: last keyframe defines no interpolation") {
  rejected(*load(a0().set("timeline.tracks.player_head.position[1].interpolation", "\"linear\"")),
           "$.timeline.tracks.player_head.position[1]",
           "last keyframe must not define interpolation or easing");
}

TEST_CASE("F9: command sources are display nodes") {
  rejected(
      *load(a0().set("timeline.events.timeline[0].source", R"({"type":"node","node":"root"})")),
      "$.timeline.events.timeline[0].source.node", "anchor nodes cannot be command sources");
  const auto c =
      load(a0().set("timeline.events.timeline[0].source", R"({"type":"node","node":"display"})"));
  accepted(*c);
  const auto a = only_animation(*c);
  CHECK(a->events.timeline[0].source == event_source::node);
  CHECK(a->events.timeline[0].source_node == a->find_node("display"));
}

TEST_CASE("F10: callback names are resource locations") {
  rejected(
      *load(a0().set("timeline.events.timeline[0].callbacks", R"([{"name":"Invalid Callback"}])")),
      "$.timeline.events.timeline[0].callbacks[0].name", "must be a valid Minecraft identifier");
  auto c = load(a0().set("timeline.events.timeline[0].callbacks",
                         R"([{"name":"demo:sword_swing","payload":"right_hand"}])"));
  accepted(*c);
  auto cb = only_animation(*c)->events.timeline[0].callbacks.at(0);
  CHECK(cb.name == "demo:sword_swing");
  CHECK(cb.payload == "right_hand");
  c = load(a0().set("timeline.events.timeline[0].callbacks", R"([{"name":"swing"}])"));
  accepted(*c);
  cb = only_animation(*c)->events.timeline[0].callbacks.at(0);
  CHECK(cb.name == "minecraft:swing");
  CHECK(cb.payload.empty());
}

TEST_CASE("F11: a root needs a space") {
  rejected(*load(a0().erase("nodes.player_head.space")), "$.nodes.player_head.space",
           "is required");
}

TEST_CASE("F12: skin participant matches the space") {
  rejected(*load(a0().set("nodes.player_head.skin.participant", "\"partner\"")),
           "$.nodes.player_head.skin.participant", "must match the node space");
}

TEST_CASE("F13: schema_version") {
  rejected(*load(a0().set("schema_version", "3")), "$.schema_version", "must equal 4");
  accepted(*load(a0().set("schema_version", "4.0")));
  rejected(*load(a0().set("schema_version", "4.5")), "$.schema_version",
           "must be a 32-bit integer");
  rejected(*load(a0().set("schema_version", "\"4\"")), "$.schema_version", "must be an integer");
}

TEST_CASE("F14: exactly one item source (key present)") {
  rejected(
      *load(a0().set("nodes.display.item_source", R"({"type":"participant_hand","arm":"right"})")),
      "$.nodes.display", "must define exactly one of item_stack_snbt or item_source");
  rejected(*load(a0().set("nodes.display.item_source", "null")), "$.nodes.display",
           "must define exactly one of item_stack_snbt or item_source");
}

TEST_CASE("F15: participant hands need a participant space") {
  rejected(
      *load(a0().erase("nodes.display.item_stack_snbt")
                .set("nodes.display.item_source", R"({"type":"participant_hand","arm":"right"})")),
      "$.nodes.display.item_source", "requires initiator or partner node space");
}

TEST_CASE("F16: parent cycles") {
  rejected(*load(a0().set("nodes.root.parent", "\"display\"")), "$.nodes.root.parent",
           "creates a parent cycle");
}

TEST_CASE("F17: children have no space") {
  rejected(*load(a0().set("nodes.display.space", "\"scene\"")), "$.nodes.display.space",
           "is not allowed on child nodes");
}

TEST_CASE("F18: invalid Molang in a track") {
  rejected(*load(a0().set("timeline.tracks.display.rotation[0].value[1]", "\"@\"")),
           "$.timeline.tracks.display.rotation[0].value[1]", "invalid Molang program");
}

TEST_CASE("F19: server_sync forbids the tick program") {
  rejected(*load(a0().set("settings.playback.mode", "\"server_sync\"")
                     .set("molang", R"({"tick":"v.a = 1;"})")),
           "$.molang.tick", "is not supported by server_sync playback");
  const auto c = load(a0().set("settings.playback.mode", "\"server_sync\"")
                          .set("molang", R"({"initialize":"v.a = 1;"})"));
  accepted(*c);
  const auto a = only_animation(*c);
  CHECK(a->initialize != nullptr);
  CHECK(a->tick == nullptr);
}

TEST_CASE("F20: runtime-owned entity NBT") {
  rejected(*load(a0().set("nodes.display.entity_nbt", R"("{transformation:{}}")")),
           "$.nodes.display.entity_nbt", "must not define runtime-owned field transformation");
  const auto c = load(a0().set("nodes.display.entity_nbt", R"("{Glowing:1b}")"));
  accepted(*c);
  const auto a = only_animation(*c);
  const auto& n = a->nodes[static_cast<std::size_t>(a->find_node("display"))];
  CHECK(n.entity_nbt_snbt == "{Glowing:1b}");
}

TEST_CASE("F21: the first keyframe is at 0t") {
  rejected(*load(a0().set("timeline.tracks.display.rotation[0].time", "\"1t\"")),
           "$.timeline.tracks.display.rotation[0].time", "first keyframe must be at 0t");
}

TEST_CASE("F22: track expressions write only temporaries") {
  rejected(*load(a0().set("timeline.tracks.display.rotation[0].value[0]",
                          "\"v.count = v.count + 1; return v.count;\"")),
           "$.timeline.tracks.display.rotation[0].value[0]",
           "must not assign persistent variables");
  accepted(
      *load(a0().set("timeline.tracks.display.rotation[0].value[0]", "\"t.x = 1; return t.x;\"")));
}

TEST_CASE("F23: at most 12000 ticks") {
  rejected(*load(a0().set("timeline.duration", "\"12001t\"")), "$.timeline.duration",
           "must not exceed 12000 ticks");
  const auto c = load(a0().set("timeline.duration", "\"600s\""));
  accepted(*c);
  CHECK(only_animation(*c)->duration.count() == 12000);
}

TEST_CASE("F24: loop delay only for looping modes") {
  rejected(*load(a0().set("settings.playback.loop_delay", "\"1t\"")),
           "$.settings.playback.loop_delay",
           "loop delay must be zero when playback mode is once or hold");
  const auto c = load(a0().set("settings.playback.mode", "\"server_sync\"")
                          .set("settings.playback.loop_delay", "\"20t\""));
  accepted(*c);
  CHECK(only_animation(*c)->settings.loop_delay.count() == 20);
}

TEST_CASE("F25: unknown keys are warnings") {
  const auto c = load(a0().set("settings.playback.loop_start", "\"20t\""));
  accepted(*c);
  CHECK(warnings(*c) ==
        std::vector<std::string>{"$.settings.playback.loop_start: unknown key ignored"});
}

TEST_CASE("F26: events before the end") {
  rejected(*load(a0().set("timeline.events.timeline[0].time", "\"10t\"")),
           "$.timeline.events.timeline[0].time", "must be before the timeline duration");
}

TEST_CASE("F27: the JSON dialect") {
  std::string text = a0().text();
  // A comment line and a trailing comma after the last node.
  const auto last_node_end = text.find("}}},\"timeline\"");
  REQUIRE(last_node_end != std::string::npos);
  text.insert(last_node_end + 2, ",\n// x\n");
  auto c = load(std::vector{text});
  accepted(*c);
  CHECK(warnings(*c) == std::vector<std::string>{"$.nodes: non-standard JSON: trailing comma",
                                                 "$.nodes: non-standard JSON: comment"});
  // Duplicate key: last value wins.
  std::string dup = a0().text();
  const auto at = dup.find("\"cooldown\":\"0t\"");
  dup.insert(at + std::string("\"cooldown\":\"0t\"").size(), ",\"cooldown\":\"2s\"");
  c = load(std::vector{dup});
  accepted(*c);
  CHECK(c->entries()[0].animation->settings.cooldown.count() == 40);
  CHECK(warnings(*c) ==
        std::vector<std::string>{"$.settings.cooldown: duplicate key; last value wins"});
  // Single quotes are not JSON.
  std::string quoted = a0().text();
  quoted.replace(quoted.find("\"type\":\"animation\""), 18, "'type':'animation'");
  rejected(*load(std::vector{quoted}), "$", "invalid JSON");
}

TEST_CASE("F28: unsupported file type") {
  rejected(*load(a0().set("type", "\"emote\"")), "$.type", "unsupported emote file type: emote");
}

TEST_CASE("F29: later NBT keyframes stay within the 0t fields") {
  rejected(
      *load(a0().set(
          "timeline.tracks.display.nbt",
          R"([{"time":"0t","value":"{item:{id:\"minecraft:stone\"}}"},{"time":"2t","value":"{Glowing:1b}"}])")),
      "$.timeline.tracks.display.nbt[1].value",
      "must only modify fields declared by the 0t keyframe");
}

TEST_CASE("F30: select needs two options") {
  rejected(*load(a0().set("timeline.tracks.display.nbt",
                          R"([{"time":"0t","value":{"select":"0","options":["{Glowing:1b}"]}}])")),
           "$.timeline.tracks.display.nbt[0].value.options", "must contain at least 2 options");
}
