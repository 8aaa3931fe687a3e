#pragma once
// Replaying a recording (protocol.md §8) against a simulation: the recorded messages are applied
// at their ticks exactly as the server applied them (server/daemon/dispatch), every tick is
// stepped, and each recomputed frame is compared with the recorded digest (and frame, when
// recorded).

#include "protocol/recording.hpp"
#include "protocol/runner.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace emote::server {

/// The first index at which two lists differ, as two lines
/// `  WHAT i of n A_NAME: x` / `  WHAT i of m B_NAME: y` (`(none)` past a list's end); "" when
/// the lists are equal.
std::string describe_first_difference(std::string_view what, const std::vector<std::string>& a,
                                      const std::vector<std::string>& b, std::string_view a_name,
                                      std::string_view b_name);
/// The first differing event of two frame lines (their `events`), as describe_first_difference
/// gives it; both lines whole when one is not a frame. `b` empty: a tick without output.
std::string describe_event_diff(const std::string& a, const std::string& b, std::string_view a_name,
                                std::string_view b_name);

struct replay_divergence {
  std::int64_t tick = 0;
  std::string recorded_digest;               ///< empty: the recording has no output for this tick
  std::string replayed_digest;               ///< empty: the replay produced no output for this tick
  std::optional<std::string> recorded_frame; ///< with --record-frames
  std::string replayed_frame;                ///< empty when the replay produced no output
  /// Human-readable lines naming the first differing events (empty without recorded frames),
  /// or the recorded and replayed reply.
  std::string details;
  /// A reply differed (protocol.md §8): the connection it was sent on; the digests are empty.
  std::optional<std::int64_t> reply_conn;
};

/// The first tick whose state digest differs from the recorded one (protocol.md §8).
struct state_divergence {
  std::int64_t tick = 0;
  std::string recorded_digest;
  std::string replayed_digest;
  /// The recorded dump the replayed state was compared with: the first at or after `tick`
  /// (both states of that same tick), else the last before it; -1 when the recording has none.
  std::int64_t dump_tick = -1;
  /// The replayed state's tick in that comparison (`dump_tick`, or `tick` for an earlier dump).
  std::int64_t compared_tick = -1;
  /// Readable lines `  PATH: recorded X, replayed Y` (json/state_json.hpp).
  std::string details;
};

struct replay_result {
  std::int64_t ticks = 0; ///< ticks replayed
  std::optional<replay_divergence> divergence;
  std::optional<state_divergence> state;
  std::int64_t states_compared = 0; ///< ticks whose recorded state digest was checked
};

/// Replay `r` on `host` (fresh, built from the header's seed and config); the server's own
/// disconnect (conn 0) is the host's shutdown() (every playback stops with SERVER_STOPPING).
/// Every recorded state digest is compared with the replayed state's; after the first that
/// differs the replay goes on (the output may still agree): the next recorded dump describes
/// the difference (else the last one before it); the replay stops at the first output
/// divergence or the recording's end.
/// `on_frame`, when set, receives each replayed frame line with events (unfiltered, with
/// matrices, without newline), up to the first divergence.
using frame_sink = std::function<void(std::int64_t tick, const std::string& line)>;
replay_result replay_recording(const protocol::recording& r, protocol::sim_host& host,
                               const frame_sink& on_frame = {});

} // namespace emote::server
