#pragma once
// Per-version Minecraft facts for rendering (render.md §1), one `version_table` per supported
// protocol 767..775. The tables under render/tables/generated/ are written by
// `scripts/regen-tables` (minecraft/generate-tables.mjs over minecraft-data 3.119.0 and the
// hand-written render/tables/overrides.json); never edit them by hand. Building and the unit
// tests need no npm.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace emote::render {

/// The play-state clientbound packets rendering sends (minecraft-data names).
enum class packet_kind : std::uint8_t {
  bundle_delimiter,
  spawn_entity,
  entity_metadata,
  entity_destroy,
  sync_entity_position, ///< protocol >= 768
  entity_teleport,      ///< 767: the absolute move (angle bytes)
  entity_look,
  entity_equipment,
};
inline constexpr std::size_t packet_kind_count = 8;

/// Entity metadata serializers used by display entities and the shared-flags entry.
enum class serializer : std::uint8_t {
  byte,        ///< i8
  int_,        ///< "int": a varint on the wire
  float_,      ///< f32
  vector3,     ///< 3 x f32
  quaternion,  ///< 4 x f32 (x, y, z, w)
  item_stack,  ///< Slot
  block_state, ///< varint global state id
  component,   ///< text component as anonymous network NBT
};
inline constexpr std::size_t serializer_count = 8;

/// The entity kinds rendering spawns.
enum class entity_kind : std::uint8_t { item_display, block_display, text_display };
inline constexpr std::size_t entity_kind_count = 3;

/// The display metadata rendering writes, by name (render.md §5.3). Each version's table says at
/// which index (and with which serializer and default) each kind has each field: the index is the
/// position of the field's minecraft-data key in that entity's metadataKeys, so a version that
/// moves an entry moves it here and nowhere else. Values, dirty bits and NBT rules are kept per
/// field; only the packet writer asks for indexes. interpolation_duration..right_rotation are
/// consecutive (a display's motion block).
enum class display_field : std::uint8_t {
  shared_flags,           ///< entity flags byte (glowing 0x40)
  interpolation_start,    ///< transformation interpolation start delta
  interpolation_duration, ///< transformation interpolation duration
  teleport_duration,      ///< position/rotation interpolation duration
  translation,
  scale,
  left_rotation,
  right_rotation,
  billboard,
  brightness,
  view_range,
  shadow_radius,
  shadow_strength,
  width,
  height,
  glow_color,
  content,           ///< item stack / block state / text, by kind
  item_display_mode, ///< item displays
  line_width,        ///< text displays, and the three below
  background,
  text_opacity,
  text_style,
};
inline constexpr std::size_t display_field_count = 22;
/// The bit of a field in a dirty mask.
constexpr std::uint32_t field_bit(display_field f) noexcept {
  return std::uint32_t{1} << static_cast<unsigned>(f);
}

/// Item data components rendering writes (render.md §5.4).
enum class data_component : std::uint8_t {
  profile,
  item_model,
  custom_model_data,
  dyed_color,
  enchantment_glint_override,
  enchantments, ///< only read: never written (becomes the glint override)
};
inline constexpr std::size_t data_component_count = 6;

// Layout variants. The generator checks every version's protocol.json against the layout it
// assigns and fails on a shape it does not know, so a new version cannot silently misencode.

/// spawn_entity field order.
enum class spawn_layout : std::uint8_t {
  velocity_last,           ///< ... pitch, yaw, headPitch, objectData, velocity (3 x i16)
  velocity_after_position, ///< ... x, y, z, velocity (lpVec3), pitch, yaw, headPitch, objectData
};
/// The absolute move packet.
enum class move_layout : std::uint8_t {
  teleport_angles,      ///< entity_teleport: id, x, y, z, yaw i8, pitch i8, onGround (767)
  sync_entity_position, ///< id, x, y, z, dx, dy, dz, yaw f32, pitch f32, onGround (>= 768)
};
/// minecraft:profile component.
enum class profile_layout : std::uint8_t {
  game_profile,       ///< name?, uuid?, properties (767..772)
  resolvable_partial, ///< the partial resolvable profile, no skin patch (>= 773)
};
/// minecraft:custom_model_data component.
enum class custom_model_data_layout : std::uint8_t {
  varint,  ///< 767: one varint
  dropped, ///< 768: see render.md §5.4 (dropped with a warning)
  lists,   ///< >= 769: floats, flags, strings, colors
};
/// minecraft:dyed_color component.
enum class dyed_color_layout : std::uint8_t {
  with_tooltip, ///< color i32, show_in_tooltip bool (767..769)
  plain,        ///< color i32 (>= 770)
};

struct item_entry {
  std::string_view name; ///< without namespace, e.g. "stone"
  std::int32_t id;
};

