#pragma once
// `emote-sim stress --over tcp|unix`: the stress test's recipients as real readers on the other
// end of loopback TCP or Unix domain socket connections.
//
// The server side is the real `server::connection` (protocol.md §1: one write in flight, the
// outbound byte budget, slow consumers closed with `bye slow_consumer`) on an io_context run by
// the driver's own thread, as `serve` runs the Engine and its connections on one thread
// (server/README.md): each tick the driver hands the frame line to every connection (asio tries
// the first write at once, so this includes the write system calls that fit in the socket
// buffers), and while it waits for the next tick's deadline the connections write the rest. The
// readers run on a thread of their own: they read every byte, cut the stream into lines and
// checksum each line as the in-memory recipients do (stream_recipient), so a reader's checksum
// equals the in-memory run's when it got every byte.

#include "engine/core/enum_names.hpp"
#include "engine/core/result.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace emote::server {

enum class stress_over : std::uint8_t { tcp, unix_socket };
inline constexpr core::enum_names<stress_over, 2> stress_over_names{{"tcp", "unix"}};

struct socket_fanout_options {
  stress_over over = stress_over::tcp;
  std::size_t readers = 1; ///< connections, one reader each (at least 1)
  /// The connections' outbound budget (`limits.max_outbound_bytes`, protocol.md §1).
  std::size_t max_outbound_bytes = 16777216;
  /// How long a closing connection may take to flush (connection_limits::linger).
  std::chrono::milliseconds linger{2000};
  /// The last `stalled_readers` readers connect but read nothing until the run has ended: the
  /// outbound budget closes them as slow consumers (for tests of the budget).
  std::size_t stalled_readers = 0;
  /// SO_SNDBUF on the server's sockets and SO_RCVBUF on the readers'; 0 keeps the system's.
  int socket_buffer_bytes = 0;
  bool simd = true; ///< readers checksum with AVX2/AVX-512 when the CPU has them
};

struct socket_reader_total {
  std::uint64_t checksum = 0; ///< as recipient::checksum()
  std::uint64_t bytes = 0;
  std::uint64_t lines = 0;
};

struct socket_fanout_totals {
  std::vector<socket_reader_total> readers; ///< in connection order
  std::size_t slow_consumers = 0;           ///< connections closed as slow consumers
};

/// Not thread-safe: open(), send(), run_until() and finish() are called from one thread, which
/// runs the server's connections.
class socket_fanout {
public:
  /// Listen on an ephemeral loopback TCP port or a Unix socket in a new temporary folder, connect
  /// the readers and wait until every connection is accepted. Errors are one sentence.
  static core::result<std::unique_ptr<socket_fanout>, std::string>
  open(const socket_fanout_options& options);

  virtual ~socket_fanout() = default;

  [[nodiscard]] virtual stress_over over() const noexcept = 0;
  [[nodiscard]] virtual std::size_t readers() const noexcept = 0;

  /// Send one frame line, given as consecutive pieces (ending with '\n'), to every open
  /// connection; returns once each has queued it or refused it (closed, over budget).
  virtual void send(std::span<const std::string_view> pieces) = 0;

  /// Let the connections write (and close) until `t`; returns at `t`, or at once when it is past
  /// after doing what is ready (the driver's wait between ticks).
  virtual void run_until(std::chrono::steady_clock::time_point t) = 0;

  /// Close every connection after it has written what it queued (at most `linger` each), let
  /// every reader read to the end and stop. Call once; send() must not follow.
  virtual socket_fanout_totals finish() = 0;
};

} // namespace emote::server
