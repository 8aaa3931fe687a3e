#pragma once
// `emote-sim shrink` (docs/guide/qa.md "Shrink a recording to a scenario"): delta debugging
// (ddmin) of a recording's inputs down to a 1-minimal set that still meets given expectations.
//
// The units are the recorded input lines that become script entries (protocol/
// recording_scenario.hpp): each scripted message, and each disconnect (the `player.leave`s it
// stands for, one unit). The connection structure needs no unit of its own: hello, bye,
// subscribe and clock.step are not scripted, a removed disconnect leaves its connection open to
// the end, and a disconnect's leave of a player no kept entry joined is dropped with it. A
// candidate is run as `emote-sim run` runs the scenario (a fresh host per run, in process), so
// the written scenario passes `run` by construction. Deterministic: the same recording and
// expectations give the same result.

#include "engine/core/result.hpp"
#include "protocol/recording_scenario.hpp"
#include "protocol/runner.hpp"
#include "protocol/scenario.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace emote::server {

struct shrink_result {
  std::vector<protocol::script_entry> script; ///< the minimal script, in order
  std::size_t units_before = 0;               ///< recorded input lines at the start
  std::size_t units_after = 0;                ///< those kept
  std::size_t runs = 0;                       ///< scenario runs (distinct candidates)
  /// The script's ticks were moved this many ticks earlier (docs/guide/qa.md): the first kept
  /// input lands in the first 20 ticks, at its tick modulo 20, when the expectations name no
  /// tick and the moved scenario still meets them. 0 when not moved.
  std::int64_t tick_offset = 0;
  std::int64_t ticks = 0;  ///< the scenario's `ticks` for `script`
  std::string not_rebased; ///< why the ticks were not moved, when they could have been
};

/// Shrink `c`'s script against `base` (its engine, ticks and expectations; its script is
/// ignored). Fails with the unmet expectations when the whole recording does not meet them.
core::result<shrink_result, std::string> shrink_script(const protocol::converted_recording& c,
                                                       const protocol::scenario& base,
                                                       const protocol::host_factory& make_host);

/// The expectations as an `expect` array text (one per line), as they were written.
std::string expect_array_text(const protocol::expectation_set& set);

} // namespace emote::server
