#include "server/http_listener.hpp"

#include "engine/json/writer.hpp"
#include "server/tcp_bind.hpp"

#include <boost/asio/local/connect_pair.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include <array>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/socket.h>

namespace emote::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using asio::ip::tcp;
using core::failure;
using error_code = boost::system::error_code;

namespace {

constexpr std::size_t max_asset_bytes = std::size_t{64} << 20;
constexpr std::size_t max_bridged_line = std::size_t{64} << 20;

std::string_view content_type_of(const std::filesystem::path& p) {
  const auto ext = p.extension().string();
  if (ext == ".html") {
    return "text/html; charset=utf-8";
  }
  if (ext == ".js" || ext == ".mjs") {
    return "text/javascript; charset=utf-8";
  }
  if (ext == ".css") {
    return "text/css; charset=utf-8";
  }
  if (ext == ".json" || ext == ".map") {
    return "application/json";
  }
  if (ext == ".png") {
    return "image/png";
  }
  if (ext == ".svg") {
    return "image/svg+xml";
  }
  return "application/octet-stream";
}

/// A target path that names a file under the assets folder: letters, digits, `-`, `_`, `.` and
/// `/`, no `..` component. Anything else is not found (never a path outside the folder).
bool safe_asset_path(std::string_view p) {
  if (p.empty() || p.size() > 256) {
    return false;
  }
  for (char c : p) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.' || c == '/';
    if (!ok) {
      return false;
    }
  }
  return p.find("..") == std::string_view::npos && p.front() != '/';
}

std::optional<std::string> read_file(const std::filesystem::path& p) {
  std::error_code sec;
  if (!std::filesystem::is_regular_file(p, sec) || std::filesystem::file_size(p, sec) > max_asset_bytes) {
    return std::nullopt;
  }
  std::ifstream in(p, std::ios::binary);
  if (!in) {
    return std::nullopt;
  }
  std::ostringstream s;
  s << in.rdbuf();
  return std::move(s).str();
}

/// The value of `key` in a URL query (`a=1&token=x`), percent-decoded.
std::string query_value(std::string_view query, std::string_view key) {
  while (!query.empty()) {
    const auto amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    const auto eq = pair.find('=');
    if (pair.substr(0, eq) != key || eq == std::string_view::npos) {
      continue;
    }
    std::string out;
    std::string_view v = pair.substr(eq + 1);
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (v[i] == '+') {
        out.push_back(' ');
      } else if (v[i] == '%' && i + 2 < v.size()) {
        const std::string hex(v.substr(i + 1, 2));
        char* end = nullptr;
        const long c = std::strtol(hex.c_str(), &end, 16);
        if (end == hex.c_str() + 2) {
          out.push_back(static_cast<char>(c));
          i += 2;
        } else {
          out.push_back('%');
        }
      } else {
        out.push_back(v[i]);
      }
    }
    return out;
  }
  return {};
}

} // namespace

std::optional<http_answer> answer_parse_error(const boost::system::error_code& ec) {
  if (ec == http::error::header_limit) {
    return http_answer{431, "text/plain", "too large\n", {}};
  }
  if (ec.category() == http::make_error_code(http::error::bad_target).category() &&
      ec != http::error::end_of_stream && ec != http::error::partial_message &&
      ec != http::error::need_more) {
    return http_answer{400, "text/plain", "bad request: " + ec.message() + "\n", {}};
  }
  return std::nullopt;
}

