#pragma once
// Recordings (protocol.md §8): NDJSON lines written while serving, read back for replay and for
// record-to-scenario. Writers append complete lines (newline included) to a caller's buffer, so
// the server can flush whole lines once per tick; the reader ignores a truncated last line.
//
//   {"emote_sim_recording":1,"server":V,"build":B,"protocol":1,"seed":S,"config":{...},"content_digest":H,
//    "content_files":{PATH:H,...},"started":T}
//   {"tick":N,"conn":C,"connect":{"role":R,"client":STR}}
//   {"tick":N,"conn":C,"disconnect":{}}
//   {"tick":N,"conn":C,"msg":{...}}
//   {"tick":N,"conn":C,"reply":{"op":"reply",...}}
//   {"tick":N,"digest":H}                       (or, with --record-frames:)
//   {"tick":N,"digest":H,"frame":{"op":"frame",...}}
//   with state digests (every tick): `"state":S` after the digest, or {"tick":N,"state":S} for a
//   tick without output; every K ticks {"tick":N,"state_dump":{...}}
//   {"tick":N,"ended_early":{"reason":R}}       (last: recording stopped by a write error)

#include "engine/core/result.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace emote::protocol {

/// One content file as a recording header lists it (protocol.md §8): its path as content_digest()
/// names it and the SHA-256 of its bytes (lower-case hex).
struct content_file_digest {
  std::string path;
  std::string digest;
  bool operator==(const content_file_digest&) const = default;
};

struct recording_header {
  std::string server; ///< the server version, e.g. "0.1.0"
  std::int64_t protocol = 1;
  std::int64_t seed = 0;
  std::string config_json = "{}"; ///< the effective configuration object (tokens removed)
  std::string content_digest;     ///< see content_digest()
  std::string started;            ///< ISO 8601 UTC
  /// The build id of the recording server (protocol.md §8); empty in recordings made before
  /// builds were recorded.
  std::string build;
  /// The content files in discovery order (protocol.md §8); absent in recordings made before
  /// the header listed them.
  std::optional<std::vector<content_file_digest>> content_files;
};

void append_header(std::string& out, const recording_header& h);
void append_connect(std::string& out, std::int64_t tick, std::int64_t conn, std::string_view role,
                    std::string_view client);
void append_disconnect(std::string& out, std::int64_t tick, std::int64_t conn);
/// `message_json` is a request's `record` text (decode.hpp): compact, token removed.
void append_msg(std::string& out, std::int64_t tick, std::int64_t conn,
                std::string_view message_json);
/// The reply the server sent for the message just appended (`reply_line`, newline optional).
void append_reply(std::string& out, std::int64_t tick, std::int64_t conn,
                  std::string_view reply_line);
/// The digest line of one frame; `frame_line` as an unfiltered subscriber with matrices receives
/// it (with or without its newline, which is not digested). `with_frame` embeds the frame.
/// `state`, when given, is the tick's state digest (16 hex digits), written after the digest.
void append_frame(std::string& out, std::int64_t tick, std::string_view frame_line,
                  std::optional<std::string_view> stored_line,
                  std::optional<std::string_view> state = std::nullopt);
/// The state digest of a tick without output: `{"tick":N,"state":S}`.
void append_state(std::string& out, std::int64_t tick, std::string_view state);
/// A full state dump (json/state_json.hpp, compact): `{"tick":N,"state_dump":{...}}`.
void append_state_dump(std::string& out, std::int64_t tick, std::string_view dump_json);

/// The last line of a recording that stopped while the server ran on (a write error such as a
/// full disk): ticks from `tick` on were not recorded (protocol.md §8).
void append_ended_early(std::string& out, std::int64_t tick, std::string_view reason);

struct rec_connect {
  std::int64_t tick = 0;
  std::int64_t conn = 0;
  std::string role;
  std::string client;
};
struct rec_disconnect {
  std::int64_t tick = 0;
  std::int64_t conn = 0;
};
struct rec_msg {
  std::int64_t tick = 0;
  std::int64_t conn = 0;
  std::string json; ///< the message object, compact
};
struct rec_frame {
  std::int64_t tick = 0;
  std::string digest;
  /// Without newline: the digested line, or with packets (render.md §6) that line plus its
  /// `packets` member.
  std::optional<std::string> frame_line;
};
/// The server's reply to an applied message (protocol.md §8 item 3).
struct rec_reply {
  std::int64_t tick = 0;
  std::int64_t conn = 0;
  std::string json; ///< the reply object, compact
};
using recording_entry = std::variant<rec_connect, rec_disconnect, rec_msg, rec_frame, rec_reply>;

