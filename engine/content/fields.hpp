#pragma once
// The keys of every object of the emote file formats (formats.md §3, §4; sequence-format.md), one
// table per object. The validators read their objects' keys from here: a key outside its table is
// "unknown key ignored" (formats.md §1.3 (b)), or an error where the object is *exact*. The JSON
// Schemas in schemas/ describe the same objects under `$defs` with these names; the test
// `schemas` fails when a table and its schema object differ (schemas/README.md).

#include <span>
#include <string_view>

namespace emote::content::fields {

using keys = std::span<const std::string_view>;

/// `$schema` (optional, any value, not read) names the JSON Schema for editors (formats.md §3.1).
inline constexpr std::string_view animation[] = {
    "$schema",  "type",     "schema_version", "id",    "target_minecraft_version",
    "metadata", "settings", "molang",         "nodes", "timeline"};
/// `metadata`: these two are read; any other key is data, kept verbatim (formats.md §3.1).
inline constexpr std::string_view metadata[] = {"name", "description"};
inline constexpr std::string_view animation_settings[] = {
    "standalone", "cooldown", "rotation_deadzone", "display_interpolation", "player", "playback"};
inline constexpr std::string_view playback[] = {"mode", "loop_delay"};
inline constexpr std::string_view player_settings[] = {"hidden", "stop_conditions"};
inline constexpr std::string_view stop_conditions[] = {
    "movement_distance", "jump", "submerge", "ride", "damage", "attack", "game_mode_change"};
inline constexpr std::string_view molang[] = {"initialize", "tick"};
inline constexpr std::string_view transform[] = {"position", "rotation", "scale"};
inline constexpr std::string_view anchor_node[] = {"type", "parent", "space", "transform"};
inline constexpr std::string_view item_node[] = {
    "type",       "parent",          "space",       "transform",    "visible",
    "entity_nbt", "item_stack_snbt", "item_source", "item_display", "skin"};
inline constexpr std::string_view block_node[] = {
    "type", "parent", "space", "transform", "visible", "entity_nbt", "block_state_snbt"};
inline constexpr std::string_view text_node[] = {"type",    "parent",     "space", "transform",
                                                 "visible", "entity_nbt", "text"};
inline constexpr std::string_view item_source[] = {"type", "arm"};
inline constexpr std::string_view skin[] = {"participant", "part", "order"};
inline constexpr std::string_view timeline[] = {"duration", "tracks", "events"};
inline constexpr std::string_view node_tracks[] = {"position", "rotation", "scale", "visible",
                                                   "nbt"};
inline constexpr std::string_view vector_keyframe[] = {"time", "value",         "pre",
                                                       "post", "interpolation", "easing"};
inline constexpr std::string_view visible_keyframe[] = {"time", "value"};
/// *exact* (formats.md §3.4): another key is an error.
inline constexpr std::string_view nbt_keyframe[] = {"time", "value"};
/// *exact* (formats.md §3.4).
inline constexpr std::string_view nbt_select[] = {"select", "options"};
inline constexpr std::string_view events[] = {"start", "timeline", "loop", "stop"};
inline constexpr std::string_view timeline_event[] = {"time", "source", "origin", "commands",
                                                      "callbacks"};
inline constexpr std::string_view lifecycle_event[] = {"source", "origin", "commands", "callbacks"};
inline constexpr std::string_view event_source[] = {"type", "node"};
inline constexpr std::string_view event_origin[] = {"type", "node", "offset"};
inline constexpr std::string_view callback[] = {"name", "payload"};

inline constexpr std::string_view sequence[] = {
    "$schema",  "type",         "schema_version", "id",   "target_minecraft_version",
    "metadata", "participants", "settings",       "steps"};
inline constexpr std::string_view participants[] = {"initiator", "partner"};
inline constexpr std::string_view placement[] = {"position", "rotation"};
inline constexpr std::string_view sequence_settings[] = {"cooldown", "player"};
inline constexpr std::string_view emote_step[] = {"emote", "repeat", "transition"};
inline constexpr std::string_view wait_step[] = {"wait"};
inline constexpr std::string_view await_step[] = {"await_partner", "matched", "timeout"};
inline constexpr std::string_view await_partner[] = {"emote", "timeout"};

/// A table with the name of its object in the schemas' `$defs`.
struct object_fields {
  std::string_view name;
  keys fields;
};

/// Every table above, by schema name.
inline constexpr object_fields all[] = {
    {"animation", animation},
    {"metadata", metadata},
    {"animationSettings", animation_settings},
    {"playback", playback},
    {"playerSettings", player_settings},
    {"stopConditions", stop_conditions},
    {"molang", molang},
    {"transform", transform},
    {"anchorNode", anchor_node},
    {"itemNode", item_node},
    {"blockNode", block_node},
    {"textNode", text_node},
    {"itemSource", item_source},
    {"skin", skin},
    {"timeline", timeline},
    {"nodeTracks", node_tracks},
    {"vectorKeyframe", vector_keyframe},
    {"visibleKeyframe", visible_keyframe},
    {"nbtKeyframe", nbt_keyframe},
    {"nbtSelect", nbt_select},
    {"events", events},
    {"timelineEvent", timeline_event},
    {"lifecycleEvent", lifecycle_event},
    {"eventSource", event_source},
    {"eventOrigin", event_origin},
    {"callback", callback},
    {"sequence", sequence},
    {"participants", participants},
    {"placement", placement},
    {"sequenceSettings", sequence_settings},
    {"emoteStep", emote_step},
    {"waitStep", wait_step},
    {"awaitStep", await_step},
    {"awaitPartner", await_partner},
};

/// True when `key` is in `table`.
constexpr bool contains(keys table, std::string_view key) noexcept {
  for (const auto k : table) {
    if (k == key) {
      return true;
    }
  }
  return false;
}

} // namespace emote::content::fields
