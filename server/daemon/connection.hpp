#pragma once
// One client connection (protocol.md §1): an NDJSON line reader with the line limit, an outbound
// queue of shared, already-encoded lines with one write in flight and a byte budget, and inbound
// flow control. It knows nothing of the protocol's messages: complete lines go to a
// `connection_handler`, and the handler sends lines back.
//
// Everything runs on the one thread that runs the io_context (see server/README.md), so there
// are no locks; async handlers keep the object alive through shared_from_this.

#include "engine/core/enum_names.hpp"

#include <boost/asio/generic/stream_protocol.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace emote::server {

/// An encoded line (with its trailing '\n') shared by every connection it is sent to.
using shared_line = std::shared_ptr<const std::string>;

inline shared_line make_line(std::string text) {
  if (text.empty() || text.back() != '\n') {
    text.push_back('\n');
  }
  return std::make_shared<const std::string>(std::move(text));
}

class connection;

/// Receives what a connection reads. Called on the io_context thread.
class connection_handler {
public:
  /// A complete line without its "\n" (and without a preceding "\r"). Blank lines are skipped.
  virtual void on_line(connection& c, std::string line) = 0;
  /// A line longer than the limit was discarded up to its newline.
  virtual void on_line_too_long(connection& c) = 0;
  /// The peer finished sending (EOF). The connection still writes until closed.
  virtual void on_eof(connection& c) = 0;
  /// The connection is closed; called exactly once, after which nothing is sent any more.
  virtual void on_closed(connection& c) = 0;

protected:
  ~connection_handler() = default;
};

struct connection_limits {
  std::size_t max_line_bytes = 1048576;
  std::size_t max_inbound_messages = 65536;
  std::size_t max_inbound_bytes = 67108864;
  std::size_t max_outbound_bytes = 16777216;
  /// How long a closing connection may take to flush its last lines.
  std::chrono::milliseconds linger{2000};
};

struct connection_stats {
  std::uint64_t bytes_in = 0;
  std::uint64_t bytes_out = 0;
  std::uint64_t lines_in = 0;
  std::uint64_t frames_dropped = 0; ///< lossy drops, total
};

/// Why a connection closed: the first decision to close it wins, and the hub logs it once when the
/// connection has closed.
enum class close_reason : std::uint8_t {
  peer,            ///< the client closed or the socket failed
  bye,             ///< the client said bye, or left after its end of stream
  max_connections, ///< refused at accept
  bad_hello,       ///< the first line was not a valid hello
  unauthorized,    ///< hello without the role's token
  line_too_long,   ///< before hello
  hello_timeout,
  slow_consumer,
  server_stopping,
  idle_timeout, ///< said hello, then neither subscribed nor sent anything for too long
  evicted,      ///< pending: the oldest, closed to make room for a new connection
};
inline constexpr core::enum_names<close_reason, 11> close_reason_names{
    {"closed by the peer", "bye", "max_connections", "bad hello", "unauthorized", "line too long",
     "hello_timeout", "slow_consumer", "server_stopping", "idle_timeout",
     "evicted (the oldest pending connection)"}};

class connection : public std::enable_shared_from_this<connection> {
public:
  using socket_type = boost::asio::generic::stream_protocol::socket;

  enum class send_result : std::uint8_t {
    queued,
    dropped,       ///< lossy frame dropped; counted for the next delivered frame
    slow_consumer, ///< over budget: the connection is now closing with bye slow_consumer
    closed,        ///< the connection is closing or closed; nothing was queued
  };

  connection(socket_type socket, connection_handler& handler, const connection_limits& limits,
             std::uint64_t id, std::string peer);
  ~connection();
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;

  /// Start reading. `hello_timeout` > 0 closes the connection unless `hello_done()` is called in
  /// time.
  void start(std::chrono::milliseconds hello_timeout);
  /// Hello was received: `idle_timeout` > 0 closes the connection with `bye` `idle_timeout` once
  /// that long passes without anything read, until `stop_idle_watch()` (protocol.md §2).
  void hello_done(std::chrono::milliseconds idle_timeout = std::chrono::milliseconds(0));
  /// The connection has a reason to be quiet (it subscribed): no idle timeout any more.
  void stop_idle_watch();

  /// Queue a line that must not be lost (welcome, replies, errors). Over the budget the
  /// connection is closed as a slow consumer.
  send_result send(const shared_line& line);

