#include "server/metrics_http.hpp"

#include "server/tcp_bind.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>

#include <array>

namespace emote::server {

using protocol::listen_address;

namespace asio = boost::asio;
using asio::ip::tcp;
using core::failure;

namespace {

constexpr std::size_t max_request_bytes = 8192;

std::string response(std::string_view status, std::string_view type, const std::string& body) {
  std::string r = "HTTP/1.1 ";
  r += status;
  r += "\r\nContent-Type: ";
  r += type;
  r += "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n";
  r += body;
  return r;
}

struct http_session : std::enable_shared_from_this<http_session> {
  http_session(tcp::socket s, metrics_http::render_fn r)
      : socket(std::move(s)), render(std::move(r)), timer(socket.get_executor()),
        buf(max_request_bytes) {}

  void start() {
    timer.expires_after(std::chrono::seconds(5));
    timer.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (!ec) {
        boost::system::error_code ignored;
        self->socket.close(ignored);
      }
    });
    asio::async_read_until(socket, buf, "\r\n\r\n",
                           [self = shared_from_this()](const boost::system::error_code& ec,
                                                       std::size_t) { self->on_request(ec); });
  }

  void on_request(const boost::system::error_code& ec) {
    if (ec) {
      if (ec == asio::error::not_found) { // over max_request_bytes
        reply(response("431 Request Header Fields Too Large", "text/plain", "too large\n"));
        return;
      }
      timer.cancel();
      return;
    }
    std::istream in(&buf);
    std::string method;
    std::string target;
    in >> method >> target;
    if (method != "GET" && method != "HEAD") {
      reply(response("405 Method Not Allowed", "text/plain", "only GET\n"));
    } else if (target == "/metrics" || target.starts_with("/metrics?")) {
      auto r = response("200 OK", "text/plain; version=0.0.4; charset=utf-8", render());
      if (method == "HEAD") {
        r.erase(r.find("\r\n\r\n") + 4);
      }
      reply(std::move(r));
    } else {
      reply(response("404 Not Found", "text/plain", "see /metrics\n"));
    }
  }

  void reply(std::string text) {
    out = std::move(text);
    asio::async_write(socket, asio::buffer(out),
                      [self = shared_from_this()](const boost::system::error_code&, std::size_t) {
                        // Lingering close: unread request bytes would otherwise make the kernel
                        // reset the connection and the client could lose the response.
                        boost::system::error_code ignored;
                        self->socket.shutdown(tcp::socket::shutdown_send, ignored);
                        self->drain();
                      });
  }

  void drain() {
    socket.async_read_some(
        asio::buffer(sink),
        [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) {
          if (ec) {
            boost::system::error_code ignored;
            self->socket.close(ignored);
            self->timer.cancel();
            return;
          }
          self->drain();
        });
  }

  tcp::socket socket;
  metrics_http::render_fn render;
  asio::steady_timer timer;
  asio::streambuf buf;
  std::string out;
  std::array<char, 4096> sink{};
};

} // namespace

struct metrics_http::state : std::enable_shared_from_this<metrics_http::state> {
  state(asio::io_context& ctx, tcp::acceptor a, render_fn fn, listen_address b)
      : io(ctx), acceptor(std::move(a)), render(std::move(fn)), bound(std::move(b)) {}

  void accept() {
    acceptor.async_accept(
        [self = shared_from_this()](const boost::system::error_code& ec, tcp::socket s) {
          if (self->closed) {
            return;
          }
          if (!ec) {
            std::make_shared<http_session>(std::move(s), self->render)->start();
          }
          self->accept();
        });
  }

  asio::io_context& io;
  tcp::acceptor acceptor;
  render_fn render;
  listen_address bound;
  bool closed = false;
};

core::result<std::unique_ptr<metrics_http>, std::string>
metrics_http::open(asio::io_context& io, const listen_address& address, render_fn render) {
  auto bound_acceptor = bind_tcp(io, address);
  if (!bound_acceptor) {
    return failure{"metrics: " + bound_acceptor.error()};
  }
  tcp::acceptor acceptor = std::move(bound_acceptor).value();
  listen_address bound = address;
  bound.port = acceptor.local_endpoint().port();
  auto s = std::make_shared<state>(io, std::move(acceptor), std::move(render), bound);
  s->accept();
  return std::unique_ptr<metrics_http>(new metrics_http(std::move(s)));
}

metrics_http::metrics_http(std::shared_ptr<state> s) : state_(std::move(s)) {}

metrics_http::~metrics_http() {
  close();
}

listen_address metrics_http::bound() const {
  return state_->bound;
}

void metrics_http::close() {
  if (!state_->closed) {
    state_->closed = true;
    boost::system::error_code ignored;
    state_->acceptor.close(ignored);
  }
}

} // namespace emote::server