struct recording {
  recording_header header;
  std::vector<recording_entry> entries;
  bool truncated_tail = false; ///< an incomplete last line was ignored
  /// Non-empty when a complete line after the header is damaged (not JSON, not an object, not a
  /// recording line): `LINE:COLUMN: message` (read_recording prefixes `FILE:`). The entries
  /// stop before the damaged line's last tick; replay what they hold and say so (protocol.md §8).
  std::string damage;
  std::int64_t last_tick = -1; ///< the highest tick of any entry
  /// How the recording ends (protocol.md §8): the server's own disconnect (conn 0) is a normal
  /// end; an `ended_early` trailer names the first tick not recorded and why; neither means the
  /// server was killed, crashed or is still recording.
  bool server_stopped = false;
  struct early_end {
    std::int64_t tick = 0;
    std::string reason;
  };
  std::optional<early_end> ended_early;
  /// protocol.md §8 state digests by tick (16 hex digits), and the dumps (compact JSON).
  std::map<std::int64_t, std::string> states;
  std::map<std::int64_t, std::string> state_dumps;
};

/// One line of an NDJSON text as the readers take it: numbered from 1, without its newline and a
/// trailing '\r'; `complete` is false for a last line without a newline (a cut write).
struct ndjson_line {
  std::size_t number = 0;
  std::string_view text;
  bool complete = true;
};
/// The next non-empty line of `rest` (consumed from it); `line_no` counts every line read.
std::optional<ndjson_line> next_ndjson_line(std::string_view& rest, std::size_t& line_no);

/// Parse a recording. A last line without a newline that does not parse is ignored (a crash
/// while writing); a damaged header (or none) is an error "line N: ..."; a later damaged line
/// ends the readable part and is described in `damage`.
core::result<recording, std::string> parse_recording(std::string_view text);
core::result<recording, std::string> read_recording(const std::filesystem::path& file);
/// Whether `file` starts like a recording (its header's `emote_sim_recording` member), as
/// opposed to a scenario or a scenario's output.
bool is_recording_file(const std::filesystem::path& file);

/// SHA-256 over content files, for the header's content_digest: the files the loader reads under
/// each root (content::discover_directory: `*.json`, ASCII case-insensitive, recursive, hidden
/// entries and directory symlinks skipped, a file reached twice once), named by its path
/// relative to its root ('/' separators; with several roots prefixed "<root index>/"),
/// in formats.md §1.1 discovery order (path after ASCII lower-casing, ties by the unmodified
/// path); per file: its path, a 0 byte, its size as 8 bytes big-endian, its bytes. Lower-case hex.
core::result<std::string, std::string>
content_digest(const std::vector<std::filesystem::path>& roots);

struct content_file {
  std::string path; ///< relative, '/' separators
  std::string bytes;
};
/// The digest of files already read (sorted here in discovery order).
std::string content_digest_of(std::vector<content_file> files);

/// content_digest() and each file's own digest, in discovery order.
struct content_manifest {
  std::string digest;
  std::vector<content_file_digest> files;
};
content_manifest content_manifest_of(std::vector<content_file> files);
core::result<content_manifest, std::string>
read_content_manifest(const std::vector<std::filesystem::path>& roots);

/// protocol.md §8: which files differ between two listings, as lines `  added: PATH`,
/// `  removed: PATH` (in `before`, not in `after`) and `  changed: PATH`, in discovery order;
/// at most `limit` lines, then `  ... and N more`. Empty when the listings are equal.
std::string describe_content_change(const std::vector<content_file_digest>& before,
                                    const std::vector<content_file_digest>& after,
                                    std::size_t limit = 20);
/// The configuration keys (protocol.md §10) that say where and how a server ran, not what it
/// simulates: `emotes` (a path; the content is compared by digest), `listen`, `clock`, `tps`,
/// `metrics`, `http`, `record`, `record_frames`, `record_state_every`. `diff` ignores them and
/// `record-to-scenario` does not copy them into a scenario's `config` (protocol.md §8).
[[nodiscard]] bool run_only_config_key(std::string_view key) noexcept;

/// A header's configuration object without the run-only keys (compact JSON; the text itself when
/// it is not an object).
std::string simulation_config_json(std::string_view config_json);

/// The simulation keys (dotted, `limits.max_line_bytes`) whose values differ between two
/// configuration objects, as lines `  KEY: A VALUE, B VALUE` (`(absent)` for a missing key), in
/// A's key order then B's extra keys. Empty when they agree.
std::string describe_config_change(std::string_view a_json, std::string_view b_json);

/// The line said instead when a recording's header does not list its files.
inline constexpr std::string_view content_files_unlisted =
    "content differs; this recording does not list its files";

} // namespace emote::protocol
