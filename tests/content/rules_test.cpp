// The validation tables of formats.md §3.3-§3.6 and §4.5 beyond the numbered examples: one case
// per row (path and gist), each a single change to A0 or S0.
#include "support.hpp"

#include <algorithm>
#include <string>

using namespace content_test;

namespace {

struct edit {
  const char* path;
  const char* json; ///< nullptr: erase
};

void expect(std::initializer_list<edit> edits, const char* error_path, const char* gist,
            doc base = a0()) {
  for (const auto& e : edits) {
    if (e.json == nullptr) {
      base.erase(e.path);
    } else {
      base.set(e.path, e.json);
    }
  }
  INFO("expected " << std::string(error_path) << " " << std::string(gist));
  rejected(*load(base), error_path, gist);
}

constexpr const char* item_source_right = R"({"type":"participant_hand","arm":"right"})";

} // namespace

TEST_CASE("formats.md §3.1 root, metadata and settings rows") {
  expect({{"schema_version", nullptr}}, "$.schema_version", "is required");
  expect({{"id", "\"wave\""}}, "$.id", "must use namespace:path format");
  expect({{"id", "\"Test:x\""}}, "$.id", "must be a valid lowercase Minecraft identifier");
  expect({{"id", "5"}}, "$.id", "must be a string");
  expect({{"target_minecraft_version", "1"}}, "$.target_minecraft_version", "must be a string");
  accepted(*load(a0().set("target_minecraft_version", "\"26.3\"")));
  expect({{"metadata", "[]"}}, "$.metadata", "must be an object");
  expect({{"metadata.name", "\" \\u3000\""}}, "$.metadata.name", "must not be blank");
  expect({{"metadata.description", nullptr}}, "$.metadata.description", "is required");
  expect({{"settings.standalone", "\"true\""}}, "$.settings.standalone", "must be a boolean");
  expect({{"settings.cooldown", "\"-1t\""}}, "$.settings.cooldown",
         "must be a valid Minecraft time: tick count too low");
  expect({{"settings.rotation_deadzone", "\"50\""}}, "$.settings.rotation_deadzone",
         "must be a number");
  expect({{"settings.rotation_deadzone", "\"@NaN@\""}}, "$.settings.rotation_deadzone",
         "must be finite");
  expect({{"settings.display_interpolation", "3"}}, "$.settings.display_interpolation",
         "must be a string");
  expect({{"settings.player.hidden", nullptr}}, "$.settings.player.hidden", "is required");
  expect({{"settings.player.stop_conditions", nullptr}}, "$.settings.player.stop_conditions",
         "is required");
  expect({{"settings.player.stop_conditions.game_mode_change", "1"}},
         "$.settings.player.stop_conditions.game_mode_change", "must be a boolean");
  expect({{"settings.player.stop_conditions.movement_distance", "\"@Infinity@\""}},
         "$.settings.player.stop_conditions.movement_distance", "must be finite");
  expect({{"settings.playback.mode", "\"Loop\""}}, "$.settings.playback.mode",
         "unsupported playback mode: Loop");
  expect({{"settings.playback.mode", "\"hold\""}, {"settings.playback.loop_delay", "\"1t\""}},
         "$.settings.playback.loop_delay",
         "loop delay must be zero when playback mode is once or hold");
  // Rows are checked in order: standalone before cooldown.
  expect({{"settings.standalone", nullptr}, {"settings.cooldown", "1"}}, "$.settings.standalone",
         "is required");
  // Optional rows default.
  const auto c =
      load(a0().erase("settings.rotation_deadzone").erase("settings.playback.loop_delay"));
  accepted(*c);
  CHECK(c->entries()[0].animation->settings.rotation_deadzone == 50);
  CHECK(c->entries()[0].animation->settings.display_interpolation.count() == 1);
}

