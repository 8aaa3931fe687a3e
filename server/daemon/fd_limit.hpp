#pragma once
// The process's descriptor limit and the connection caps that fit in it (protocol.md §10): at
// start `serve` raises the soft RLIMIT_NOFILE to the hard limit, then derives how many line and
// HTTP connections and gate connection pairs it may hold so that they never exceed it, keeping
// headroom for the listeners, files and the line listener's next accept (a controller must always
// find one).

#include <cstddef>
#include <cstdint>

namespace emote::server {

struct descriptor_limit {
  std::uint64_t before = 0; ///< the soft limit found at start
  std::uint64_t soft = 0;   ///< the soft limit now
  std::uint64_t hard = 0;
};

/// Raise the soft descriptor limit to the hard one (the soft one is kept when that fails).
descriptor_limit raise_descriptor_limit();

/// Descriptors kept free of connections: listeners, the event loop, log and recording files,
/// content reloads and the next accept.
inline constexpr std::uint64_t descriptor_headroom = 64;
/// Descriptors one HTTP connection may use: its socket, and for a WebSocket the two ends of the
/// socket pair that bridges it to the hub.
inline constexpr std::uint64_t descriptors_per_http_connection = 3;

/// Descriptors one gate connection pair uses: the client's socket and the backend's.
inline constexpr std::uint64_t descriptors_per_gate_pair = 2;

struct connection_caps {
  std::int64_t line = 0; ///< hub connections (limits.max_connections)
  std::size_t http = 0;  ///< connections of each HTTP listener
  std::size_t gate = 0;  ///< connection pairs of each gate (limits.gate_max_connections)
  bool lowered = false;  ///< one of them is below what was asked
};

/// The caps that fit `limit` descriptors: `line` line connections (1 descriptor each),
/// `http_listeners` listeners of `http` connections each (3 each) and `gates` gates of `gate`
/// pairs each (2 each) when they fit in the limit less the headroom; else the gates keep up to
/// half of what is left, shared equally (gate.md §1), then line connections keep up to half of
/// the rest and the HTTP listeners share what remains, at least 1 of each.
connection_caps fit_connection_caps(std::uint64_t limit, std::int64_t line, std::size_t http,
                                    std::size_t http_listeners, std::size_t gate = 0,
                                    std::size_t gates = 0);

} // namespace emote::server
