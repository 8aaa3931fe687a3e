// The one accept loop (server/daemon/accept_loop.hpp) on real loopback sockets: every connection
// handed over in order, a peer's reset does not stop it, out of descriptors it waits instead of
// spinning and then accepts what waited, close() from the owner's function ends it, and dropping
// the loop with an accept pending is safe.
#include "server/daemon/accept_loop.hpp"

#include "descriptors.hpp"

#include <doctest/doctest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <chrono>
#include <optional>
#include <vector>

using namespace emote::server;
namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

namespace {

using loop_type = accept_loop<tcp::acceptor, tcp::socket>;

tcp::acceptor bound_acceptor(asio::io_context& io) {
  tcp::acceptor a(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  return a;
}

} // namespace

TEST_CASE("accept_loop: hands over every connection and keeps accepting") {
  asio::io_context io;
  tcp::acceptor a = bound_acceptor(io);
  const tcp::endpoint at = a.local_endpoint();
  std::vector<tcp::socket> taken;
  auto loop = loop_type::start(
      io, std::move(a), [&](tcp::socket s) { taken.push_back(std::move(s)); }, 100ms);
  std::vector<tcp::socket> clients;
  for (int i = 0; i < 5; ++i) {
    clients.emplace_back(io).connect(at);
  }
  io.run_for(300ms);
  CHECK(taken.size() == 5);
  CHECK(loop->counted().accepted == 5);
  CHECK(loop->counted().failures == 0);
  loop->close();
  CHECK(loop->closed());
  io.run_for(50ms);
}

TEST_CASE("accept_loop: close() from the owner's function ends it; the function is released") {
  asio::io_context io;
  tcp::acceptor a = bound_acceptor(io);
  const tcp::endpoint at = a.local_endpoint();
  auto held = std::make_shared<int>(7);
  std::shared_ptr<loop_type> loop;
  int calls = 0;
  loop = loop_type::start(
      io, std::move(a),
      [&, held](tcp::socket) {
        ++calls;
        loop->close();
      },
      100ms);
  CHECK(held.use_count() == 2);
  tcp::socket c1(io);
  c1.connect(at);
  io.run_for(200ms);
  CHECK(calls == 1);
  CHECK(held.use_count() == 1); // the loop no longer holds what its function captured
  boost::system::error_code ec;
  tcp::socket c2(io);
  c2.connect(at, ec);
  CHECK(ec); // nothing listens there any more
  io.run_for(50ms);
  CHECK(calls == 1);
}

TEST_CASE("accept_loop: dropped with an accept pending, nothing runs afterwards") {
  asio::io_context io;
  int calls = 0;
  {
    auto loop = loop_type::start(
        io, bound_acceptor(io), [&](tcp::socket) { ++calls; }, 100ms);
    loop->close();
  }
  io.run_for(50ms); // the pending accept completes as aborted and finds the loop closed
  CHECK(calls == 0);
}

TEST_CASE("accept_loop: out of descriptors it waits the backoff, then accepts what waited") {
  asio::io_context io;
  tcp::acceptor a = bound_acceptor(io);
  const tcp::endpoint at = a.local_endpoint();
  std::vector<tcp::socket> accepted;
  auto loop = loop_type::start(
      io, std::move(a), [&](tcp::socket s) { accepted.push_back(std::move(s)); }, 100ms);
  // Every descriptor but one taken; the client's socket takes that one, so accepting fails until
  // they are given back.
  emote::server::testing::descriptors_taken taken;
  std::optional<tcp::socket> client;
  client.emplace(io);
  boost::system::error_code ec;
  client->connect(at, ec);
  io.run_for(600ms);
  const auto failures = loop->counted().failures;
  const auto accepted_while_full = accepted.size();
  taken.give_back();
  REQUIRE_FALSE(ec);
  CHECK(accepted_while_full == 0);
  CHECK(failures >= 2);  // it tried again…
  CHECK(failures <= 12); // …every 100 ms, not in a tight loop
  io.run_for(300ms);
  CHECK(accepted.size() == 1); // the connection that waited is accepted once descriptors are back
  loop->close();
  io.run_for(50ms);
}
