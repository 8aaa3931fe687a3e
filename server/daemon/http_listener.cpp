#include "server/daemon/http_listener.hpp"

#include "engine/json/writer.hpp"
#include "server/daemon/accept_loop.hpp"
#include "server/daemon/tcp_bind.hpp"

#include <boost/asio/local/connect_pair.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include <algorithm>
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
constexpr std::size_t max_assets_total = std::size_t{256} << 20;
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

std::optional<std::string> read_file(const std::filesystem::path& p, std::uintmax_t size) {
  std::ifstream in(p, std::ios::binary);
  if (!in) {
    return std::nullopt;
  }
  std::string out(static_cast<std::size_t>(size), '\0');
  in.read(out.data(), static_cast<std::streamsize>(size));
  if (static_cast<std::uintmax_t>(in.gcount()) != size) {
    return std::nullopt;
  }
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return out;
}

/// The host of `host[:port]` (`[v6]:port` too), lower-cased, without the brackets.
std::string host_part(std::string_view host_port) {
  if (host_port.starts_with('[')) {
    const auto close = host_port.find(']');
    return close == std::string_view::npos ? std::string() : lower(host_port.substr(1, close - 1));
  }
  const auto colon = host_port.find(':');
  return lower(host_port.substr(0, colon));
}

/// protocol.md §10: a /ws request's `Host` must name this machine in a way a foreign page cannot
/// (an IP literal or `localhost`: DNS rebinding goes through a name), or the host of a configured
/// origin.
bool allowed_host(std::string_view host_header, const std::vector<std::string>& origins) {
  const std::string host = host_part(host_header);
  if (host.empty()) {
    return false;
  }
  if (host == "localhost") {
    return true;
  }
  boost::system::error_code ec;
  (void)asio::ip::make_address(host, ec);
  if (!ec) {
    return true;
  }
  for (const auto& o : origins) {
    if (o == "*") {
      return true;
    }
    const auto at = o.find("://");
    if (at != std::string::npos && host_part(std::string_view(o).substr(at + 3)) == host) {
      return true;
    }
  }
  return false;
}

/// protocol.md §10: a browser names the page's origin; only the listener's own (the origin of
/// the `Host` it was asked as) and the configured ones may open /ws. No Origin: not a browser.
bool allowed_origin(std::string_view origin, std::string_view host_header,
                    const std::vector<std::string>& origins) {
  if (origin.empty()) {
    return true;
  }
  const std::string o = lower(origin);
  const std::string host = lower(host_header);
  if (o == "http://" + host || o == "https://" + host) {
    return true;
  }
  return std::any_of(origins.begin(), origins.end(),
                     [&](const std::string& a) { return a == "*" || lower(a) == o; });
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
    return http_answer{431, "text/plain", "too large\n", {}, {}};
  }
  if (ec.category() == http::make_error_code(http::error::bad_target).category() &&
      ec != http::error::end_of_stream && ec != http::error::partial_message &&
      ec != http::error::need_more) {
    return http_answer{400, "text/plain", "bad request: " + ec.message() + "\n", {}, {}};
  }
  return std::nullopt;
}

std::map<std::string, std::shared_ptr<const std::string>>
load_assets(const std::filesystem::path& folder) {
  std::map<std::string, std::shared_ptr<const std::string>> out;
  std::error_code ec;
  std::filesystem::recursive_directory_iterator it(
      folder, std::filesystem::directory_options::skip_permission_denied, ec);
  std::size_t total = 0;
  for (; !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    const auto& entry = *it;
    const std::string name = entry.path().filename().string();
    std::error_code sec;
    // Hidden names and symbolic links are never served (nor is what is under them).
    if (name.starts_with('.') || entry.is_symlink(sec)) {
      if (entry.is_directory(sec)) {
        it.disable_recursion_pending();
      }
      continue;
    }
    if (!entry.is_regular_file(sec)) {
      continue;
    }
    const auto size = entry.file_size(sec);
    if (sec || size > max_asset_bytes || total + size > max_assets_total) {
      continue;
    }
    const std::string rel = entry.path().lexically_relative(folder).generic_string();
    if (!safe_asset_path(rel)) {
      continue;
    }
    if (auto body = read_file(entry.path(), size)) {
      total += body->size();
      out.emplace(rel, std::make_shared<const std::string>(std::move(*body)));
    }
  }
  return out;
}

