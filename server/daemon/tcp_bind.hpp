#pragma once
// Resolve, open, bind and listen a TCP acceptor: what the protocol listener and the metrics
// endpoint both do before they start accepting.

#include "engine/core/result.hpp"
#include "settings/listen_address.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <string>

namespace emote::server {

/// A listening acceptor on `address` (port 0 picks an ephemeral one; read it from
/// `local_endpoint()`), or "cannot resolve 'host': …" / "cannot listen on host:port: …".
core::result<boost::asio::ip::tcp::acceptor, std::string>
bind_tcp(boost::asio::io_context& io, const settings::listen_address& address);

} // namespace emote::server