http_answer answer_request(const http_routes& r, const http::request<http::empty_body>& req) {
  if (req.method() != http::verb::get && req.method() != http::verb::head) {
    return {405, "text/plain", "only GET\n", {}};
  }
  const std::string_view target(req.target().data(), req.target().size());
  const auto q = target.find('?');
  const std::string_view path = target.substr(0, q);
  const std::string_view query =
      q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
  if (path == "/metrics" && r.metrics) {
    return {200, "text/plain; version=0.0.4; charset=utf-8", r.metrics(), {}};
  }
  if (path == "/ws" && r.observer && websocket::is_upgrade(req)) {
    return {http_answer::upgrade, {}, {}, query_value(query, "token")};
  }
  for (const auto& d : r.documents) {
    if (path == d.path) {
      return {200, d.content_type, *d.body, {}};
    }
  }
  if (r.assets && path.starts_with('/')) {
    const std::string_view rel = path == "/" ? std::string_view("index.html") : path.substr(1);
    if (safe_asset_path(rel)) {
      const auto file = *r.assets / std::string(rel);
      if (auto body = read_file(file)) {
        return {200, std::string(content_type_of(file)), std::move(*body), {}};
      }
    }
  } else if (!r.assets && path == "/" && r.observer) {
    return {404, "text/plain",
            "the viewer is not built: run scripts/build-viewer (needs npm), or set "
            "EMOTE_SIM_VIEWER_DIR to its folder\n",
            {}};
  }
  return {404, "text/plain", r.metrics && !r.observer ? "see /metrics\n" : "not found\n", {}};
}

struct http_listener::state : std::enable_shared_from_this<http_listener::state> {
  state(asio::io_context& ctx, tcp::acceptor a, http_routes r, http_settings s, listen_address b)
      : io(ctx), acceptor(std::move(a)), routes(std::move(r)), settings(std::move(s)),
        bound(std::move(b)), backoff(ctx) {}

  void accept();

  asio::io_context& io;
  tcp::acceptor acceptor;
  http_routes routes;
  http_settings settings;
  listen_address bound;
  asio::steady_timer backoff;
  http_stats stats;
  bool closed = false;
};

namespace {

using listener_state = http_listener::state;

/// Counts an open connection for as long as it lives.
struct open_slot {
  explicit open_slot(std::shared_ptr<listener_state> s) : st(std::move(s)) { ++st->stats.open; }
  ~open_slot() { --st->stats.open; }
  open_slot(const open_slot&) = delete;
  open_slot& operator=(const open_slot&) = delete;
  std::shared_ptr<listener_state> st;
};

/// A WebSocket bridged to the hub over a socket pair: the hub's end carries the line protocol,
/// this end turns each line into a text message and each message into a line. One write in
/// flight each way, so a browser that does not read stops this bridge reading the hub's socket
/// and the hub's outbound budget applies (protocol.md §1).
class ws_bridge : public std::enable_shared_from_this<ws_bridge> {
public:
  ws_bridge(beast::tcp_stream stream, asio::local::stream_protocol::socket local,
            std::shared_ptr<listener_state> st)
      : ws_(std::move(stream)), local_(std::move(local)), slot_(std::move(st)),
        lines_(max_bridged_line) {}

  void start(http::request<http::empty_body> req, std::string token) {
    beast::get_lowest_layer(ws_).expires_never();
    ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
    ws_.read_message_max(slot_.st->settings.max_ws_message);
    // The first line is the observer hello: a browser is only ever an observer (protocol.md §2).
    hello_ = R"({"op":"hello","protocol":1,"role":"observer","client":"emote-sim-viewer")";
    if (!token.empty()) {
      hello_ += R"(,"token":)";
      json::json_out(hello_).str(token);
    }
    hello_ += "}\n";
    ws_.async_accept(req, [self = shared_from_this()](const error_code& ec) {
      if (ec) {
        self->shut();
        return;
      }
      asio::async_write(self->local_, asio::buffer(self->hello_),
                        [self](const error_code& e, std::size_t) {
                          if (e) {
                            self->shut();
                            return;
                          }
                          self->read_browser();
                          self->read_hub();
                        });
    });
  }

private:
  void read_browser() {
    ws_.async_read(in_, [self = shared_from_this()](const error_code& ec, std::size_t) {
      if (ec) {
        self->shut();
        return;
      }
      self->up_ = beast::buffers_to_string(self->in_.data());
      self->in_.consume(self->in_.size());
      self->up_.push_back('\n');
      asio::async_write(self->local_, asio::buffer(self->up_),
                        [self](const error_code& e, std::size_t) {
                          if (e) {
                            self->shut();
                            return;
                          }
                          self->read_browser();
                        });
    });
  }

