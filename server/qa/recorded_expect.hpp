#pragma once
// The expectations record-to-scenario writes (docs/guide/qa.md "record-to-scenario
// expectations"): what the recorded session did, as protocol.md §7 expectations, so the generated
// scenario passes on the recording's build and fails when the behaviour changes.
//
//   all        every recorded reply's outcome ({"reply":ID,"tick":N,"ok":true} or
//              {"reply":ID,"tick":N,"ok":false,"error":{"code":C}}) and the lifecycle below
//   lifecycle  every playback.* and partner.* event at its tick ({"event":TYPE,...its fields,
//              "tick":N}) and their totals ({"count":{"event":"playback."},"equals":N}, the same
//              for "partner."), without the replies
//   none       []
//
// The events come from replaying the recording in process (server/qa/replay.hpp): a recording made
// without frames holds digests only.

#include "engine/core/result.hpp"
#include "protocol/recording.hpp"
#include "protocol/recording_scenario.hpp"
#include "protocol/runner.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace emote::server {

enum class expect_level : std::uint8_t { none, lifecycle, all };

[[nodiscard]] std::optional<expect_level> parse_expect_level(std::string_view text) noexcept;

/// The `expect` array (JSON text, one expectation per line) for `c`, converted from `r`. Replays
/// `r` on `host` (fresh, built from the header) unless `level` is none; a replay that diverges is
/// an error (the recording does not describe this build's behaviour).
core::result<std::string, std::string> recorded_expectations(const protocol::recording& r,
                                                             const protocol::converted_recording& c,
                                                             protocol::sim_host& host,
                                                             expect_level level);

} // namespace emote::server
