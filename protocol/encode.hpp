#pragma once
// Encoding of everything the server writes (protocol.md §2, §3, §6): events with their exact field
// names and order, frames, replies, the welcome and bye lines, and the results of the query ops.
//
// Frames are encoded once per distinct filter: `frame_encoder` walks a frame, remembers which
// dimension each event belongs to, and hands out shared, immutable lines; subscribers whose filters
// are equal get the same bytes. All writers append to caller-owned buffers.

#include "engine/api/event.hpp"
#include "engine/api/match.hpp"
#include "engine/api/types.hpp"
#include "engine/core/diagnostic.hpp"
#include "engine/core/memo.hpp"
#include "engine/sim/engine.hpp"
#include "protocol/tick_output.hpp"
#include "render/renderer.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace emote::protocol {

// ---------------------------------------------------------------------------------------------
// Events and frames

/// Number of event types; bit i of a type mask stands for alternative i of api::event.
inline constexpr std::size_t event_type_count = std::variant_size_v<api::event>;
inline constexpr std::uint32_t all_event_types = (1U << event_type_count) - 1;

/// The wire type name of alternative `index` of api::event.
std::string_view event_type_name(std::size_t index) noexcept;
/// The mask of the types a `subscribe.events` entry selects: an exact type name, or a prefix
/// ending in '.' (`display.`). 0 when it selects nothing.
std::uint32_t event_type_mask(std::string_view selector) noexcept;

/// What a subscriber receives, reduced to what changes the bytes. Two equal filters share bytes.
struct frame_filter {
  std::uint32_t types = all_event_types;
  /// Sorted, unique; empty = every dimension. Applies to events that place something in a
  /// dimension (display.*, command, callback); lifecycle records always pass.
  std::vector<std::string> dimensions;
  /// Sorted, unique; empty = every player. Only events about these players and their sessions
  /// pass (protocol.md §4 `subscribe`): records naming one of them (playback.*, command,
  /// callback, partner.*, player.visibility, a player's render.warning) and the segment and
  /// display records of sessions one of them takes part in.
  std::vector<std::string> players;
  bool matrix = false;
  /// `"packets": true` (render.md §6): frames carry the viewers' packet entries after the events,
  /// and a frame with packets goes out even when no event passes.
  bool packets = false;
  /// `"audiences": true` with packets (render.md §6.1): each distinct recipient list is named
  /// once per frame in `audiences` and entries refer to it by index instead of a `to` list.
  bool audiences = false;
  friend bool operator==(const frame_filter&, const frame_filter&) = default;
};

/// The unfiltered frame with matrices: scenario output, recordings and their digests.
inline frame_filter full_filter() {
  frame_filter f;
  f.matrix = true;
  return f;
}

/// One encoded frame line, `{"op":"frame","tick":N,"events":[...]}\n`.
struct encoded_frame {
  std::string line;
  std::size_t event_count = 0;  ///< events that passed the filter (0: only for empty_frames)
  std::size_t packet_count = 0; ///< packet entries (packets filters only)
};

/// Append `,"packets":[{"to":[...],"protocol":P,"data":"<base64>"},...]`; with `audiences`
/// (render.md §6.1) `,"audiences":[[...],...],"packets":[{"audience":K,"protocol":P,...},...]`,
/// each distinct recipient list named once, in the order of its first entry.
void encode_packets_member(std::string& out, const frame_packets& packets, bool audiences = false);

/// The same line with `,"dropped":N` before its closing brace (lossy subscribers).
std::string with_dropped(std::string_view frame_line, std::uint64_t dropped);

/// Append one event object (no separator); `matrix` adds each transform's 16 floats. Without
/// matrices a transform's text goes through this thread's memo as `caches` says (`check`: a
/// stale entry throws core::cache_mismatch).
void encode_event(std::string& out, const api::event& e, bool matrix,
                  const core::cache_options& caches = {});

/// Append a frame line with every event of the tick, the renderer's warnings last (no filter, no
/// packets, no sharing): `run`'s output, tests and tools.
void encode_frame(std::string& out, const tick_output& t, bool matrix,
                  const core::cache_options& caches = {});

/// A frame line in pieces, for callers that encode its events in parts (on several threads):
/// the head `{"op":"frame","tick":N,"events":[`, the events separated by ',', then frame_tail.
/// encode_frame() is exactly head + events + tail.
void encode_frame_head(std::string& out, api::tick_number tick);
/// Append `events` separated by ',' (no leading or trailing separator).
void encode_events(std::string& out, std::span<const api::event> events, bool matrix,
                   const core::cache_options& caches = {});
inline constexpr std::string_view frame_tail = "]}\n";

/// This thread's transform-text memo (core::direct_memo): its size and use (metrics).
[[nodiscard]] core::memo_stats transform_text_memo_stats() noexcept;

/// Encodes each frame once per distinct filter. Feed it every frame in tick order (it tracks
/// which session and dimension each display handle belongs to, so display.update and friends can
/// be filtered by dimension). Not thread-safe; the returned lines are immutable and may be shared
/// with other threads.
class frame_encoder {
public:
  /// Start a new frame. What `t` points to must stay valid while encode() is called for it; with
  /// the Engine that means encoding every variant needed before its next apply() or step().
  void begin(const tick_output& t);
  /// The frame's line for `filter`, encoded at most once per frame and filter.
  std::shared_ptr<const encoded_frame> encode(const frame_filter& filter);

  /// How transform texts use the memo (the engine configuration's caches); default `on`.
  void set_caches(const core::cache_options& caches) noexcept { caches_ = caches; }