TEST_CASE("formats.md §3.2 Molang programs") {
  expect({{"molang", "1"}}, "$.molang", "must be an object");
  expect({{"molang", R"({"initialize":" "})"}}, "$.molang.initialize", "must not be blank");
  expect({{"molang", R"({"initialize":1})"}}, "$.molang.initialize", "must be a string");
  expect({{"molang", R"({"tick":"v.x = @"})"}}, "$.molang.tick", "invalid Molang program");
  expect({{"molang", R"({"tick":"q.anim_time = 1"})"}}, "$.molang.tick", "must not assign queries");
  const std::string big = "{\"initialize\":\"" + std::string(16385, '1') + "\"}";
  rejected(*load(a0().set("molang", big)), "$.molang.initialize",
           "invalid Molang program: expression exceeds 16384 characters");
  const auto c = load(a0().set("molang", R"({"initialize":"v.a = 1;","tick":"v.a = v.a + 1;"})"));
  accepted(*c);
  CHECK(c->entries()[0].animation->tick_source == "v.a = v.a + 1;");
}

TEST_CASE("formats.md §3.3 node rows") {
  expect({{"nodes", "{}"}}, "$.nodes", "must not be empty");
  expect({{"nodes. ", "{}"}}, "$.nodes", "node id must not be blank");
  expect({{"nodes.display", "[]"}}, "$.nodes.display", "must be an object");
  expect({{"nodes.display.parent", "\"\""}}, "$.nodes.display.parent", "must not be blank");
  expect({{"nodes.display.parent", "\"ghost\""}}, "$.nodes.display.parent",
         "references unknown node");
  expect({{"nodes.root.space", "\"world\""}}, "$.nodes.root.space",
         "unsupported node space: world");
  expect({{"nodes.root.type", "\"marker\""}}, "$.nodes.root.type", "unsupported node type: marker");
  expect({{"nodes.root.type", nullptr}}, "$.nodes.root.type", "is required");
  expect({{"nodes.root.transform", nullptr}}, "$.nodes.root.transform", "is required");
  expect({{"nodes.root.transform.scale", "[1,1,\"1\"]"}}, "$.nodes.root.transform.scale[2]",
         "must be a number");
  expect({{"nodes.root.transform.rotation", "[1,1,\"@-Infinity@\"]"}},
         "$.nodes.root.transform.rotation[2]", "must be finite");
  expect({{"nodes.root.visible", "true"}}, "$.nodes.root.visible",
         "is not supported by anchor nodes");
  expect({{"nodes.root.entity_nbt", "null"}}, "$.nodes.root.entity_nbt",
         "is not supported by anchor nodes");
  expect({{"nodes.display.visible", "1"}}, "$.nodes.display.visible", "must be a boolean");
  expect({{"nodes.display.entity_nbt", "\"{a:\""}}, "$.nodes.display.entity_nbt",
         "invalid compound SNBT");
  expect({{"nodes.display.entity_nbt", "\"{Glowing:1b,Tags:[],UUID:[I;1,2,3,4]}\""}},
         "$.nodes.display.entity_nbt", "must not define runtime-owned field Tags");
  expect({{"nodes.display.item_stack_snbt", nullptr}}, "$.nodes.display",
         "must define exactly one of item_stack_snbt or item_source");
  expect({{"nodes.display.item_stack_snbt", "\"[]\""}}, "$.nodes.display.item_stack_snbt",
         "invalid compound SNBT");
  expect({{"nodes.player_head.item_stack_snbt", nullptr},
          {"nodes.player_head.skin", nullptr},
          {"nodes.player_head.item_source", R"({"type":"hand","arm":"right"})"}},
         "$.nodes.player_head.item_source.type", "unsupported item source: hand");
  expect({{"nodes.player_head.item_stack_snbt", nullptr},
          {"nodes.player_head.skin", nullptr},
          {"nodes.player_head.item_source", R"({"type":"participant_hand","arm":"both"})"}},
         "$.nodes.player_head.item_source.arm", "unsupported physical arm: both");
  expect({{"nodes.display.item_display", "\"hat\""}}, "$.nodes.display.item_display",
         "unsupported item display context: hat");
  expect({{"nodes.display.item_display", nullptr}}, "$.nodes.display.item_display", "is required");
  expect({{"nodes.player_head.skin.participant", "\"observer\""}},
         "$.nodes.player_head.skin.participant", "unsupported participant: observer");
  expect({{"nodes.player_head.skin.part", "\"tail\""}}, "$.nodes.player_head.skin.part",
         "unsupported skin part: tail");
  expect({{"nodes.player_head.skin.order", "-1"}}, "$.nodes.player_head.skin.order",
         "must not be negative");
  expect({{"nodes.player_head.skin.order", "0.5"}}, "$.nodes.player_head.skin.order",
         "must be a 32-bit integer");
  expect({{"nodes.display.type", "\"block_display\""}}, "$.nodes.display.block_state_snbt",
         "is required");
  expect({{"nodes.display.type", "\"text_display\""}}, "$.nodes.display.text", "is required");
  // Participant hand on a participant-space node is fine, and its arm is kept.
  const auto c = load(a0().erase("nodes.player_head.item_stack_snbt")
                          .erase("nodes.player_head.skin")
                          .set("nodes.player_head.item_source", item_source_right));
  accepted(*c);
  const auto& a = *c->entries()[0].animation;
  CHECK(a.nodes[static_cast<std::size_t>(a.find_node("player_head"))].participant_hand ==
        physical_arm::right);
  // Pass order: pass A errors (any node) come before pass B and C errors.
  expect({{"nodes.display.parent", "\"ghost\""}, {"nodes.player_head.skin.order", "-1"}},
         "$.nodes.player_head.skin.order", "must not be negative");
  // A self-parent is a cycle at the node itself.
  expect({{"nodes.display.parent", "\"display\""}}, "$.nodes.display.parent",
         "creates a parent cycle");
}

