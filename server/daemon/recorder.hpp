#pragma once
// `serve --record FILE` (protocol.md §8): the header, connects and disconnects, every applied
// client message and one digest (or the whole frame) per tick with output. Lines are gathered
// during a tick and written and flushed at its end, so a crash leaves whole ticks plus at most one
// truncated line, which replay ignores. Lines of a tick that never ran (inputs that arrived after
// the last tick, connections closing as the server goes away) are not written.
//
// A write that fails (a full disk) stops recording: the file is cut back to its last whole tick
// and marked with `{"tick":N,"ended_early":{"reason":R}}` (N: the first tick not recorded), so
// replay says the recording ended early instead of "identical" (protocol.md §8).
//
// The server stopping (SIGINT/SIGTERM) is recorded as a disconnect of connection 0, the server
// itself: replay stops every playback with SERVER_STOPPING at that tick.

#include "engine/core/result.hpp"
#include "protocol/recording.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace emote::server {

/// Connection id of the server itself in recordings (its disconnect = shutdown).
inline constexpr std::uint64_t server_conn = 0;

class recorder {
public:
  /// Create `file` and write the header. A file already there is never overwritten: it is renamed
  /// to the first free `FILE.1`, `FILE.2`, ... (`kept()`), and the rename is logged.
  static core::result<std::unique_ptr<recorder>, std::string>
  open(const std::filesystem::path& file, const protocol::recording_header& header,
       bool with_frames);
  ~recorder();
  recorder(const recorder&) = delete;
  recorder& operator=(const recorder&) = delete;

  void connect(std::int64_t tick, std::uint64_t conn, std::string_view role,
               std::string_view client);
  void disconnect(std::int64_t tick, std::uint64_t conn);
  void message(std::int64_t tick, std::uint64_t conn, std::string_view record_json);
  /// The reply line sent for the message just recorded (protocol.md §8).
  void reply(std::int64_t tick, std::uint64_t conn, std::string_view reply_line);
  /// The frame line as an unfiltered subscriber with matrices receives it (digested), and the
  /// same with packets (stored when recording frames; render.md §6).
  void frame(std::int64_t tick, std::string_view frame_line, std::string_view with_packets,
             std::optional<std::string_view> state = std::nullopt);
  /// The state digest of a tick that had no frame line, and a state dump (protocol.md §8).
  void state(std::int64_t tick, std::string_view digest_hex);
  void state_dump(std::int64_t tick, std::string_view dump_json);
  /// A full state dump every `every` ticks (config `record_state_every`; 0: none).
  void set_state_every(std::int64_t every) noexcept { state_every_ = every; }
  [[nodiscard]] bool dump_due(std::int64_t tick) const noexcept {
    return state_every_ > 0 && tick % state_every_ == 0;
  }
  [[nodiscard]] bool with_frames() const noexcept { return with_frames_; }
  /// Write what was gathered to the operating system. False after a write error: the error is
  /// logged once, the file cut back to its last whole tick and marked ended early, and recording
  /// stops.
  bool flush();
  /// Recording stopped after a write error (metric `emote_sim_recording_failed`).
  [[nodiscard]] bool failed() const noexcept { return failed_; }
  /// Test hook: the next write stores only its first `stored` bytes and then fails with `error`
  /// (as a full disk does); the trailer's write after it fails too when `trailer_fails`.
  void fail_next_write_for_test(int error, std::size_t stored,
                                bool trailer_fails = false) noexcept {
    injected_ = injected_failure{error, stored, trailer_fails};
  }

  [[nodiscard]] const std::filesystem::path& file() const noexcept { return file_; }
  [[nodiscard]] std::uint64_t bytes_written() const noexcept { return written_; }
  /// Where the recording previously at file() was kept; empty when there was none.
  [[nodiscard]] const std::filesystem::path& kept() const noexcept { return kept_; }

private:
  recorder(int fd, std::filesystem::path file, bool with_frames);
  /// Notes the tick of a record about to be appended; false once recording has stopped.
  bool take(std::int64_t tick) noexcept {
    pending_tick_ = tick;
    return !failed_;
  }
  /// write(2) all of `bytes`; 0 or the error number.
  int write_all(std::string_view bytes);
  struct injected_failure {
    int error = 0;
    std::size_t stored = 0;
    bool trailer_fails = false;
  };
  int fd_;
  std::filesystem::path file_;
  std::filesystem::path kept_;
  bool with_frames_;
  bool failed_ = false;
  std::string pending_;
  std::uint64_t written_ = 0;     ///< bytes of whole ticks in the file
  std::int64_t pending_tick_ = 0; ///< the tick of what is pending (its last record's)
  std::optional<injected_failure> injected_;
  std::int64_t state_every_ = 100;
};

/// The first of `FILE.1`, `FILE.2`, ... that does not exist.
std::filesystem::path kept_recording_path(const std::filesystem::path& file);

/// The current UTC time as ISO 8601 with seconds (`2026-01-31T12:00:00Z`), for the header.
std::string iso8601_now();

} // namespace emote::server
