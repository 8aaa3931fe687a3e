#pragma once
// `emote-sim diff A B` (protocol.md §8): two recordings, or two scenario outputs, of the same
// inputs compared tick by tick without running anything: the first tick where the inputs, the
// replies, the output or the state differ, with what differs.

#include "engine/core/result.hpp"
#include "protocol/recording.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace emote::server {

/// What one tick of a file holds, as diff compares it.
struct diff_tick {
  std::vector<std::string> inputs;  ///< connects, messages, disconnects (`conn C ...`)
  std::vector<std::string> replies; ///< `conn C {...}` (recordings) or the reply line
  std::string output;               ///< the frame's digest; empty: no output at this tick
  std::optional<std::string> frame; ///< the frame line, when the file holds it
  std::string state;                ///< the state digest; empty: not recorded
};

/// One file, tick by tick.
struct diff_timeline {
  bool recording = false; ///< else a scenario output (`run --out`, `bot --out`)
  protocol::recording_header header;
  std::map<std::int64_t, diff_tick> ticks;
  std::map<std::int64_t, std::string> state_dumps;
  std::int64_t last_tick = -1;
  /// `FILE:LINE:COLUMN: message` of a damaged line; the ticks from its last tick on are dropped.
  std::string damage;
  /// Why the file may stop before the session did (a cut last line, an early end, no end);
  /// empty when it ends normally.
  std::string incomplete;
};

/// The timeline of a parsed recording.
diff_timeline timeline_of(const protocol::recording& r);
/// Read FILE: a recording (its first line is a recording header; protocol::read_recording) or a
/// scenario output (reply and frame lines). Fails when the file cannot be read or its header is
/// unreadable; a damaged later line is kept in `damage`.
core::result<diff_timeline, std::string> read_timeline(const std::filesystem::path& file);
/// A scenario output's text; `file` names it in `damage`.
diff_timeline parse_output_timeline(std::string_view text, std::string_view file);

struct diff_report {
  /// The first tick where anything differs; empty when the compared ticks are identical.
  std::optional<std::int64_t> tick;
  /// The first tick of each kind of difference (absent: none): inputs, replies, output, state.
  std::optional<std::int64_t> inputs_tick, replies_tick, output_tick, state_tick;
  std::int64_t ticks_compared = 0;
  /// Everything to print: notes on the headers, the verdict line, then each difference.
  std::string text;
  /// 0 identical, 1 diverged (or not comparable to the end: damaged, one stops early).
  int status = 0;
};

/// Compare `a` and `b` (named `a_file`, `b_file` in the text; "A" and "B" below them).
diff_report diff_timelines(const diff_timeline& a, const diff_timeline& b, std::string_view a_file,
                           std::string_view b_file);

} // namespace emote::server
