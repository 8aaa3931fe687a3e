#pragma once
// One gate connection pair as a state machine without I/O (gate.md §2–§7): bytes from the client
// and from the backend go in; bytes for each side, the engine inputs of the player, and the
// commands and completions to answer come out. The Asio side (gate/listener) only moves bytes and
// applies what comes out, so everything here is unit-tested and fuzzed as it runs.

#include "engine/api/types.hpp"
#include "gate/frames.hpp"
#include "gate/packets.hpp"
#include "render/framing.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace emote::gate {

enum class conn_state : std::uint8_t {
  handshake,
  status,
  login,
  configuration,
  play,
  passthrough, ///< a protocol the gate does not read (or status): bytes only
  closed,
};
std::string_view name(conn_state s) noexcept;

/// An `/emote` command the client typed (gate.md §6).
struct command_request {
  enum class kind : std::uint8_t { play, stop, list, usage };
  kind what = kind::usage;
  std::string emote; ///< play
};

/// A tab completion of `/emote <word>` to answer with session::answer_tab.
struct tab_query {
  std::int32_t transaction = 0;
  std::string word;        ///< what is typed of the argument so far
  std::int32_t start = 0;  ///< where the argument starts in the typed text
};

/// Something the caller logs once per gate (gate.md §2).
enum class notice : std::uint8_t { none, passthrough, encryption };

/// Why a pair is cut (gate.md §8); counted in metrics.
enum class fault : std::uint8_t { none, malformed, too_long, encryption, backend_down };

struct session_output {
  std::string to_backend;
  std::string to_client;
  std::vector<api::input> inputs; ///< player.join / update / event / leave, in order
  std::vector<command_request> commands;
  std::vector<tab_query> tabs;
  notice note = notice::none;
  std::int32_t note_protocol = 0; ///< passthrough: the client's protocol
  /// Engaged: write what is above, then close both sides.
  std::optional<fault> close;
  std::string close_detail; ///< what failed, for the log
  void clear();
};

class session {
public:
  /// `hidden`: the entity ids of hidden gate players (gate.md §7), shared by a gate's sessions;
  /// may be null.
  session(std::size_t max_frame_bytes, const std::unordered_set<std::int32_t>* hidden);

  void from_client(std::string_view bytes, session_output& out);
  void from_backend(std::string_view bytes, session_output& out);

  /// Write one unframed packet of ours (a renderer entry, gate.md §5) to the client, framed and
  /// compressed, or hold it while a backend bundle is open. Nothing while not a viewer.
  void inject(std::string_view packet, session_output& out);
  /// A system chat line to the client (refusals, `/emote list`).
  void tell(std::string_view text, session_output& out);
  /// The answer to a tab_query: `matches` replace the word.
  void answer_tab(const tab_query& q, const std::vector<std::string>& matches,
                  session_output& out);
  /// The backend cannot be reached (gate.md §8): a disconnect for the client's state, then close.
  /// Before the client's handshake the disconnect waits for it (a refused connect on loopback is
  /// faster than the client's first bytes); the caller bounds that wait.
  void backend_down(std::string_view why, session_output& out);
  /// Either side closed: the player leaves (when it joined). Idempotent.
  void closed(session_output& out);

  [[nodiscard]] conn_state state() const noexcept { return state_; }
  [[nodiscard]] std::int32_t protocol() const noexcept { return protocol_; }
  [[nodiscard]] const version_table* version() const noexcept { return v_; }
  /// The player key (the UUID from login_success); empty before it.
  [[nodiscard]] const std::string& player() const noexcept { return key_; }
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] bool joined() const noexcept { return joined_; }
  /// Joined, in play and receiving rendered packets.
  [[nodiscard]] bool viewer() const noexcept { return joined_ && state_ == conn_state::play; }
  [[nodiscard]] std::optional<std::int32_t> entity_id() const noexcept { return entity_id_; }
  [[nodiscard]] bool bundle_open() const noexcept { return bundle_open_; }
  [[nodiscard]] std::int32_t threshold() const noexcept { return codec_.threshold(); }
  /// Bytes received and not yet a whole frame, both sides.
  [[nodiscard]] std::size_t buffered() const noexcept {
    return client_frames_.buffered() + backend_frames_.buffered();
  }

private:
  void client_frame(const frame& f, session_output& out);
  void backend_frame(const frame& f, session_output& out);
  bool decode(const frame& f, session_output& out);
  void play_from_client(std::int32_t id, const frame& f, session_output& out);
  void play_from_backend(std::int32_t id, const frame& f, session_output& out);
  void write_packet(std::string_view packet, std::string& to);
  void fail(fault why, std::string detail, session_output& out);
  void update(api::player_fields fields, session_output& out);
  void try_join(session_output& out);
  void go_passthrough(std::string_view rest_client, session_output& out);

  const std::unordered_set<std::int32_t>* hidden_;
  frame_splitter client_frames_;
  frame_splitter backend_frames_;
  packet_codec codec_;
  std::optional<render::packet_framer> framer_;
  std::string packet_; ///< the decoded packet being read
  std::string held_;   ///< injected frames waiting for a backend bundle to close

  conn_state state_ = conn_state::handshake;
  std::int32_t protocol_ = 0;
  const version_table* v_ = nullptr;
  bool configured_once_ = false; ///< finished configuration at least once

  // What the gate knows of the player (gate.md §4).
  std::string key_, name_;
  std::optional<api::uuid> uuid_;
  std::optional<api::skin_texture> textures_;
  std::optional<std::int32_t> entity_id_;
  std::string dimension_ = "minecraft:overworld";
  api::game_mode game_mode_ = api::game_mode::survival;
  std::optional<api::dvec3> position_;
  float yaw_ = 0, pitch_ = 0;
  bool on_ground_ = true;
  bool alive_ = true;
  bool sneaking_ = false, sprinting_ = false;
  std::optional<std::int32_t> vehicle_;
  std::int32_t view_distance_ = 10;
  bool joined_ = false;
  bool left_ = false;
  bool bundle_open_ = false;
  std::optional<std::string> down_; ///< backend_down before the handshake: why
};

} // namespace emote::gate
