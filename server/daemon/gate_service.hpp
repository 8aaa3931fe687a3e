#pragma once
// The gate's sockets and its narrow adapter to the hub (gate.md). One acceptor per configured
// gate; one client/backend socket pair per accepted connection, each with a gate::session (the
// state machine, gate/session.hpp) that turns bytes into bytes, player inputs, commands and
// completions. Player inputs go into the hub as the lines of one internal controller client per
// gate — the socket clients' input path, so rules, metrics, recordings and replay see gate
// players like any other — and after every tick the renderer's packets addressed to gate players
// are written into their client connections.

#include "engine/api/event.hpp"
#include "protocol/encode.hpp"
#include "protocol/runner.hpp"
#include "settings/config.hpp"

#include <boost/asio/io_context.hpp>

#include <cstdint>
#include <map>
#include <memory>
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

  /// Stop accepting and close every pair (their players leave).
  void close();

  /// The gate metrics in Prometheus text format (gate.md §8).
  [[nodiscard]] std::string render_metrics() const;

  struct gate;
  struct pair;

private:
  boost::asio::io_context& io_;
  gate_hub hub_;
  protocol::sim_host& host_;
  settings::limits_config limits_;
  std::vector<std::unique_ptr<gate>> gates_;
  /// after_tick's recipients resolved to their pairs, by index into the tick's player names
  /// (looked up once per tick and player, not once per packet); empty between ticks.
  std::vector<std::shared_ptr<pair>> recipients_;
  std::vector<std::uint8_t> resolved_;
  std::vector<std::shared_ptr<pair>> touched_; ///< the pairs this tick set packets aside for
  /// gate.md §5: the pairs whose set-aside packets wait to be injected, served a few at a time
  /// (`inject_some`) with the sockets' reads and writes in between.
  /// Non-empty exactly while an `inject_some` is posted.
  std::vector<std::shared_ptr<pair>> inject_queue_;
  std::size_t inject_next_ = 0;
  void inject_some();
};

} // namespace emote::server