TEST_CASE("formats.md §3.4 track rows") {
  expect({{"timeline.tracks.ghost", R"({"position":[]})"}}, "$.timeline.tracks.ghost",
         "references unknown node");
  expect({{"timeline.tracks.display", "[]"}}, "$.timeline.tracks.display", "must be an object");
  expect({{"timeline.tracks.display", R"({"wobble":[]})"}}, "$.timeline.tracks.display",
         "must contain at least one track");
  expect({{"timeline.tracks.root", R"({"visible":[{"time":"0t","value":true}]})"}},
         "$.timeline.tracks.root.visible", "anchor nodes do not support visible tracks");
  expect({{"timeline.tracks.root", R"({"nbt":[{"time":"0t","value":"{}"}]})"}},
         "$.timeline.tracks.root.nbt", "anchor nodes do not support nbt tracks");
  expect({{"timeline.tracks.display.scale", "[]"}}, "$.timeline.tracks.display.scale",
         "must not be empty");
  expect({{"timeline.tracks.player_head.position[1].time", "\"11t\""}},
         "$.timeline.tracks.player_head.position[1].time",
         "must be between 0t and timeline duration");
  expect({{"timeline.tracks.player_head.position[1].time", "\"0t\""}},
         "$.timeline.tracks.player_head.position[1].time", "keyframes must be strictly ordered");
  expect({{"timeline.tracks.display.rotation[0].pre", "[0,0,0]"}},
         "$.timeline.tracks.display.rotation[0]", "must define either value or both pre and post");
  expect({{"timeline.tracks.display.rotation[0].value", nullptr},
          {"timeline.tracks.display.rotation[0].pre", "[0,0,0]"}},
         "$.timeline.tracks.display.rotation[0]", "must define either value or both pre and post");
  expect({{"timeline.tracks.display.rotation[0].value", "[0,0]"}},
         "$.timeline.tracks.display.rotation[0].value", "must contain 3 values");
  expect({{"timeline.tracks.display.rotation[0].value", "[0,true,0]"}},
         "$.timeline.tracks.display.rotation[0].value[1]", "must be a number or a Molang string");
  expect({{"timeline.tracks.display.rotation[0].value", "[0,\"  \",0]"}},
         "$.timeline.tracks.display.rotation[0].value[1]", "must not be blank");
  expect({{"timeline.tracks.display.rotation[0].value", "[0,\"@NaN@\",0]"}},
         "$.timeline.tracks.display.rotation[0].value[1]", "must be finite");
  expect({{"timeline.tracks.player_head.position[0].interpolation", "\"Linear\""}},
         "$.timeline.tracks.player_head.position[0].interpolation",
         "unsupported interpolation: Linear");
  expect({{"timeline.tracks.player_head.position[0].easing", "\"ease_in_out_wobble\""}},
         "$.timeline.tracks.player_head.position[0].easing",
         "unsupported easing: ease_in_out_wobble");
  expect({{"timeline.tracks.player_head.position[0].interpolation", "\"step\""}},
         "$.timeline.tracks.player_head.position[0].easing",
         "is not supported by step interpolation");
  expect({{"timeline.tracks.player_head.visible",
           R"([{"time":"0t","value":true,"easing":"linear"}])"}},
         "$.timeline.tracks.player_head.visible[0]",
         "visible keyframes only support time and value");
  expect({{"timeline.tracks.player_head.visible", R"([{"time":"0t","value":1}])"}},
         "$.timeline.tracks.player_head.visible[0].value", "must be a boolean or a Molang string");
  expect({{"timeline.tracks.display.nbt", R"([{"time":"0t","value":"{}","easing":"linear"}])"}},
         "$.timeline.tracks.display.nbt[0]", "NBT keyframes only support time and value");
  expect({{"timeline.tracks.display.nbt", R"([{"time":"0t","value":5}])"}},
         "$.timeline.tracks.display.nbt[0].value",
         "must be a compound SNBT string or a select object");
  expect({{"timeline.tracks.display.nbt",
           R"([{"time":"0t","value":{"select":"0","options":["{a:1}","{a:2}"],"default":"{}"}}])"}},
         "$.timeline.tracks.display.nbt[0].value", "select values only support select and options");
  expect({{"timeline.tracks.display.nbt", R"([{"time":"0t","value":"{Pos:[0d,0d,0d]}"}])"}},
         "$.timeline.tracks.display.nbt[0].value", "must not modify runtime-owned field Pos");
  expect({{"timeline.tracks.display.nbt",
           R"([{"time":"0t","value":{"select":"0","options":["{a:1}","{Motion:[]}"]}}])"}},
         "$.timeline.tracks.display.nbt[0].value.options[1]",
         "must not modify runtime-owned field Motion");
  expect({{"timeline.tracks.display.nbt",
           R"([{"time":"0t","value":{"select":"0","options":["{a:1}","{b:1}"]}}])"}},
         "$.timeline.tracks.display.nbt[0].value.options[1]",
         "0t NBT options must declare the same fields");
  expect(
      {{"timeline.tracks.display.nbt",
        R"([{"time":"0t","value":{"select":"0","options":["{a:1}","{a:2}"]}},{"time":"1t","value":{"select":"1","options":["{a:3}","{b:1}"]}}])"}},
      "$.timeline.tracks.display.nbt[1].value.options[1]",
      "must only modify fields declared by the 0t keyframe");
  expect({{"timeline.tracks.display.nbt",
           R"([{"time":"0t","value":{"select":"v.x = 1","options":["{a:1}","{a:2}"]}}])"}},
         "$.timeline.tracks.display.nbt[0].value.select", "must not assign persistent variables");
  // The item the runtime owns may be modified on fixed stacks but not on participant hands.
  accepted(*load(a0().set("timeline.tracks.display.nbt",
                          R"([{"time":"0t","value":"{item:{id:\"minecraft:dirt\"}}"}])")));
  expect({{"nodes.player_head.item_stack_snbt", nullptr},
          {"nodes.player_head.skin", nullptr},
          {"nodes.player_head.item_source", item_source_right},
          {"timeline.tracks.player_head.nbt",
           R"([{"time":"0t","value":"{item:{id:\"minecraft:dirt\"}}"}])"}},
         "$.timeline.tracks.player_head.nbt", "participant hand items cannot modify item");
  // Easing names are ASCII case-insensitive; the value's pre/post are kept apart.
  const auto c = load(
      a0().set("timeline.tracks.player_head.position[0].easing", "\"EASE_OUT_BOUNCE\"")
          .set(
              "timeline.tracks.display.position",
              R"([{"time":"0t","pre":[1,2,3],"post":[4,5,6],"interpolation":"step"},{"time":"5t","value":[0,0,0]}])")
          .set(
              "timeline.tracks.display.nbt",
              R"j([{"time":"0t","value":{"select":"math.random_integer(0, 1)","options":["{a:1}","{a:2}"]}},{"time":"3t","value":"{a:5}"}])j"));
  accepted(*c);
  const auto& a = *c->entries()[0].animation;
  CHECK(a.tracks[2].position[0].easing == easing::ease_out_bounce);
  const auto& d = a.tracks[1];
  CHECK(d.position[0].pre[2].constant == 3);
  CHECK(d.position[0].post[0].constant == 4);
  CHECK(d.position[0].interpolation == interpolation::step);
  REQUIRE(d.nbt.size() == 2);
  CHECK(d.nbt[0].is_select());
  CHECK(d.nbt[0].options.size() == 2);
  CHECK(d.nbt[1].value.find("a")->integer == 5);
}

TEST_CASE("formats.md §3.5 event rows") {
  const char* ev = "timeline.events.timeline[0]";
  auto at = [&](const char* rest) { return std::string(ev) + rest; };
  expect({{at(".time").c_str(), nullptr}}, "$.timeline.events.timeline[0].time", "is required");
  expect(
      {{"timeline.events.timeline",
        R"([{"time":"5t","source":{"type":"player"},"origin":{"type":"root"},"commands":[]},{"time":"4t","source":{"type":"player"},"origin":{"type":"root"},"commands":[]}])"}},
      "$.timeline.events.timeline[1].time", "timeline events must be ordered by time");
  accepted(*load(a0().set(
      "timeline.events.timeline",
      R"([{"time":"5t","source":{"type":"player"},"origin":{"type":"root"},"commands":[]},{"time":"5t","source":{"type":"server"},"origin":{"type":"root"},"commands":[]}])")));
  expect({{at(".source.type").c_str(), "\"console\""}}, "$.timeline.events.timeline[0].source.type",
         "unsupported source type: console");
  expect({{at(".source").c_str(), R"({"type":"node","node":"ghost"})"}},
         "$.timeline.events.timeline[0].source.node", "references unknown node");
  expect({{at(".origin.type").c_str(), "\"world\""}}, "$.timeline.events.timeline[0].origin.type",
         "unsupported origin type: world");
  expect({{at(".origin").c_str(), R"({"type":"node","node":"ghost"})"}},
         "$.timeline.events.timeline[0].origin.node", "references unknown node");
  expect({{at(".origin.offset").c_str(), "[0,1]"}}, "$.timeline.events.timeline[0].origin.offset",
         "must contain 3 values");
  expect({{at(".commands").c_str(), nullptr}}, "$.timeline.events.timeline[0].commands",
         "is required");
  expect({{at(".commands").c_str(), R"(["say a","  "])"}},
         "$.timeline.events.timeline[0].commands[1]", "must not be blank");
  expect({{at(".commands").c_str(), R"(["/say a"])"}}, "$.timeline.events.timeline[0].commands[0]",
         "must not start with /");
  expect({{at(".callbacks").c_str(), R"([{"payload":"x"}])"}},
         "$.timeline.events.timeline[0].callbacks[0].name", "is required");
  expect({{at(".callbacks").c_str(), R"([{"name":"a:b","payload":1}])"}},
         "$.timeline.events.timeline[0].callbacks[0].payload", "must be a string");
  expect({{"timeline.events.start", "{}"}}, "$.timeline.events.start", "must be an array");
  // Anchors may be origins; offsets default to 0.
  const auto c = load(a0().set(
      "timeline.events.stop",
      R"([{"source":{"type":"server"},"origin":{"type":"node","node":"root","offset":[1,2,3]},"commands":["say bye"]}])"));
  accepted(*c);
  const auto& e = c->entries()[0].animation->events;
  REQUIRE(e.stop.size() == 1);
  CHECK(e.stop[0].origin == event_origin::node);
  CHECK(e.stop[0].origin_node == 0);
  CHECK(e.stop[0].offset == std::array<double, 3>{1, 2, 3});
  CHECK(e.timeline[0].offset == std::array<double, 3>{0, 0, 0});
}

TEST_CASE("formats.md §3.6 stage 2 rows") {
  expect({{"nodes.display.item_stack_snbt", "\"{count:1}\""}}, "$.nodes.display.item_stack_snbt",
         "value is not valid for Minecraft");
  expect({{"nodes.player_head.item_stack_snbt", "\"{id:\\\"minecraft:stone\\\"}\""}},
         "$.nodes.player_head.skin", "requires a player head");
  accepted(*load(a0().set("nodes.player_head.item_stack_snbt", "\"{id:\\\"player_head\\\"}\"")));
  expect({{"nodes.player_head.item_stack_snbt", nullptr},
          {"nodes.player_head.item_source", item_source_right}},
         "$.nodes.player_head.skin", "is not supported by participant hand items");
  expect({{"nodes.display.type", "\"block_display\""},
          {"nodes.display.item_stack_snbt", nullptr},
          {"nodes.display.item_display", nullptr},
          {"nodes.display.block_state_snbt", "\"{Name:\\\"Stone\\\"}\""}},
         "$.nodes.display.block_state_snbt", "value is not valid for Minecraft");
  // Stage 2 runs after the timeline: a timeline error wins over a bad item stack.
  expect({{"nodes.display.item_stack_snbt", "\"{count:1}\""}, {"timeline.duration", "\"0t\""}},
         "$.timeline.duration", "must be a valid Minecraft time: tick count too low");
}

TEST_CASE("formats.md §4 Sequence rows") {
  auto s = [](const char* steps) { return seq(steps); };
  expect({{"steps", nullptr}}, "$.steps", "is required", s("[]"));
  expect({{"steps", "{}"}}, "$.steps", "must be an array", s("[]"));
  expect({}, "$.steps", "must not be empty", s("[]"));
  expect({}, "$.steps[0]", "must be an object", s("[1]"));
  expect({}, "$.steps[0]", "must contain exactly one of emote, wait, or await_partner",
         s(R"([{"emote":null,"wait":null}])"));
  expect({}, "$.steps[1].repeat", "is not supported on a wait step",
         s(R"([{"emote":"a:x"},{"wait":"1t","repeat":2},{"emote":"a:x"}])"));
  expect({}, "$.steps[1].wait", "must be a valid Minecraft time: tick count too low",
         s(R"([{"emote":"a:x"},{"wait":"0t"},{"emote":"a:x"}])"));
  expect({}, "$.steps[0].emote", "must use namespace:path format", s(R"([{"emote":"sit"}])"));
  expect({}, "$.steps[0].emote[1]", "must be a valid lowercase Minecraft identifier",
         s(R"([{"emote":["a:x","A:y"]}])"));
  expect({}, "$.steps[0].emote[1]", "must be finite", s(R"([{"emote":["a:x","@NaN@","a:y",50]}])"));
  expect({}, "$.steps[0].repeat", "must be an integer", s(R"([{"emote":"a:x","repeat":"2"}])"));
  expect({}, "$.steps[0].repeat", "must be a 32-bit integer",
         s(R"([{"emote":"a:x","repeat":2147483648}])"));
  expect({}, "$.steps[0].transition", "is required", s(R"([{"emote":"a:x","transition":null}])"));
  expect({}, "$.steps[0].transition", "must be a string", s(R"([{"emote":"a:x","transition":5}])"));
  expect({{"settings.cooldown", "5"}}, "$.settings.cooldown", "must be a string",
         s(R"([{"emote":"a:x"}])"));
  expect({{"settings", nullptr}}, "$.settings", "is required", s(R"([{"emote":"a:x"}])"));
  // Two-player rows.
  expect({{"steps[0].transition", "\"1t\""}}, "$.steps[0].transition",
         "is supported only on an emote step", hs());
  expect({{"steps[0].repeat", "2"}}, "$.steps[0].repeat",
         "is not supported on an await_partner step", hs());
  expect({{"steps[0].await_partner", "\"x:y\""}}, "$.steps[0].await_partner", "must be an object",
         hs());
  expect({{"steps[0].await_partner.emote", R"(["a:x"])"}}, "$.steps[0].await_partner.emote",
         "must be a string", hs());
  expect({{"steps[0].await_partner.timeout", "\"0t\""}}, "$.steps[0].await_partner.timeout",
         "must be a valid Minecraft time: tick count too low", hs());
  expect({{"steps[0].matched", "[]"}}, "$.steps[0].matched", "must not be empty", hs());
  expect({{"steps[0].timeout", nullptr}}, "$.steps[0].timeout", "is required", hs());
  expect({{"participants.partner", nullptr}}, "$.participants.partner", "is required", hs());
  expect({{"participants.initiator.rotation", "\"^ 0\""}}, "$.participants.initiator.rotation",
         "invalid Minecraft coordinates", hs());
  expect({{"participants.initiator.position", "\"~ ~ ~ \""}}, "$.participants.initiator.position",
         "contains trailing input", hs());
  // participants are checked before settings and steps.
  expect({{"participants.initiator.position", "1"}, {"settings.cooldown", "1"}},
         "$.participants.initiator.position", "must be a string", hs());
}

TEST_CASE("unknown keys are reported at their own path, per object kind") {
  auto c = load(
      a0().set("nodes.root.color", "1")
          .set("nodes.display.block_state_snbt", "\"{Name:\\\"stone\\\"}\"")
          .set("nodes.display.transform.skew", "0")
          .set("nodes.player_head.skin.tint", "0")
          .set("timeline.tracks.player_head.position[0].speed", "1")
          .set("timeline.tracks.player_head.visible", R"([{"time":"0t","value":true,"note":1}])")
          .set("timeline.tracks.player_head.glow", "[]")
          .set("timeline.events.timeline[0].source.extra", "1")
          .set("timeline.events.timeline[0].origin.extra", "1")
          .set("timeline.events.timeline[0].callbacks", R"([{"name":"a:b","x":1}])")
          .set(
              "timeline.events.start",
              R"([{"time":"0t","source":{"type":"server"},"origin":{"type":"root"},"commands":[]}])")
          .set("timeline.events.other", "[]")
          .set("timeline.extra", "1")
          .set("molang", R"({"initialize":"v.a = 1;","setup":"x"})")
          .set("metadata.anything", "{\"goes\":1}")
          .set("settings.player.extra", "1")
          .set("settings.player.stop_conditions.sneak", "true")
          .set("extra", "1"));
  accepted(*c);
  auto w = warnings(*c);
  std::sort(w.begin(), w.end());
  const std::vector<std::string> expected{
      "$.extra: unknown key ignored",
      "$.molang.setup: unknown key ignored",
      "$.nodes.display.block_state_snbt: unknown key ignored",
      "$.nodes.display.transform.skew: unknown key ignored",
      "$.nodes.player_head.skin.tint: unknown key ignored",
      "$.nodes.root.color: unknown key ignored",
      "$.settings.player.extra: unknown key ignored",
      "$.settings.player.stop_conditions.sneak: unknown key ignored",
      "$.timeline.events.other: unknown key ignored",
      "$.timeline.events.start[0].time: unknown key ignored",
      "$.timeline.events.timeline[0].callbacks[0].x: unknown key ignored",
      "$.timeline.events.timeline[0].origin.extra: unknown key ignored",
      "$.timeline.events.timeline[0].source.extra: unknown key ignored",
      "$.timeline.extra: unknown key ignored",
      "$.timeline.tracks.player_head.glow: unknown key ignored",
      "$.timeline.tracks.player_head.position[0].speed: unknown key ignored",
      "$.timeline.tracks.player_head.visible[0].note: unknown key ignored",
  };
  CHECK(w == expected);
  c = load(seq(R"([{"emote":"a:x","note":1},{"wait":"1t","emote":null},{"emote":"a:x"}])")
               .set("participants", hs_participants)
               .set("participants.partner.facing", "1"));
  rejected(*c, "$.steps", "participants require an await_partner step");
  c = load(std::vector{
      seq(R"([{"emote":"a:x","note":1},{"wait":"1t","emote":null},{"emote":"a:x"}])").text(),
      anim("a:x", 1).text()});
  accepted(*c);
  w = warnings(*c);
  std::sort(w.begin(), w.end());
  CHECK(w == std::vector<std::string>{"$.steps[0].note: unknown key ignored",
                                      "$.steps[1].emote: unknown key ignored"});
  c = load(std::vector{hs("a:x")
                           .set("participants.partner.facing", "1")
                           .set("steps[0].await_partner.repeat_offer", "true")
                           .set("steps[0].note", "1")
                           .text(),
                       anim("a:x", 1).text()});
  accepted(*c);
  w = warnings(*c);
  std::sort(w.begin(), w.end());
  CHECK(w == std::vector<std::string>{"$.participants.partner.facing: unknown key ignored",
                                      "$.steps[0].await_partner.repeat_offer: unknown key ignored",
                                      "$.steps[0].note: unknown key ignored"});
}