  void read_hub() {
    asio::async_read_until(
        local_, lines_, '\n', [self = shared_from_this()](const error_code& ec, std::size_t n) {
          if (ec) {
            // The hub closed (bye, refused hello) or the line was too long: close politely.
            self->ws_.async_close(websocket::close_code::normal,
                                  [self](const error_code&) { self->shut(); });
            return;
          }
          self->down_.assign(asio::buffers_begin(self->lines_.data()),
                             asio::buffers_begin(self->lines_.data()) +
                                 static_cast<std::ptrdiff_t>(n - 1));
          self->lines_.consume(n);
          self->ws_.text(true);
          self->ws_.async_write(asio::buffer(self->down_),
                                [self](const error_code& e, std::size_t) {
                                  if (e) {
                                    self->shut();
                                    return;
                                  }
                                  self->read_hub();
                                });
        });
  }

  void shut() {
    error_code ignored;
    local_.close(ignored);
    beast::get_lowest_layer(ws_).socket().close(ignored);
  }

  websocket::stream<beast::tcp_stream> ws_;
  asio::local::stream_protocol::socket local_;
  open_slot slot_;
  std::string hello_;
  beast::flat_buffer in_;
  std::string up_;
  asio::streambuf lines_;
  std::string down_;
};

class http_session : public std::enable_shared_from_this<http_session> {
public:
  http_session(tcp::socket s, std::shared_ptr<listener_state> st)
      : stream_(std::move(s)), slot_(std::move(st)) {}

  void start() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(slot_.st->settings.header_limit));
    parser_->body_limit(0);
    stream_.expires_after(slot_.st->settings.idle_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](const error_code& ec, std::size_t) {
                       self->on_read(ec);
                     });
  }

  /// Over the cap: a 503 and close, without reading the request.
  void refuse() {
    stream_.expires_after(slot_.st->settings.idle_timeout);
    respond(503, "text/plain", "too many connections\n", false);
  }

private:
  void on_read(const error_code& ec) {
    if (ec) {
      if (auto a = answer_parse_error(ec)) {
        respond(a->status, a->content_type, std::move(a->body), false);
      } else {
        // Timed out, the peer left, or it closed mid-request: nothing to answer.
        error_code ignored;
        stream_.socket().close(ignored);
      }
      return;
    }
    const auto& req = parser_->get();
    auto a = answer_request(slot_.st->routes, req);
    if (a.status == http_answer::upgrade) {
      upgrade(req, std::move(a.token));
      return;
    }
    respond(a.status, a.content_type, std::move(a.body), req.method() == http::verb::head);
  }

  void upgrade(const http::request<http::empty_body>& req, std::string token) {
    asio::local::stream_protocol::socket mine(stream_.get_executor());
    asio::local::stream_protocol::socket theirs(stream_.get_executor());
    error_code ec;
    asio::local::connect_pair(mine, theirs, ec);
    if (ec) {
      respond(503, "text/plain", "cannot open: " + ec.message() + "\n", false);
      return;
    }
    const int fd = theirs.release(ec);
    connection::socket_type hub_end(stream_.get_executor());
    hub_end.assign(asio::generic::stream_protocol(AF_UNIX, SOCK_STREAM), fd, ec);
    std::string peer = "ws:";
    error_code pe;
    const auto ep = stream_.socket().remote_endpoint(pe);
    peer += pe ? std::string("?") : ep.address().to_string() + ":" + std::to_string(ep.port());
    auto bridge =
        std::make_shared<ws_bridge>(std::move(stream_), std::move(mine), slot_.st);
    slot_.st->routes.observer(std::move(hub_end), std::move(peer));
    bridge->start(req, std::move(token));
  }

  void respond(unsigned status, std::string_view type, std::string body, bool head) {
    auto res = std::make_shared<http::response<http::string_body>>(http::int_to_status(status), 11);
    res->set(http::field::content_type, beast::string_view(type.data(), type.size()));
    res->set(http::field::connection, "close");
    res->body() = std::move(body);
    res->prepare_payload();
    if (head) {
      res->body().clear();
    }
    res->keep_alive(false);
    stream_.expires_after(slot_.st->settings.idle_timeout);
    http::async_write(stream_, *res,
                      [self = shared_from_this(), res](const error_code&, std::size_t) {
                        // Lingering close: unread request bytes would otherwise make the kernel
                        // reset the connection and the client could lose the response.
                        error_code ignored;
                        self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
                        self->drain();
                      });
  }

  void drain() {
    stream_.async_read_some(asio::buffer(sink_),
                            [self = shared_from_this()](const error_code& ec, std::size_t) {
                              if (ec) {
                                error_code ignored;
                                self->stream_.socket().close(ignored);
                                return;
                              }
                              self->drain();
                            });
  }

  beast::tcp_stream stream_;
  open_slot slot_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::empty_body>> parser_;
  std::array<char, 4096> sink_{};
};

} // namespace

