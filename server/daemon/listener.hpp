#pragma once
// Accepting sockets: one listener per `--listen` address (TCP or Unix domain socket). Accepted
// sockets are handed over as generic stream sockets, so connections need not care which kind.

#include "engine/core/result.hpp"
#include "server/daemon/connection.hpp"
#include "settings/listen_address.hpp"

#include <boost/asio/io_context.hpp>

#include <functional>
#include <memory>
#include <string>

namespace emote::server {

using settings::listen_address;

class listener {
public:
  /// Called for each accepted socket with a printable peer name.
  using accept_fn = std::function<void(connection::socket_type socket, std::string peer)>;

  /// Bind and listen. A stale Unix socket file (nobody accepting on it) is replaced; a live one
  /// is an error.
  static core::result<std::unique_ptr<listener>, std::string>
  open(boost::asio::io_context& io, const listen_address& address, accept_fn on_accept);

  virtual ~listener() = default;
  /// The bound address (the real port when 0 was asked for).
  [[nodiscard]] virtual listen_address bound() const = 0;
  /// Stop accepting (removes the Unix socket file).
  virtual void close() = 0;
};

} // namespace emote::server
