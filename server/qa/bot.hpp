#pragma once
// `emote-sim bot`: a scenario (protocol.md §7) played against a live server over one controller
// connection. The server must run a manual clock: the bot sends each tick's script entries, then
// `clock.step` up to the next scripted tick, and collects replies and frames (subscribed
// unfiltered, with matrices, like `run`'s output). The expectations are checked with the protocol
// library's checker, with ticks relative to the server's tick when the bot began.

#include "protocol/scenario.hpp"
#include "settings/listen_address.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace emote::server {

using settings::listen_address;

struct bot_options {
  listen_address address;
  std::optional<std::string> token;
  std::chrono::milliseconds timeout{60000}; ///< per clock.step round trip
};

struct bot_result {
  std::string output; ///< reply and frame lines as received (newline-terminated)
  std::int64_t base_tick = 0;
  bool passed = false;
  std::string failure; ///< every unmet expectation (protocol::describe_unmet), or why the run could
                       ///< not happen
};

bot_result run_bot(const protocol::scenario& s, const bot_options& options);

} // namespace emote::server
