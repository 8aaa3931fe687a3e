#include "server/daemon/tcp_bind.hpp"

namespace emote::server {

namespace asio = boost::asio;

core::result<asio::ip::tcp::acceptor, std::string>
bind_tcp(asio::io_context& io, const settings::listen_address& address) {
  boost::system::error_code ec;
  asio::ip::tcp::resolver resolver(io);
  const auto results = resolver.resolve(address.host, std::to_string(address.port),
                                        asio::ip::tcp::resolver::passive, ec);
  if (ec || results.empty()) {
    return core::failure{"cannot resolve '" + address.host + "': " + ec.message()};
  }
  const asio::ip::tcp::endpoint ep = results.begin()->endpoint();
  asio::ip::tcp::acceptor acceptor(io);
  acceptor.open(ep.protocol(), ec);
  if (!ec) {
    acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  }
  if (!ec) {
    acceptor.bind(ep, ec);
  }
  if (!ec) {
    acceptor.listen(asio::socket_base::max_listen_connections, ec);
  }
  if (ec) {
    return core::failure{"cannot listen on " + address.text() + ": " + ec.message()};
  }
  return acceptor;
}

} // namespace emote::server