void http_listener::state::accept() {
  acceptor.async_accept([self = shared_from_this()](const error_code& ec, tcp::socket s) {
    if (self->closed) {
      return;
    }
    if (ec) {
      ++self->stats.accept_failures;
      if (ec == asio::error::no_descriptors || ec == asio::error::no_buffer_space ||
          ec == asio::error::no_memory || ec.value() == ENFILE) {
        // Out of descriptors or memory: retrying at once would spin; wait and try again.
        self->backoff.expires_after(self->settings.accept_backoff);
        self->backoff.async_wait([self](const error_code& e) {
          if (!e && !self->closed) {
            self->accept();
          }
        });
        return;
      }
      self->accept();
      return;
    }
    ++self->stats.accepted;
    auto session = std::make_shared<http_session>(std::move(s), self);
    if (self->stats.open > self->settings.max_connections) {
      ++self->stats.refused;
      session->refuse();
    } else {
      session->start();
    }
    self->accept();
  });
}

core::result<std::unique_ptr<http_listener>, std::string>
http_listener::open(asio::io_context& io, const listen_address& address, http_routes routes,
                    http_settings settings) {
  auto bound_acceptor = bind_tcp(io, address);
  if (!bound_acceptor) {
    return failure{settings.name + ": " + bound_acceptor.error()};
  }
  tcp::acceptor acceptor = std::move(bound_acceptor).value();
  listen_address bound = address;
  bound.port = acceptor.local_endpoint().port();
  auto s = std::make_shared<state>(io, std::move(acceptor), std::move(routes), std::move(settings),
                                   bound);
  s->accept();
  return std::unique_ptr<http_listener>(new http_listener(std::move(s)));
}

http_listener::http_listener(std::shared_ptr<state> s) : state_(std::move(s)) {}

http_listener::~http_listener() {
  close();
}

listen_address http_listener::bound() const {
  return state_->bound;
}

http_stats http_listener::stats() const {
  return state_->stats;
}

void http_listener::close() {
  if (!state_->closed) {
    state_->closed = true;
    error_code ignored;
    state_->acceptor.close(ignored);
    state_->backoff.cancel();
  }
}

std::optional<std::filesystem::path> find_viewer_assets() {
  std::vector<std::filesystem::path> candidates;
  if (const char* env = std::getenv("EMOTE_SIM_VIEWER_DIR"); env != nullptr && *env != '\0') {
    candidates.emplace_back(env);
  }
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    candidates.push_back(exe.parent_path().parent_path() / "viewer");
    candidates.push_back(exe.parent_path().parent_path() / "share" / "emote-sim" / "viewer");
  }
  for (const auto& c : candidates) {
    if (std::filesystem::is_regular_file(c / "index.html", ec)) {
      return c;
    }
  }
  return std::nullopt;
}

} // namespace emote::server