struct block_property {
  std::string_view name;
  std::uint32_t first_value; ///< index into version_table::property_values
  std::uint32_t value_count;
};

struct block_entry {
  std::string_view name; ///< without namespace
  std::int32_t min_state;
  std::int32_t default_state;
  std::uint32_t first_property; ///< index into version_table::properties; properties in
                                ///< minecraft-data order, the first the most significant digit
  std::uint32_t property_count;
};

/// One metadata entry of a display kind in one version (render.md §5.3): its index, the field it
/// carries, its serializer and default value.
struct metadata_slot {
  std::uint8_t index;
  display_field field;
  serializer kind;
  std::int32_t int_default;           ///< byte, int, block_state
  std::array<float, 4> float_default; ///< float (x), vector3 (x, y, z), quaternion
  // item_stack and component defaults are the empty stack and the empty text.
};

/// A display kind's metadata in one version: its slots, ascending index, and each field's slot.
struct metadata_layout {
  static constexpr std::uint8_t absent = 0xFF;
  std::span<const metadata_slot> slots;
  std::array<std::uint8_t, display_field_count> slot_of; ///< position in `slots`, or absent

  /// The slot of `f`, or nullptr when the kind has no such field in this version.
  [[nodiscard]] const metadata_slot* find(display_field f) const noexcept {
    const std::uint8_t k = slot_of[static_cast<std::size_t>(f)];
    return k == absent ? nullptr : &slots[k];
  }
};

// ---- The gate's packets (gate.md §4) ----------------------------------------------------------
// Generated into the same version_table by their own part of minecraft/generate-tables.mjs.

/// The packets the gate reads or writes, every connection state (minecraft-data names in
/// gate.md §4). Order = the generator's GATE_PACKETS.
enum class gate_packet : std::uint8_t {
  set_protocol,          ///< handshake, serverbound (intention)
  login_disconnect,      ///< login, clientbound
  encryption_begin,      ///< login, clientbound (hello)
  login_success,         ///< login, clientbound
  login_compress,        ///< login, clientbound (set_compression)
  login_acknowledged,    ///< login, serverbound
  config_disconnect,     ///< configuration, clientbound
  config_settings,       ///< configuration, serverbound (client_information)
  config_finish,         ///< configuration, serverbound (finish_configuration)
  play_login,            ///< play, clientbound
  player_position,       ///< play, clientbound (player_position)
  respawn,               ///< play, clientbound
  update_health,         ///< play, clientbound (set_health)
  game_state_change,     ///< play, clientbound (game_event)
  set_passengers,        ///< play, clientbound
  damage_event,          ///< play, clientbound
  start_configuration,   ///< play, clientbound
  declare_commands,      ///< play, clientbound (commands)
  system_chat,           ///< play, clientbound
  tab_complete_response, ///< play, clientbound (command_suggestions)
  play_disconnect,       ///< play, clientbound (kick_disconnect)
  play_settings,         ///< play, serverbound (client_information)
  move_position,         ///< play, serverbound (move_player_pos)
  move_position_look,    ///< play, serverbound (move_player_pos_rot)
  move_look,             ///< play, serverbound (move_player_rot)
  move_flying,           ///< play, serverbound (move_player_status_only)
  entity_action,         ///< play, serverbound (player_command)
  player_input,          ///< play, serverbound; -1 on 767
  chat_command,          ///< play, serverbound
  chat_command_signed,   ///< play, serverbound
  tab_complete_request,  ///< play, serverbound (command_suggestion)
  configuration_acknowledged, ///< play, serverbound
};
inline constexpr std::size_t gate_packet_count = 32;

/// login_success: 767 ends with a strictErrorHandling bool.
enum class login_success_layout : std::uint8_t { strict_error_handling, plain };
/// The clientbound player position: 767 `x y z yaw pitch flags(u8) teleportId`; from 768
/// `teleportId x y z dx dy dz yaw pitch flags(u32)`. Flag bits x 0, y 1, z 2, yaw 3, pitch 4.
enum class player_position_layout : std::uint8_t { absolute_first, teleport_id_first };
/// Serverbound movement packets end with an onGround bool (767) or a flags byte (bit 0 on
/// ground, from 768).
enum class movement_layout : std::uint8_t { on_ground_bool, flags_byte };
/// What a command-node argument's parser carries after its id (walking declare_commands).
enum class parser_properties : std::uint8_t {
  none,
  float_range,   ///< flags byte, then f32 min/max when flagged
  double_range,  ///< f64
  integer_range, ///< i32
  long_range,    ///< i64
  string_kind,   ///< varint
  flags_byte,    ///< one byte
  time,          ///< i32
  registry,      ///< string
};

