#pragma once
// The server core: accepts connections, runs the hello handshake (roles, tokens), queues what
// clients send and hands it to the simulation at tick boundaries, runs the clock (realtime or
// manual), encodes each frame once per distinct subscription filter and fans the shared bytes
// out, records, counts metrics, and shuts down gracefully.
//
// Threading: everything here runs on the one thread that runs the io_context, so the simulation
// has a single owner and nothing is locked (server/README.md explains why that is enough).
//
// Tick boundaries: on a realtime clock the queue is applied at the start of every tick, right
// before the engine steps; on a manual clock it is applied as it arrives, except while a
// `clock.step` runs (later messages wait until its ticks have run).

#include "protocol/decode.hpp"
#include "protocol/encode.hpp"
#include "protocol/runner.hpp"
#include "server/daemon/connection.hpp"
#include "server/daemon/dispatch.hpp"
#include "server/daemon/listener.hpp"
#include "server/daemon/log_limit.hpp"
#include "server/daemon/login_throttle.hpp"
#include "server/daemon/metrics.hpp"
#include "server/daemon/recorder.hpp"
#include "server/daemon/tick_schedule.hpp"
#include "settings/config.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace emote::server {

using settings::auth_config;
using settings::clock_mode;
using settings::limits_config;
using settings::listen_address;

struct hub_settings {
  clock_mode clock = clock_mode::realtime;
  std::int32_t tps = 20;
  auth_config auth;
  limits_config limits;
  std::chrono::milliseconds hello_timeout{5000};
  /// After hello, until the connection subscribes: closed after this long without a line
  /// (serve sets it from limits.idle_timeout_seconds; 0: never).
  std::chrono::milliseconds idle_timeout{120000};
  std::chrono::milliseconds linger{2000}; ///< how long closing connections may flush
  std::int64_t max_behind = 40;           ///< realtime: skip deadlines beyond this many ticks
  /// How frames without matrices use the transform-text memo (the engine configuration's).
  core::cache_options caches;
};

/// How many connections observers may hold (protocol.md §2): max_connections minus
/// reserved_controller_connections, at least 1.
std::int64_t observer_slots(const limits_config& limits) noexcept;

/// How many connections may wait for their hello at once (protocol.md §2): the configured
/// limits.max_pending_connections, at most observer_slots (below the controllers' reservation).
std::int64_t pending_cap(const limits_config& limits) noexcept;

/// Constant-time equality for secrets: the time depends only on the lengths.
bool constant_time_equal(std::string_view a, std::string_view b) noexcept;

class hub final : public connection_handler {
public:
  hub(boost::asio::io_context& io, hub_settings settings, protocol::sim_host& host,
      server::metrics& metrics, recorder* rec);
  ~hub();
  hub(const hub&) = delete;
  hub& operator=(const hub&) = delete;

  /// Open a listener on each address; the error names the address.
  std::optional<std::string> listen(const std::vector<listen_address>& addresses);
  /// The bound addresses (real ports), in `listen` order.
  [[nodiscard]] std::vector<listen_address> bound() const;

  /// A new connection: the listeners' accepted sockets, and the HTTP listener's WebSocket
  /// bridges (server/daemon/http_listener.hpp), which run the same hello and role rules.
  void accept(connection::socket_type socket, std::string peer);

  /// Start the realtime clock (a manual clock needs nothing).
  void start();

  /// Graceful stop (protocol.md §11): stop accepting, apply what was received, stop every
  /// playback with SERVER_STOPPING, send that last frame, flush the recording, say bye and close
  /// every connection; `done` runs once every connection is closed (at most `linger` later).
  void stop(std::function<void()> done);
  [[nodiscard]] bool stopping() const noexcept { return stopping_; }

  /// The metrics text for GET /metrics (gauges refreshed).
  std::string render_metrics();

  // In-process clients (the gate, gate.md §4, §9): a controller without a socket whose lines go
  // through the same queue, dispatch, metrics and recording as a socket client's; `on_line`
  // receives its replies. The players it joins are refused to every other connection's
  // player.* ops (error forbidden, gate.md §9).
  std::uint64_t attach_internal(std::string name, std::function<void(std::string_view)> on_line);
  void internal_line(std::uint64_t id, std::string line);
  /// Called after every tick with what it produced (the gate writes its packets to its players);
  /// `wants_packets` says before each tick whether it will read them (render.md §6; none: yes).
  void on_tick(std::function<void(const protocol::tick_output&)> f,
               std::function<bool()> wants_packets = {}) {
    on_tick_ = std::move(f);
    on_tick_wants_ = std::move(wants_packets);
  }
  /// Whether anyone will receive the next tick's packets: a packets subscriber, a recording with
  /// frames, or the on_tick listener (render.md §6). The renderer builds none otherwise.
  [[nodiscard]] bool packets_wanted() const;

  [[nodiscard]] std::size_t connection_count() const noexcept { return clients_.size(); }
  /// Bytes queued for writing over every open connection (bounded by the outbound budgets).
  [[nodiscard]] std::size_t queued_outbound_bytes() const noexcept;

