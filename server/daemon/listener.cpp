#include "server/daemon/listener.hpp"

#include "server/daemon/accept_loop.hpp"
#include "server/daemon/tcp_bind.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>

#include <cstring>
#include <filesystem>
#include <optional>
#include <sys/stat.h>

namespace emote::server {

using settings::listen_address;

namespace asio = boost::asio;
using core::failure;

namespace {

/// The printable peer of an accepted socket; TCP sockets get TCP_NODELAY (frames and replies are
/// small, latency-sensitive writes).
std::string prepare_peer(connection::socket_type& socket, const listen_address& bound) {
  if (bound.type != listen_address::kind::tcp) {
    return "unix:" + bound.path;
  }
  std::string peer;
  boost::system::error_code pe;
  const auto ep = socket.remote_endpoint(pe);
  if (!pe && ep.size() <= sizeof(asio::ip::tcp::endpoint)) {
    asio::ip::tcp::endpoint tcp_ep;
    std::memcpy(tcp_ep.data(), ep.data(), ep.size());
    tcp_ep.resize(ep.size());
    peer = tcp_ep.address().to_string() + ":" + std::to_string(tcp_ep.port());
  }
  socket.set_option(asio::detail::socket_option::boolean<IPPROTO_TCP, TCP_NODELAY>(true), pe);
  return peer;
}

/// Accepted sockets are generic stream sockets, whichever kind of address was bound.
template <class Acceptor>
class basic_listener final : public listener {
public:
  using loop_type = accept_loop<Acceptor, connection::socket_type>;

  basic_listener(asio::io_context& io, Acceptor acceptor, listen_address bound,
                 listener::accept_fn fn)
      : bound_(std::move(bound)),
        loop_(loop_type::start(
            io, std::move(acceptor),
            [b = bound_, fn = std::move(fn)](connection::socket_type socket) {
              std::string peer = prepare_peer(socket, b);
              fn(std::move(socket), std::move(peer));
            },
            default_accept_backoff)) {}
  ~basic_listener() override { basic_listener::close(); }
  basic_listener(const basic_listener&) = delete;
  basic_listener& operator=(const basic_listener&) = delete;

  [[nodiscard]] listen_address bound() const override { return bound_; }
  void close() override {
    if (loop_->closed()) {
      return;
    }
    loop_->close();
    if (bound_.type == listen_address::kind::unix_socket) {
      std::error_code e;
      std::filesystem::remove(bound_.path, e);
    }
  }

private:
  listen_address bound_;
  std::shared_ptr<loop_type> loop_;
};

core::result<std::unique_ptr<listener>, std::string>
open_tcp(asio::io_context& io, const listen_address& address, listener::accept_fn fn) {
  auto bound_acceptor = bind_tcp(io, address);
  if (!bound_acceptor) {
    return failure{bound_acceptor.error()};
  }
  asio::ip::tcp::acceptor acceptor = std::move(bound_acceptor).value();
  listen_address bound = address;
  bound.port = acceptor.local_endpoint().port();
  return std::unique_ptr<listener>(std::make_unique<basic_listener<asio::ip::tcp::acceptor>>(
      io, std::move(acceptor), bound, std::move(fn)));
}

core::result<std::unique_ptr<listener>, std::string>
open_unix(asio::io_context& io, const listen_address& address, listener::accept_fn fn) {
  using proto = asio::local::stream_protocol;
  boost::system::error_code ec;
  struct stat st {};
  if (::lstat(address.path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      return failure{"cannot listen on " + address.text() +
                     ": the path exists and is not a socket"};
    }
    proto::socket probe(io);
    probe.connect(proto::endpoint(address.path), ec);
    if (!ec) {
      return failure{"cannot listen on " + address.text() + ": another server is accepting there"};
    }
    std::filesystem::remove(address.path); // stale socket of a process that is gone
  }
  proto::acceptor acceptor(io);
  acceptor.open(proto(), ec);
  if (!ec) {
    acceptor.bind(proto::endpoint(address.path), ec);
  }
  if (!ec) {
    acceptor.listen(asio::socket_base::max_listen_connections, ec);
  }
  if (ec) {
    return failure{"cannot listen on " + address.text() + ": " + ec.message()};
  }
  return std::unique_ptr<listener>(std::make_unique<basic_listener<proto::acceptor>>(
      io, std::move(acceptor), address, std::move(fn)));
}

} // namespace

core::result<std::unique_ptr<listener>, std::string>
listener::open(asio::io_context& io, const listen_address& address, accept_fn on_accept) {
  if (address.type == listen_address::kind::unix_socket) {
    return open_unix(io, address, std::move(on_accept));
  }
  return open_tcp(io, address, std::move(on_accept));
}

} // namespace emote::server