  /// How many distinct variants the current frame has been encoded into.
  [[nodiscard]] std::size_t variant_count() const noexcept { return cache_.size(); }

private:
  void write(std::string& out, const frame_filter& filter, std::size_t& count);
  void resolve_dimensions();
  [[nodiscard]] bool about_players(const api::event& e,
                                   const std::vector<std::string>& players) const;
  std::shared_ptr<encoded_frame> take_buffer();

  const api::frame* frame_ = nullptr;
  std::span<const api::ev_render_warning> warnings_; ///< written after the frame's events
  core::cache_options caches_;
  frame_packets packets_;
  std::string packets_member_[2]; ///< encode_packets_member of packets_ (to lists, audiences)
  bool packets_ready_[2] = {false, false};
  // Per event of the current frame: its dimension, or empty when it has none (worked out on the
  // first dimension-filtered encode of the frame).
  std::vector<std::string_view> event_dimension_;
  bool dimensions_ready_ = false;
  std::map<api::session_id, std::string> session_dimension_;
  // The players taking part in each live session (its playback.started, command and callback
  // records), for players filters.
  std::map<api::session_id, std::vector<std::string>> session_players_;
  std::vector<api::session_id> handle_session_; // index = handle; 0 = free
  std::vector<api::session_id> ended_sessions_; // forgotten at the next begin()
  std::vector<api::handle_id> removed_handles_;
  std::vector<std::pair<frame_filter, std::shared_ptr<encoded_frame>>> cache_;
  std::vector<std::shared_ptr<encoded_frame>> pool_;
};

// ---------------------------------------------------------------------------------------------
// Replies and connection lines

/// A request id as the client sent it: absent, an integer or a string.
using request_id = std::variant<std::monostate, std::int64_t, std::string>;

/// Whether a reply line is written: always with an id, otherwise only for failures.
[[nodiscard]] inline bool needs_reply(const request_id& id, bool ok) noexcept {
  return !ok || !std::holds_alternative<std::monostate>(id);
}

/// `{"op":"reply","id":ID,"tick":N,"ok":true<members>}\n`; `members` is empty or starts with ','.
void encode_ok(std::string& out, const request_id& id, api::tick_number tick,
               std::string_view members = {});
/// What an error reply refers to (protocol.md §3): the request's op (when the line named a known
/// one) and the `player` and `emote` strings it names; empty when unknown.
struct error_subject {
  std::string op;
  std::string player;
  std::string emote;
};

/// The developer's text of an error (protocol.md §3 `detail`): what failed, naming the op and the
/// subject, e.g. `emote.play player "alice" emote "x:y": no emote with this id is loaded`.
std::string error_detail(const api::error& err, const error_subject* about = nullptr);
/// `{"op":"reply",["id":ID,]"tick":N,"ok":false,"error":{"code","message"[,"path"]
/// [,"remaining_ticks"][,"supported":[1]][,"op"][,"player"][,"emote"],"detail"}}\n`.
void encode_error(std::string& out, const request_id& id, api::tick_number tick,
                  const api::error& err, const error_subject* about = nullptr);
/// An engine reply (play, stop, counts, empty); an error names `about`, a play that made an
/// initiator adds `unmatched` (protocol.md §4 emote.play).
void encode_reply(std::string& out, const request_id& id, const api::reply& r,
                  const error_subject* about = nullptr,
                  const api::unmatched_offer* unmatched = nullptr);

struct welcome_info {
  std::string_view server_version; ///< without the "emote-sim/" prefix
  api::tick_number tick = 0;
  std::int32_t tps = 20;
  bool manual_clock = false;
  bool observer = false;
  std::int64_t emotes = 0;
  std::string_view build; ///< the build id (protocol.md §2); omitted when empty
};
/// `{"op":"welcome","protocol":1,"server":"emote-sim/V"[,"build":B],"tick":N,"tps":20,"clock":C,"role":R,"emotes":K,"minecraft":{...}}\n`
/// (`minecraft`: the packet ids per supported version, protocol.md §2)
void encode_welcome(std::string& out, const welcome_info& w);
/// `{"op":"bye"[,"reason":R]}\n`
void encode_bye(std::string& out, std::string_view reason = {});

// ---------------------------------------------------------------------------------------------
// Results of the query ops, as reply members (each starts with ',')

/// `,"players":[...],"sessions":[...],"cooldowns":[...]`
/// state.get's members: players, sessions, cooldowns, and the live displays (render.md §4:
/// what a consumer arriving mid-emote needs to rebuild the scene); `,"next":KEY` when a page
/// has more players after it.
void encode_state_members(std::string& out, const sim::state_snapshot& s,
                          std::span<const render::display_info> displays);

/// One `emote.list` entry (protocol.md §4).
struct emote_summary {
  std::string id;
  std::string type; ///< "animation" | "sequence"
  std::string name;
  std::string description;
  bool standalone = true;
  std::int64_t duration_ticks = 0;
  bool fixed_duration = true;
  std::int64_t cooldown_ticks = 0;
  bool two_player = false;
};
/// `emote.info`: the list entry plus raw JSON values (already valid JSON text).
struct emote_details {
  emote_summary summary;
  std::string nodes_json = "[]";    ///< the node list
  std::string metadata_json = "{}"; ///< metadata object, all keys
  std::string steps_json;           ///< sequences only: their steps; empty for animations
};
/// `,"emotes":[{...},...]`
void encode_emote_list_members(std::string& out, const std::vector<emote_summary>& list);
/// `,"emote":ID,"type":...,...,"nodes":...,"metadata":...[,"steps":...]`: the list entry with its
/// id under "emote", because the reply's "id" is the request id.
void encode_emote_info_members(std::string& out, const emote_details& d);
/// `,"loaded":N,"skipped":[{"file","path","line","column","message"},...]` (errors only)
void encode_reload_members(std::string& out, std::int64_t loaded, const core::diagnostics& skipped);

} // namespace emote::protocol