  // connection_handler
  void on_line(connection& c, std::string line) override;
  void on_line_too_long(connection& c) override;
  void on_eof(connection& c) override;
  void on_closed(connection& c) override;

private:
  struct client {
    std::uint64_t id = 0;
    std::shared_ptr<connection> conn; ///< null once closed
    bool hello = false;
    protocol::client_role role = protocol::client_role::controller;
    std::string name;
    std::string address; ///< peer_address of the peer: the key of the per-address caps
    std::optional<protocol::subscription> sub;
    bool disconnected = false; ///< its disconnect was applied (players left)
    /// A packets subscription not yet brought up to date (render.md §4 rule 6).
    bool snapshot_pending = false;
    std::optional<api::tick_number> last_snapshot;
    std::function<void(std::string_view)> internal; ///< an in-process client's reply sink
  };
  using decoded_line = core::result<protocol::request, protocol::decode_failure>;
  struct inbound {
    enum class kind : std::uint8_t { line, too_long, eof, closed };
    std::uint64_t conn = 0;
    inbound::kind type = kind::line;
    std::size_t bytes = 0; ///< what it holds, for the connection's flow control (queue_line)
    /// A line, decoded as it arrived: decoding depends on nothing but the line, so the tick only
    /// applies what was decoded while it waited.
    std::optional<decoded_line> decoded;
  };
  /// Queue a line of a client that said hello, decoded now; returns the bytes it holds.
  std::size_t queue_line(std::uint64_t id, const std::string& line);

  void handle_hello(client& cl, const std::string& line);
  /// Close the oldest connection still waiting for its hello (of `address` when given), if any.
  void evict_oldest_pending(const std::string* address);
  /// A pending connection said hello or closed.
  void pending_done(client& cl);
  void schedule_drain();
  void drain();
  void process(inbound item);
  void handle_request(client& cl, const decoded_line& decoded);
  void disconnect(client& cl, close_reason why);
  void forget_if_done(std::uint64_t id);

  void arm_timer();
  void on_timer();
  void run_tick();
  /// This tick's frame for `cl` with its snapshot after the tick's entries (render.md §4 rule 6).
  void send_with_snapshot(client& cl, const protocol::tick_output& t,
                          const protocol::frame_packets& snapshot);
  /// render.md §4 rule 6: at most one snapshot per connection per this many ticks.
  static constexpr api::tick_number snapshot_window = 20;
  void continue_steps();

  void send(client& cl, std::string text);
  void note(const connection& c, connection::send_result r);
  /// An error reply; `about` names the request's op and subject (protocol.md §3).
  void send_error(client& cl, const protocol::request_id& id, const api::error& err,
                  const protocol::error_subject* about = nullptr);
  /// Answer `err` and close the connection (a failed hello, a line too long before hello).
  void refuse(client& cl, const protocol::request_id& id, const api::error& err, close_reason why,
              const protocol::error_subject* about = nullptr);
  /// The one place replies are counted and logged: error replies by code, reloads and failures.
  void account(const client& cl, const protocol::request* r, const protocol::outcome& o);
  /// The one place a closed connection is logged, with why it closed; one that never said hello
  /// through limited_log.
  void log_closed(const connection& c, bool welcomed);
  /// protocol.md §2: whether to log a refusal of `peer` now (at most one line per address per
  /// 10 s; the others are counted), with the text that says how many it stands for.
  std::optional<std::string> limited_log(const std::string& peer,
                                         std::chrono::steady_clock::time_point now);
  void check_stopped();

  boost::asio::io_context& io_;
  hub_settings settings_;
  protocol::sim_host& host_;
  server::metrics& metrics_;
  recorder* rec_;
  connection_limits conn_limits_;

  std::vector<std::unique_ptr<listener>> listeners_;
  std::vector<listen_address> bound_;
  std::map<std::uint64_t, client> clients_; // ordered by id: fan-out order is connection order
  std::uint64_t next_id_ = 0;
  std::deque<inbound> queue_;
  bool drain_posted_ = false;
  player_owners owners_;
  protocol::frame_encoder encoder_;

  std::optional<tick_schedule> schedule_;
  boost::asio::steady_timer timer_;

  struct step_job {
    std::uint64_t conn = 0;
    protocol::request_id id;
    std::int64_t remaining = 0;
  };
  std::optional<step_job> step_; ///< a clock.step in progress: the queue waits

  bool stopping_ = false;
  std::function<void()> stop_done_;
  boost::asio::steady_timer stop_timer_;

  login_throttle logins_; ///< protocol.md §2: failed logins per peer address and role
  std::map<std::string, std::int64_t> pending_by_address_; ///< protocol.md §2
  log_limit refusals_; ///< protocol.md §2: refused connections' log lines per address
  log_limit failures_; ///< protocol.md §3: `internal` and `molang_error` lines per op and code

  std::function<void(const protocol::tick_output&)> on_tick_;
  std::function<bool()> on_tick_wants_;

  std::uint64_t closed_bytes_in_ = 0;
  std::uint64_t closed_bytes_out_ = 0;
};

} // namespace emote::server