  /// Queue a frame line. A lossy connection drops whole frames over the budget and prefixes the
  /// next frame it delivers with `"dropped":N`; others are closed as slow consumers.
  send_result send_frame(const shared_line& line, bool lossy);

  /// Stop reading, send `last` (if any) after what is queued, then close; `why` is kept unless a
  /// reason was already given.
  void close_after(const shared_line& last, close_reason why);
  /// Close at once; queued output is discarded.
  void close_now();

  /// The handler applied one line it had received (`bytes` = its length, plus what hold() added
  /// for it): reading resumes when the unapplied backlog is back within the limits.
  void applied(std::size_t bytes);
  /// The handler keeps `bytes` more for the line it was just given than the line's own length
  /// (its decoded form, protocol.md §1): they count toward limits.max_inbound_bytes until
  /// applied() gives them back.
  void hold(std::size_t bytes) noexcept { unapplied_bytes_ += bytes; }

  [[nodiscard]] std::uint64_t id() const noexcept { return id_; }
  [[nodiscard]] const std::string& peer() const noexcept { return peer_; }
  [[nodiscard]] bool open() const noexcept { return state_ == state::open; }
  [[nodiscard]] bool reading_paused() const noexcept { return read_paused_; }
  [[nodiscard]] std::size_t queued_bytes() const noexcept { return queued_bytes_; }
  [[nodiscard]] std::size_t unapplied_messages() const noexcept { return unapplied_messages_; }
  [[nodiscard]] const connection_stats& stats() const noexcept { return stats_; }
  [[nodiscard]] bool closed_as_slow_consumer() const noexcept {
    return why_ == close_reason::slow_consumer;
  }
  /// Why it is closing or closed (close_reason::peer until a reason is given).
  [[nodiscard]] close_reason why_closed() const noexcept {
    return why_.value_or(close_reason::peer);
  }

private:
  enum class state : std::uint8_t { open, closing, closed };
  struct out_item {
    shared_line line;
  };

  void do_read();
  void on_read(const boost::system::error_code& ec, std::size_t n);
  void consume(const char* data, std::size_t n);
  void deliver_line();
  [[nodiscard]] bool over_inbound_limits() const noexcept;
  void enqueue(shared_line line);
  void do_write();
  void on_write(const boost::system::error_code& ec, std::size_t n);
  void slow_consumer();
  /// protocol.md §1: a consumer is behind when what waits behind the write in progress exceeds
  /// the budget. A consumer within it always gets the next message, however large: a prompt
  /// reader is never cut for one reply or frame (waiting bytes stay below the budget plus one
  /// message, besides the write in progress).
  [[nodiscard]] bool over_budget() const noexcept {
    return queued_bytes_ - in_flight_bytes_ > limits_.max_outbound_bytes;
  }
  /// A lossy subscriber's frame is queued only when it fits in the budget (else it is dropped),
  /// so what is waiting never keeps the replies out.
  [[nodiscard]] bool fits(std::size_t bytes) const noexcept {
    return queued_bytes_ - in_flight_bytes_ + bytes <= limits_.max_outbound_bytes;
  }
  void finish_close();
  void arm_idle();

  socket_type socket_;
  connection_handler& handler_;
  connection_limits limits_;
  std::uint64_t id_;
  std::string peer_;
  state state_ = state::open;

  // reading
  std::array<char, 65536> read_buf_{};
  std::string line_;
  bool discarding_ = false;
  bool reading_ = false;
  bool read_paused_ = false;
  bool eof_ = false;
  std::size_t unapplied_messages_ = 0;
  std::size_t unapplied_bytes_ = 0;

  // writing
  std::deque<out_item> out_;
  std::size_t in_flight_ = 0;       ///< items of out_ being written
  std::size_t in_flight_bytes_ = 0; ///< their bytes
  bool writing_ = false;
  std::size_t queued_bytes_ = 0;
  std::uint64_t pending_dropped_ = 0;
  std::optional<close_reason> why_;

  boost::asio::steady_timer hello_timer_; ///< the hello timeout, then the idle timeout
  std::chrono::milliseconds idle_{0};
  std::chrono::steady_clock::time_point last_read_;
  boost::asio::steady_timer linger_timer_;
  connection_stats stats_;
};

/// The final line sent to a slow consumer.
const shared_line& slow_consumer_bye();

} // namespace emote::server