struct gate_table {
  std::array<std::int32_t, gate_packet_count> packet_ids; ///< -1: the version lacks it
  login_success_layout login_success;
  player_position_layout player_position;
  movement_layout movement;
  /// entity_action ids: start_sneaking, stop_sneaking (-1 from 771: player_input's shift bit,
  /// bit 5), start_sprinting, stop_sprinting.
  std::array<std::int32_t, 4> actions;
  bool node_allows_restricted; ///< command-node flags carry allows_restricted (0x20, from 771)
  std::int32_t string_parser;  ///< the parser id of brigadier:string
  std::span<const parser_properties> parsers; ///< by parser id
};

struct version_table {
  std::int32_t protocol;
  std::string_view minecraft; ///< the minecraft-data version the table came from, e.g. "1.21.4"
  /// -1: the version lacks the packet, or rendering does not use it there: entity_teleport is
  /// -1 from 768 on (minecraft-data's entity_teleport is then the relative-flags teleport) and
  /// sync_entity_position is -1 on 767; `move` says which one is the absolute move.
  std::array<std::int32_t, packet_kind_count> packet_ids;
  std::array<std::int32_t, entity_kind_count> entity_types;
  std::array<std::int32_t, serializer_count> serializer_ids;
  std::array<std::int32_t, data_component_count> component_ids; ///< -1: the version lacks it
  spawn_layout spawn;
  move_layout move;
  profile_layout profile;
  custom_model_data_layout custom_model_data;
  dyed_color_layout dyed_color;
  bool text_shadow_color;              ///< text components may carry shadow_color (>= 769)
  std::span<const item_entry> items;   ///< ascending name
  std::span<const block_entry> blocks; ///< ascending name
  std::span<const block_property> properties;
  std::span<const std::string_view> property_values;
  /// Display metadata per kind (render.md §5.3).
  std::array<const metadata_layout*, entity_kind_count> display_layout;
  /// The player entity's shared-flags index (render.md §5.5).
  std::uint8_t player_flags_index;
  /// item_display modes by byte value ("none", "thirdperson_lefthand", ..., "on_shelf" >= 773).
  std::span<const std::string_view> item_display_modes;
  gate_table gate; ///< the gate's packets (gate.md §4)
};

/// Every supported version, ascending protocol.
std::span<const version_table* const> versions() noexcept;
/// The table of `protocol`, or nullptr when it is not supported.
const version_table* find_version(std::int64_t protocol) noexcept;
/// The table of `protocol` among `tables` (ascending protocol), or nullptr.
const version_table* find_version(std::span<const version_table* const> tables,
                                  std::int64_t protocol) noexcept;
/// "767, 768, ..., 775": the supported list, for error messages.
std::string_view supported_protocols_text() noexcept;

/// The registry id of an item ("minecraft:stone" or "stone"); nullopt when the version lacks it
/// or the namespace is not minecraft.
std::optional<std::int32_t> item_id(const version_table& v, std::string_view name) noexcept;
/// The block of that name (same namespace rule); nullptr when unknown.
const block_entry* find_block(const version_table& v, std::string_view name) noexcept;
/// The byte value of an item_display mode name; nullopt when the version lacks it.
std::optional<std::int8_t> item_display_mode(const version_table& v,
                                             std::string_view name) noexcept;

// Block states (render.md §5.4). A state id is min_state plus the mixed-radix number whose digits
// are the value indices of the block's properties in their order, the LAST property the fastest
// digit (prismarine-block's rule; the generator checks it against prismarine-block).

/// The properties of `b`, in minecraft-data order.
std::span<const block_property> block_properties(const version_table& v,
                                                 const block_entry& b) noexcept;
/// The values of `p` in minecraft-data order (bool: "true", "false"; int: "0", "1", ...).
std::span<const std::string_view> property_values(const version_table& v,
                                                  const block_property& p) noexcept;
/// The index of `value` among the values of `p`; nullopt when it is not one of them.
std::optional<std::uint32_t> property_value_index(const version_table& v, const block_property& p,
                                                  std::string_view value) noexcept;
/// The value index of the `property`-th property (0-based, block_properties order) in the state
/// `state` of `b`; nullopt when `state` is not one of b's states or there is no such property.
std::optional<std::uint32_t> state_value_index(const version_table& v, const block_entry& b,
                                               std::int32_t state, std::size_t property) noexcept;
/// The state id of `b` with the given value index per property (block_properties order); nullopt
/// when the count differs from the block's property count or an index is out of range.
std::optional<std::int32_t> block_state_id(const version_table& v, const block_entry& b,
                                           std::span<const std::uint32_t> value_indices) noexcept;

} // namespace emote::render