http_answer answer_request(const http_routes& r, const http::request<http::empty_body>& req,
                           const std::vector<std::string>& origins) {
  if (req.method() != http::verb::get && req.method() != http::verb::head) {
    return {405, "text/plain", "only GET\n", {}, {}};
  }
  const std::string_view target(req.target().data(), req.target().size());
  const auto q = target.find('?');
  const std::string_view path = target.substr(0, q);
  const std::string_view query =
      q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
  if (path == "/healthz") {
    // A liveness probe: answering proves the server's event loop runs (it also runs the hub).
    return {200, "text/plain", "ok\n", {}, {}};
  }
  if (path == "/metrics" && r.metrics) {
    return {200, "text/plain; version=0.0.4; charset=utf-8", r.metrics(), {}, {}};
  }
  if (path == "/ws" && r.observer && websocket::is_upgrade(req)) {
    const auto host = req[http::field::host];
    const auto origin = req[http::field::origin];
    const std::string_view host_v(host.data(), host.size());
    const std::string_view origin_v(origin.data(), origin.size());
    if (!allowed_host(host_v, origins)) {
      return {403,
              "text/plain",
              "forbidden: Host '" + std::string(host_v.substr(0, 200)) +
                  "' is not this server (an IP address, localhost, or a host of http_origins)\n",
              {},
              {}};
    }
    if (!allowed_origin(origin_v, host_v, origins)) {
      return {403,
              "text/plain",
              "forbidden: pages of origin '" + std::string(origin_v.substr(0, 200)) +
                  "' may not open /ws (config http_origins)\n",
              {},
              {}};
    }
    return {http_answer::upgrade, {}, {}, query_value(query, "token"), {}};
  }
  for (const auto& d : r.documents) {
    if (path == d.path) {
      return {200, d.content_type, *d.body, {}, {}};
    }
  }
  if (r.assets && path.starts_with('/')) {
    const std::string_view rel = path == "/" ? std::string_view("index.html") : path.substr(1);
    if (r.files) {
      if (const auto found = r.files->find(std::string(rel)); found != r.files->end()) {
        return {200, std::string(content_type_of(found->first)), {}, {}, found->second};
      }
    }
  } else if (!r.assets && path == "/" && !r.no_viewer.empty()) {
    return {404, "text/plain", r.no_viewer + "\n", {}, {}};
  }
  return {404, "text/plain", r.metrics && !r.observer ? "see /metrics\n" : "not found\n", {}, {}};
}

struct http_listener::state : std::enable_shared_from_this<http_listener::state> {
  state(asio::io_context& ctx, http_routes r, http_settings s, listen_address b)
      : io(ctx), routes(std::move(r)), settings(std::move(s)), bound(std::move(b)) {}

  /// A connection the accept loop took: served, or refused over max_connections.
  void accepted(tcp::socket socket);

  asio::io_context& io;
  http_routes routes;
  http_settings settings;
  listen_address bound;
  http_stats stats;
  std::shared_ptr<accept_loop<tcp::acceptor, tcp::socket>> loop;
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

/// Counts an open WebSocket for as long as it lives.
struct ws_slot {
  explicit ws_slot(std::shared_ptr<listener_state> s) : st(std::move(s)) { ++st->stats.websockets; }
  ~ws_slot() { --st->stats.websockets; }
  ws_slot(const ws_slot&) = delete;
  ws_slot& operator=(const ws_slot&) = delete;
  std::shared_ptr<listener_state> st;
};

/// A WebSocket bridged to the hub over a socket pair: the hub's end carries the line protocol,
/// this end turns each line into a text message and each message into a line. One write in
/// flight each way; what the hub sends is read ahead only up to a bound while a write to the
/// browser is in flight, so a browser that does not read stops this bridge reading the hub's
/// socket and the hub's outbound budget applies (protocol.md §1). The hub's side is always being
/// read, so its close is seen at once: the last lines are then flushed and the WebSocket closed
/// within `ws_linger`. A write the browser does not take within `ws_write_timeout` closes it.
class ws_bridge : public std::enable_shared_from_this<ws_bridge> {
public:
  ws_bridge(beast::tcp_stream stream, asio::local::stream_protocol::socket local,
            std::shared_ptr<listener_state> st)
      : ws_(std::move(stream)), local_(std::move(local)), slot_(st), ws_count_(st),
        write_timer_(local_.get_executor()), linger_timer_(local_.get_executor()) {}

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
                          self->accepted_ = true;
                          self->read_browser();
                          self->read_hub();
                        });
    });
  }

