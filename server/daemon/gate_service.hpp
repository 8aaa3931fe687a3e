#pragma once
// The gate's sockets and its narrow adapter to the hub (gate.md). One acceptor per configured
// gate; one client/backend socket pair per accepted connection, each with a gate::session (the
// state machine, gate/session.hpp) that turns bytes into bytes, player inputs, commands and
// completions. Player inputs go into the hub as the lines of one internal controller client per
// gate — the socket clients' input path, so rules, metrics, recordings and replay see gate
// players like any other — and after every tick the renderer's packets addressed to gate players
// are written into their client connections.
//
// Threads (gate.md §10): the acceptors, the player registry and everything that touches the hub
// or the engine stay on the engine's thread (the io_context passed in); each pair lives on one of
// `limits.gate_threads` forwarding threads, each with an io_context of its own, which reads,
// splits, rewrites and writes that pair's bytes. The two sides meet only through posted tasks:
// a pair hands its player inputs, commands and log notes to the engine's thread (`to_main`), and
// the engine's thread hands a pair its rendered packets, hidden entities and chat replies by
// posting to the pair's io_context.

#include "engine/api/event.hpp"
#include "protocol/encode.hpp"
#include "protocol/runner.hpp"
#include "settings/config.hpp"

#include <boost/asio/io_context.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace emote::server {

class hub;

/// What the gate needs of the hub: an internal client per gate and the tick's output.
struct gate_hub {
  /// A controller client without a socket; `on_line` receives its reply lines. Its id.
  std::function<std::uint64_t(std::string name, std::function<void(std::string_view)> on_line)>
      attach;
  /// A request line from that client, queued like a socket client's.
  std::function<void(std::uint64_t id, std::string line)> line;
  /// Realtime clock: registers `pull` to run at the start of every tick, before the hub applies
  /// its queue (and when it stops), so the forwarding threads hand over without waking the
  /// engine's thread for each input. Empty (manual clock): every hand-over wakes it.
  std::function<void(std::function<void()> pull)> each_tick;
};

class gate_service {
public:
  gate_service(boost::asio::io_context& io, gate_hub hub, protocol::sim_host& host,
               const settings::limits_config& limits);
  ~gate_service();
  gate_service(const gate_service&) = delete;
  gate_service& operator=(const gate_service&) = delete;

  /// Open every gate's acceptor; the error names the gate and its address.
  std::optional<std::string> open(const std::vector<settings::gate_config>& gates);
  /// The bound listen addresses (real ports), in `open` order.
  [[nodiscard]] std::vector<settings::listen_address> bound() const;

  /// After each tick: hidden players from the frame's visibility events, then the packets the
  /// renderer addressed to gate players, written to their clients in list order (gate.md §5).
  void after_tick(const protocol::tick_output& t);

  /// Whether some gate has a player, who receives packets (render.md §6).
  [[nodiscard]] bool wants_packets() const noexcept;

  /// Stop accepting and close every pair; their players' leave lines are in the hub's queue
  /// when it returns.
  void close();

  /// For the pairs, from any thread: run `f` on the engine's thread, in the order handed over:
  /// at the start of the next tick (gate_hub::each_tick), or at once when `urgent` (an answer
  /// the player waits for) or without a realtime clock.
  void to_main(std::function<void()> f, bool urgent = false);

  /// The gate metrics in Prometheus text format (gate.md §8).
  [[nodiscard]] std::string render_metrics() const;

  struct gate;
  struct pair;
  struct worker;

private:
  void drain_inbox();

  boost::asio::io_context& io_;
  gate_hub hub_;
  protocol::sim_host& host_;
  settings::limits_config limits_;
  std::vector<std::unique_ptr<gate>> gates_;
  std::vector<std::unique_ptr<worker>> workers_; ///< the forwarding threads
  bool closed_ = false;
  std::mutex inbox_mutex_;
  std::vector<std::function<void()>> inbox_; ///< to_main's tasks not yet run
  bool inbox_posted_ = false;                ///< a drain_inbox is queued on io_
  bool pulled_ = false;                      ///< the hub runs drain_inbox before each tick
  /// after_tick's recipients resolved to their pairs, by index into the tick's player names
  /// (looked up once per tick and player, not once per packet); empty between ticks.
  std::vector<std::shared_ptr<pair>> recipients_;
  std::vector<std::uint8_t> resolved_;
  std::vector<std::shared_ptr<pair>> touched_; ///< the pairs this tick set packets aside for
};

} // namespace emote::server
