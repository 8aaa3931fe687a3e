#pragma once
// Decoding of one client line (protocol.md §1–§5) into a validated request: the engine ops become
// api::input, the others typed requests. Every failure is an api::error ready for a reply:
// bad_json (with the parser's offset), unknown_op, bad_request (with the JSON path of the
// offending field) or unsupported_protocol. Line length limits are the server's.

#include "engine/api/types.hpp"
#include "engine/core/result.hpp"
#include "protocol/encode.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace emote::protocol {

/// protocol.md §5: the longest player key a request may name (bytes of UTF-8) **(sim)**.
inline constexpr std::size_t max_player_key_bytes = 256;
/// The largest `state.get` page (`limit`, protocol.md §4).
inline constexpr std::int64_t max_state_page_players = 10000;

enum class client_role : std::uint8_t { controller, observer };

struct hello_request {
  std::int64_t protocol = 1;
  client_role role = client_role::controller;
  std::optional<std::string> token;
  std::string client;
};
struct ping_request {};
struct bye_request {
  std::string reason;
};

/// A subscription: the byte-shaping part (`filter`) plus per-connection delivery options.
struct subscription {
  frame_filter filter;
  bool lossy = false;
  bool empty_frames = false;
};
struct subscribe_request {
  protocol::subscription subscription;
};
struct clock_step_request {
  std::int32_t ticks = 1;
};
struct state_get_request {
  sim::state_query query; ///< `player`, or a page: `after`, `limit` (protocol.md §4)
};
struct emote_list_request {};
struct emote_info_request {
  std::string emote;
};
struct emote_reload_request {
  /// Accept a reload that leaves no emotes (protocol.md §4 emote.reload).
  bool allow_empty = false;
};
/// render.resync (render.md §4 rule 5): the listed viewers, or every viewer.
struct render_resync_request {
  bool all = true;
  std::vector<std::string> players;
};
struct emote_register_request {
  std::string document; ///< the `document` object as compact JSON text
};

using request_body =
    std::variant<hello_request, ping_request, bye_request, subscribe_request, clock_step_request,
                 state_get_request, emote_list_request, emote_info_request, emote_reload_request,
                 emote_register_request, render_resync_request, api::input>;

struct request {
  request_id id;
  std::string_view op; ///< the wire op name (static storage)
  request_body body;
  /// The message as a recording stores it (protocol.md §8): compact JSON, `token` removed.
  std::string record;
};

/// What an error reply to `r` names (protocol.md §3): its op and the `player` and `emote`
/// strings of its message (read back from `record`; only failures pay for it).
error_subject subject_of(const request& r);

struct decode_failure {
  request_id id; ///< the request's id when it could be read, so the reply can carry it
  api::error error;
  error_subject subject; ///< the op (when known), player and emote the line named
};

/// Decode one line (without its newline; a trailing "\r" is ignored).
core::result<request, decode_failure> decode_request(std::string_view line);

/// True for ops an observer may not send (protocol.md §2: observers get frames, emote.list,
/// emote.info, state.get and ping; hello and bye are for everyone).
[[nodiscard]] bool controller_only(const request& r) noexcept;

/// The `forbidden` error an observer gets for a controller op.
api::error forbidden_error(std::string_view op);

} // namespace emote::protocol
