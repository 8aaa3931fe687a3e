#include "server/listener.hpp"

#include "server/tcp_bind.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/steady_timer.hpp>

#include <cstring>
#include <filesystem>
#include <optional>
#include <sys/stat.h>

namespace emote::server {

using protocol::listen_address;

namespace asio = boost::asio;
using core::failure;

namespace {

// Accept loop shared by both kinds: accepts into a generic socket, retries after a short pause
// when accepting fails (e.g. out of file descriptors) instead of spinning. The state lives in a
// shared object that pending handlers keep alive, so destroying the listener at any time is safe.
template <class Acceptor>
struct accept_state : std::enable_shared_from_this<accept_state<Acceptor>> {
  accept_state(asio::io_context& ctx, Acceptor a, listen_address b, listener::accept_fn fn)
      : io(ctx), acceptor(std::move(a)), bound(std::move(b)), on_accept(std::move(fn)), retry(ctx) {
  }

  asio::io_context& io;
  Acceptor acceptor;
  listen_address bound;
  listener::accept_fn on_accept;
  asio::steady_timer retry;
  bool closed = false;

  void accept() {
    if (closed) {
      return;
    }
    auto peer = std::make_shared<connection::socket_type>(io);
    acceptor.async_accept(
        *peer, [self = this->shared_from_this(), peer](const boost::system::error_code& ec) {
          self->on_accepted(ec, std::move(*peer));
        });
  }

  void on_accepted(const boost::system::error_code& ec, connection::socket_type socket) {
    if (closed) {
      return;
    }
    if (ec) {
      retry.expires_after(std::chrono::milliseconds(100));
      retry.async_wait([self = this->shared_from_this()](const boost::system::error_code& e) {
        if (!e) {
          self->accept();
        }
      });
      return;
    }
    std::string peer;
    boost::system::error_code pe;
    if (bound.type == listen_address::kind::tcp) {
      const auto ep = socket.remote_endpoint(pe);
      if (!pe && ep.size() <= sizeof(asio::ip::tcp::endpoint)) {
        asio::ip::tcp::endpoint tcp_ep;
        std::memcpy(tcp_ep.data(), ep.data(), ep.size());
        tcp_ep.resize(ep.size());
        peer = tcp_ep.address().to_string() + ":" + std::to_string(tcp_ep.port());
      }
      // Frames and replies are small, latency-sensitive writes.
      socket.set_option(asio::detail::socket_option::boolean<IPPROTO_TCP, TCP_NODELAY>(true), pe);
    } else {
      peer = "unix:" + bound.path;
    }
    on_accept(std::move(socket), std::move(peer));
    accept();
  }

  void close() {
    if (closed) {
      return;
    }
    closed = true;
    boost::system::error_code ignored;
    acceptor.close(ignored);
    retry.cancel();
    if (bound.type == listen_address::kind::unix_socket) {
      std::error_code e;
      std::filesystem::remove(bound.path, e);
    }
  }
};

template <class Acceptor>
class basic_listener final : public listener {
public:
  explicit basic_listener(std::shared_ptr<accept_state<Acceptor>> state)
      : state_(std::move(state)) {
    state_->accept();
  }
  ~basic_listener() override { state_->close(); }
  [[nodiscard]] listen_address bound() const override { return state_->bound; }
  void close() override { state_->close(); }

private:
  std::shared_ptr<accept_state<Acceptor>> state_;
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
  using acceptor_type = asio::ip::tcp::acceptor;
  return std::unique_ptr<listener>(
      std::make_unique<basic_listener<acceptor_type>>(std::make_shared<accept_state<acceptor_type>>(
          io, std::move(acceptor), bound, std::move(fn))));
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
      std::make_shared<accept_state<proto::acceptor>>(io, std::move(acceptor), address,
                                                      std::move(fn))));
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
