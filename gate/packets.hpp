#pragma once
// The packets the gate reads and writes (gate.md §4, §6, §7), per version from the generated
// tables (render/tables.hpp `gate_table`). Readers take a whole packet (its id and fields, as
// packet_codec::decode gives it) and return nullopt when it does not parse; they never read past
// the packet and bound every count by the bytes left. Writers return the packet's id and fields,
// unframed.

#include "engine/api/types.hpp"
#include "render/tables.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace emote::gate {

using render::gate_packet;
using render::version_table;

/// The id of `p` in `v` (-1 when the version lacks it).
[[nodiscard]] inline std::int32_t id_of(const version_table& v, gate_packet p) noexcept {
  return v.gate.packet_ids[static_cast<std::size_t>(p)];
}

/// The packet id at the start of a packet, and the fields after it.
struct split_packet {
  std::int32_t id = 0;
  std::string_view fields;
};
std::optional<split_packet> split(std::string_view packet) noexcept;

// ---- readers (fields only: the id is already split off) ---------------------------------------

struct handshake {
  std::int32_t protocol = 0;
  std::int32_t next_state = 0; ///< 1 status, 2 login, 3 transfer
};
/// Version-independent: set_protocol is the same in every protocol (the generator checks it).
std::optional<handshake> read_handshake(std::string_view fields) noexcept;

struct login_success {
  api::uuid uuid{};
  std::string name;
  std::optional<api::skin_texture> textures; ///< the `textures` property
};
std::optional<login_success> read_login_success(const version_table& v, std::string_view fields);
std::optional<std::int32_t> read_compress(std::string_view fields) noexcept;

struct play_login {
  std::int32_t entity_id = 0;
  std::string dimension;
  api::game_mode game_mode = api::game_mode::survival;
};
std::optional<play_login> read_play_login(std::string_view fields);

struct respawn {
  std::string dimension;
  api::game_mode game_mode = api::game_mode::survival;
};
std::optional<respawn> read_respawn(std::string_view fields);

/// The clientbound player position; `relative` bits: x 0, y 1, z 2, yaw 3, pitch 4.
struct player_position {
  double x = 0, y = 0, z = 0;
  float yaw = 0, pitch = 0;
  std::uint32_t relative = 0;
};
std::optional<player_position> read_player_position(const version_table& v,
                                                    std::string_view fields) noexcept;
std::optional<float> read_health(std::string_view fields) noexcept;

struct game_state {
  std::uint8_t reason = 0;
  float value = 0;
};
std::optional<game_state> read_game_state(std::string_view fields) noexcept;

struct passengers {
  std::int32_t vehicle = 0;
  std::vector<std::int32_t> riders;
};
std::optional<passengers> read_passengers(std::string_view fields);
/// damage_event: the damaged entity.
std::optional<std::int32_t> read_damage_entity(std::string_view fields) noexcept;
/// client_information (configuration or play): the view distance.
std::optional<std::int32_t> read_view_distance(std::string_view fields) noexcept;

/// A serverbound movement packet (gate_packet::move_*).
struct movement {
  std::optional<api::dvec3> position;
  std::optional<float> yaw, pitch;
  bool on_ground = false;
};
std::optional<movement> read_movement(const version_table& v, gate_packet kind,
                                      std::string_view fields) noexcept;

/// entity_action: the action id.
std::optional<std::int32_t> read_entity_action(std::string_view fields) noexcept;
/// player_input: the input bits (shift = 0x20).
std::optional<std::uint8_t> read_player_input(std::string_view fields) noexcept;
/// chat_command / chat_command_signed: the command text (without `/`).
std::optional<std::string_view> read_command(std::string_view fields) noexcept;

struct tab_request {
  std::int32_t transaction = 0;
  std::string text;
};
std::optional<tab_request> read_tab_request(std::string_view fields);

// ---- writers ----------------------------------------------------------------------------------

/// system_chat with plain text (not the action bar).
std::string write_system_chat(const version_table& v, std::string_view text);
/// The login disconnect (a JSON text component).
std::string write_login_disconnect(const version_table& v, std::string_view text);
/// The play disconnect (kick_disconnect, an NBT text component).
std::string write_play_disconnect(const version_table& v, std::string_view text);
/// A tab_complete response replacing [start, start + length) of the typed text.
std::string write_tab_response(const version_table& v, std::int32_t transaction,
                               std::int32_t start, std::int32_t length,
                               const std::vector<std::string>& matches);

/// declare_commands with the `emote` tree appended (gate.md §6); nullopt when the backend's
/// packet does not parse (it is then forwarded as it is).
std::optional<std::string> append_emote_command(const version_table& v, std::string_view packet);

/// entity_metadata of `entity` with 0x20 OR-ed into its shared-flags entry (the version's
/// player_flags_index, 0), gate.md §7; nullopt when the packet is not about `entity` or its first
/// entry is not that byte (vanilla writes entries in ascending index, so it is first when present).
std::optional<std::string> hide_in_metadata(const version_table& v, std::string_view packet,
                                            std::int32_t entity);
/// The entity id of an entity_metadata or entity_equipment packet.
std::optional<std::int32_t> entity_of(std::string_view packet) noexcept;

} // namespace emote::gate