private:
  static constexpr std::size_t read_ahead = 65536; ///< hub bytes buffered beyond a whole line

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

  /// Whether the buffered hub bytes hold a whole line (from `scanned_` on).
  bool has_line() {
    const auto nl = pending_.find('\n', scanned_);
    scanned_ = nl == std::string::npos ? pending_.size() : nl;
    return nl != std::string::npos;
  }

  void read_hub() {
    if (reading_hub_ || hub_closed_ || closed_) {
      return;
    }
    // Backpressure: with a whole line waiting and enough read ahead, wait for the browser.
    if (pending_.size() >= read_ahead && has_line()) {
      return;
    }
    if (pending_.size() > max_bridged_line) {
      shut(); // a line longer than any the hub sends
      return;
    }
    reading_hub_ = true;
    local_.async_read_some(asio::buffer(chunk_),
                           [self = shared_from_this()](const error_code& ec, std::size_t n) {
                             self->reading_hub_ = false;
                             if (self->closed_) {
                               return;
                             }
                             self->pending_.append(self->chunk_.data(), n);
                             if (ec) {
                               self->hub_closed();
                               return;
                             }
                             self->pump();
                             self->read_hub();
                           });
  }

  /// The hub closed its side (bye, a refused hello, a slow consumer): flush what came, then
  /// close the WebSocket, all within ws_linger.
  void hub_closed() {
    hub_closed_ = true;
    linger_timer_.expires_after(slot_.st->settings.ws_linger);
    linger_timer_.async_wait([self = shared_from_this()](const error_code& ec) {
      if (!ec) {
        self->shut();
      }
    });
    pump();
  }

  /// Send the next whole line, if no write is in flight; after the hub's close and its last
  /// line, close the WebSocket.
  void pump() {
    if (writing_ || closed_) {
      return;
    }
    if (!has_line()) {
      if (hub_closed_ && !closing_) {
        closing_ = true;
        if (!accepted_) {
          shut();
          return;
        }
        ws_.async_close(websocket::close_code::normal,
                        [self = shared_from_this()](const error_code&) { self->shut(); });
      }
      return;
    }
    const std::size_t n = scanned_;
    down_.assign(pending_, 0, n);
    pending_.erase(0, n + 1);
    scanned_ = 0;
    writing_ = true;
    write_timer_.expires_after(slot_.st->settings.ws_write_timeout);
    write_timer_.async_wait([self = shared_from_this()](const error_code& ec) {
      if (!ec) {
        self->shut(); // the browser does not take what is sent: give its slot back
      }
    });
    ws_.text(true);
    ws_.async_write(asio::buffer(down_),
                    [self = shared_from_this()](const error_code& e, std::size_t) {
                      self->writing_ = false;
                      self->write_timer_.cancel();
                      if (e) {
                        self->shut();
                        return;
                      }
                      self->pump();
                      self->read_hub();
                    });
  }

  void shut() {
    if (closed_) {
      return;
    }
    closed_ = true;
    write_timer_.cancel();
    linger_timer_.cancel();
    error_code ignored;
    local_.close(ignored);
    beast::get_lowest_layer(ws_).socket().close(ignored);
  }

  websocket::stream<beast::tcp_stream> ws_;
  asio::local::stream_protocol::socket local_;
  open_slot slot_;
  ws_slot ws_count_;
  asio::steady_timer write_timer_;
  asio::steady_timer linger_timer_;
  std::string hello_;
  beast::flat_buffer in_;
  std::string up_;
  std::array<char, 65536> chunk_{};
  std::string pending_;     ///< hub bytes not yet sent
  std::size_t scanned_ = 0; ///< pending_ has no '\n' before this
  std::string down_;
  bool accepted_ = false;
  bool reading_hub_ = false;
  bool writing_ = false;
  bool hub_closed_ = false;
  bool closing_ = false;
  bool closed_ = false;
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
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](const error_code& ec, std::size_t) { self->on_read(ec); });
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
    auto a = answer_request(slot_.st->routes, req, slot_.st->settings.origins);
    if (a.status == http_answer::upgrade) {
      upgrade(req, std::move(a.token));
      return;
    }
    if (a.status == 403) {
      ++slot_.st->stats.forbidden;
    }
    if (a.shared) {
      respond_shared(a.content_type, std::move(a.shared), req.method() == http::verb::head);
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
    auto bridge = std::make_shared<ws_bridge>(std::move(stream_), std::move(mine), slot_.st);
    slot_.st->routes.observer(std::move(hub_end), std::move(peer));
    bridge->start(req, std::move(token));
  }

  /// A static file: the response refers to the shared contents (no copy per request).
  void respond_shared(std::string_view type, std::shared_ptr<const std::string> body, bool head) {
    using body_type = http::span_body<const char>;
    auto res = std::make_shared<http::response<body_type>>(http::status::ok, 11);
    res->set(http::field::content_type, beast::string_view(type.data(), type.size()));
    res->set(http::field::connection, "close");
    res->body() = body_type::value_type(body->data(), body->size());
    res->prepare_payload();
    if (head) {
      res->body() = body_type::value_type();
    }
    res->keep_alive(false);
    stream_.expires_after(slot_.st->settings.idle_timeout);
    http::async_write(stream_, *res,
                      [self = shared_from_this(), res, body](const error_code&, std::size_t) {
                        error_code ignored;
                        self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
                        self->drain();
                      });
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

void http_listener::state::accepted(tcp::socket socket) {
  auto session = std::make_shared<http_session>(std::move(socket), shared_from_this());
  if (stats.open > settings.max_connections) {
    ++stats.refused;
    session->refuse();
  } else {
    session->start();
  }
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
  if (routes.assets && !routes.files) {
    // docs/guide/viewer.md: the viewer's files are read once, here; requests share them.
    routes.files =
        std::make_shared<const std::map<std::string, std::shared_ptr<const std::string>>>(
            load_assets(*routes.assets));
  }
  if (!routes.assets && routes.no_viewer.empty() &&
      (routes.observer || !routes.documents.empty())) {
    // A listener for the viewer's page without the page: `/` says why (serve --http).
    routes.no_viewer = viewer_missing_message(viewer_search_path());
  }
  auto s = std::make_shared<state>(io, std::move(routes), std::move(settings), bound);
  s->loop = accept_loop<tcp::acceptor, tcp::socket>::start(
      io, std::move(acceptor),
      [weak = std::weak_ptr<state>(s)](tcp::socket socket) {
        if (const auto self = weak.lock()) {
          self->accepted(std::move(socket));
        }
      },
      s->settings.accept_backoff);
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
  http_stats out = state_->stats;
  out.accepted = state_->loop->counted().accepted;
  out.accept_failures = state_->loop->counted().failures;
  return out;
}

void http_listener::close() {
  state_->loop->close();
}

std::vector<std::filesystem::path> viewer_search_path() {
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
  return candidates;
}

std::optional<std::filesystem::path> find_viewer_assets() {
  std::error_code ec;
  for (const auto& c : viewer_search_path()) {
    if (std::filesystem::is_regular_file(c / "index.html", ec)) {
      return c;
    }
  }
  return std::nullopt;
}

std::string viewer_missing_message(const std::vector<std::filesystem::path>& searched) {
  std::string folders;
  for (const auto& f : searched) {
    folders += (folders.empty() ? "" : ", ") + f.string();
  }
  if (folders.empty()) {
    folders = "(none: EMOTE_SIM_VIEWER_DIR is not set and the executable's path is unknown)";
  }
  return "the viewer is not built: no index.html in " + folders +
         "; build it with scripts/build-viewer [preset] (Node.js and npm; it writes "
         "build/<preset>/viewer/), or set EMOTE_SIM_VIEWER_DIR to a built viewer's folder";
}

} // namespace emote::server
