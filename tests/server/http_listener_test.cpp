// The HTTP listener (server/daemon/http_listener.hpp) on real loopback sockets: routes, malformed
// requests, its bounds (connection cap, idle timeout, accept backoff when out of descriptors) and
// the observer WebSocket bridged to a real hub over the synthetic simulation.
#include "server/daemon/http_listener.hpp"

#include "descriptors.hpp"
#include "server/daemon/hub.hpp"
#include "server/qa/line_client.hpp"
#include "synthetic_host.hpp"

#include <doctest/doctest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <optional>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>

using namespace emote::server;
using namespace emote::protocol;
using namespace emote::settings;
namespace asio = boost::asio;
namespace beast = boost::beast;
using namespace std::chrono_literals;

namespace {

/// An http_listener on 127.0.0.1:0 run by its own thread.
struct http_fixture {
  explicit http_fixture(http_routes routes, http_settings settings = {}) {
    spdlog::set_level(spdlog::level::off);
    auto l =
        http_listener::open(io, *parse_listen_address("127.0.0.1:0"), std::move(routes), settings);
    REQUIRE_MESSAGE(l.ok(), (l.ok() ? "" : l.error()));
    listener = std::move(l).value();
    addr = listener->bound();
    guard.emplace(io.get_executor());
    thread = std::thread([this] { io.run(); });
  }
  ~http_fixture() {
    asio::post(io, [this] {
      listener.reset();
      guard.reset();
      io.stop();
    });
    thread.join();
  }
  http_stats stats() {
    std::promise<http_stats> p;
    asio::post(io, [&] { p.set_value(listener->stats()); });
    return p.get_future().get();
  }
  line_client connect() {
    auto c = line_client::connect(addr, 2s);
    REQUIRE(c.ok());
    return std::move(c).value();
  }
  /// The response's lines (until the server closes).
  std::vector<std::string> exchange(const std::string& request) {
    auto c = connect();
    c.send_raw(request);
    std::vector<std::string> lines;
    while (auto l = c.read_line(3s)) {
      lines.push_back(*l);
    }
    CHECK_MESSAGE(c.eof(), "the server closes after its answer");
    return lines;
  }

  asio::io_context io;
  std::unique_ptr<http_listener> listener;
  listen_address addr;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> guard;
  std::thread thread;
};

std::string status_of(const std::vector<std::string>& lines) {
  return lines.empty() ? std::string("(nothing)") : lines.front();
}

std::filesystem::path scratch(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() /
           ("emote_sim_http_" + std::to_string(::getpid()) + "_" + name);
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

} // namespace

TEST_CASE("http: assets, documents, metrics and not found") {
  const auto dir = scratch("assets");
  std::ofstream(dir / "index.html") << "<html>viewer</html>\n";
  std::ofstream(dir / "app.js") << "let x = 1;";
  std::ofstream(dir.parent_path() / "emote_sim_http_secret.txt") << "secret";
  http_routes r;
  r.assets = dir;
  r.metrics = [] { return std::string("emote_sim_ticks_total 1\n"); };
  r.documents.push_back({"/timeline.json", "application/json",
                         std::make_shared<const std::string>("{\"ticks\":3}\n")});
  http_fixture f(r);
  auto index = f.exchange("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(status_of(index) == "HTTP/1.1 200 OK");
  CHECK(index.back() == "<html>viewer</html>");
  auto js = f.exchange("GET /app.js HTTP/1.1\r\n\r\n");
  CHECK(status_of(js) == "HTTP/1.1 200 OK");
  CHECK(std::find(js.begin(), js.end(), "Content-Type: text/javascript; charset=utf-8") !=
        js.end());
  auto doc = f.exchange("GET /timeline.json HTTP/1.1\r\n\r\n");
  CHECK(doc.back() == R"({"ticks":3})");
  CHECK(f.exchange("GET /metrics HTTP/1.1\r\n\r\n").back() == "emote_sim_ticks_total 1");
  const auto health = f.exchange("GET /healthz HTTP/1.1\r\n\r\n");
  CHECK(status_of(health) == "HTTP/1.1 200 OK");
  CHECK(health.back() == "ok");
  CHECK(status_of(f.exchange("GET /missing.js HTTP/1.1\r\n\r\n")) == "HTTP/1.1 404 Not Found");
  CHECK(status_of(f.exchange("GET /../emote_sim_http_secret.txt HTTP/1.1\r\n\r\n")) ==
        "HTTP/1.1 404 Not Found");
  CHECK(status_of(f.exchange("GET /%2e%2e/emote_sim_http_secret.txt HTTP/1.1\r\n\r\n")) ==
        "HTTP/1.1 404 Not Found");
  // No observer route: /ws is not found either.
  CHECK(status_of(
            f.exchange("GET /ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")) ==
        "HTTP/1.1 404 Not Found");
  auto head = f.exchange("HEAD /index.html HTTP/1.1\r\n\r\n");
  CHECK(status_of(head) == "HTTP/1.1 200 OK");
  CHECK(std::find(head.begin(), head.end(), "Content-Length: 20") != head.end());
  CHECK(head.back().empty()); // headers only
}

// docs/guide/viewer.md: without the viewer's bundle, `/` answers the one message that `view` and
// `serve --http` share: the folders searched and how to build it; other paths stay "not found".
TEST_CASE("http: without the viewer, / names the folders searched and how to build it") {
  const std::vector<std::filesystem::path> searched{"/opt/a/viewer", "/opt/share/emote-sim/viewer"};
  const std::string message = viewer_missing_message(searched);
  CHECK(message.starts_with("the viewer is not built: no index.html in /opt/a/viewer, "
                            "/opt/share/emote-sim/viewer; build it with scripts/build-viewer"));
  CHECK(message.find("EMOTE_SIM_VIEWER_DIR") != std::string::npos);
  CHECK(message.find('\n') == std::string::npos);
  CHECK(viewer_missing_message({}).find("EMOTE_SIM_VIEWER_DIR is not set") != std::string::npos);
  http_routes r;
  r.documents.push_back({"/timeline.json", "application/json",
                         std::make_shared<const std::string>("{\"ticks\":3}\n")});
  r.no_viewer = message;
  http_fixture f(r);
  const auto index = f.exchange("GET / HTTP/1.1\r\n\r\n");
  CHECK(status_of(index) == "HTTP/1.1 404 Not Found");
  CHECK(index.back() == message);
  CHECK(f.exchange("GET /app.js HTTP/1.1\r\n\r\n").back() == "not found");
  CHECK(f.exchange("GET /timeline.json HTTP/1.1\r\n\r\n").back() == R"({"ticks":3})");
  // The search path: EMOTE_SIM_VIEWER_DIR first, then beside the executable's folder.
  ::setenv("EMOTE_SIM_VIEWER_DIR", "/opt/mine", 1);
  const auto path = viewer_search_path();
  ::unsetenv("EMOTE_SIM_VIEWER_DIR");
  REQUIRE(path.size() == 3);
  CHECK(path[0] == "/opt/mine");
  const auto self = std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path();
  CHECK(path[1] == self / "viewer");
  CHECK(path[2] == self / "share" / "emote-sim" / "viewer");
}

TEST_CASE("http: every malformed request gets an error status and the listener keeps serving") {
  http_routes r;
  r.metrics = [] { return std::string("ok\n"); };
  http_fixture f(r);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"garbage\r\n\r\n", "HTTP/1.1 400 Bad Request"},
      {"GET /metrics HTTP/1.1\r\nBad Header\r\n\r\n", "HTTP/1.1 400 Bad Request"},
      {"GET /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello", "HTTP/1.1 400 Bad Request"},
      {"GET /metrics HTTP/1.1\r\nContent-Length: x\r\n\r\n", "HTTP/1.1 400 Bad Request"},
      {std::string("GET /\0 HTTP/1.1\r\n\r\n", 18), "HTTP/1.1 400 Bad Request"},
      {"DELETE /metrics HTTP/1.1\r\n\r\n", "HTTP/1.1 405 Method Not Allowed"},
      {"GET /metrics HTTP/1.1\r\nX: " + std::string(1 << 20, 'a') + "\r\n\r\n",
       "HTTP/1.1 431 Request Header Fields Too Large"},
  };
  for (const auto& [request, expected] : cases) {
    CHECK_MESSAGE(status_of(f.exchange(request)) == expected, request.substr(0, 40));
  }
  CHECK(status_of(f.exchange("GET /metrics HTTP/1.1\r\n\r\n")) == "HTTP/1.1 200 OK");
}

TEST_CASE("http: an idle or slow connection is closed after the timeout") {
  http_routes r;
  r.metrics = [] { return std::string("ok\n"); };
  http_settings s;
  s.idle_timeout = 300ms;
  http_fixture f(r, s);
  auto idle = f.connect();
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_FALSE(idle.read_line(3s).has_value());
  CHECK(idle.eof());
  CHECK(std::chrono::steady_clock::now() - t0 < 2s);
  // A client dribbling a request byte by byte does not keep its connection past the timeout.
  auto slow = f.connect();
  for (int i = 0; i < 10 && slow.send_raw("a"); ++i) {
    std::this_thread::sleep_for(50ms);
  }
  for (int i = 0; i < 30 && slow.send_raw("a"); ++i) {
    std::this_thread::sleep_for(50ms);
  }
  CHECK_FALSE(slow.read_line(2s).has_value());
  CHECK(slow.eof());
  CHECK(f.stats().open == 0);
}

TEST_CASE("http: over max_connections the next connection gets 503 and is closed") {
  http_routes r;
  r.metrics = [] { return std::string("ok\n"); };
  http_settings s;
  s.max_connections = 3;
  http_fixture f(r, s);
  std::vector<line_client> held;
  for (int i = 0; i < 3; ++i) {
    held.push_back(f.connect());
  }
  for (int i = 0; i < 100 && f.stats().open < 3; ++i) {
    std::this_thread::sleep_for(10ms);
  }
  REQUIRE(f.stats().open == 3);
  CHECK(status_of(f.exchange("GET /metrics HTTP/1.1\r\n\r\n")) ==
        "HTTP/1.1 503 Service Unavailable");
  CHECK(f.stats().refused == 1);
  held.clear();
  for (int i = 0; i < 200 && f.stats().open > 0; ++i) {
    std::this_thread::sleep_for(10ms);
  }
  CHECK(status_of(f.exchange("GET /metrics HTTP/1.1\r\n\r\n")) == "HTTP/1.1 200 OK");
}

TEST_CASE("http: 1,000 connections at once are each answered") {
  // This process holds both ends of every connection: over 2,000 descriptors, more than the soft
  // limit many systems start with (1024). Raise it towards the hard limit for this test.
  rlimit old{};
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &old) == 0);
  rlimit raised = old;
  raised.rlim_cur = std::max<rlim_t>(old.rlim_cur, std::min<rlim_t>(old.rlim_max, 4096));
  REQUIRE(::setrlimit(RLIMIT_NOFILE, &raised) == 0);
  struct restore {
    rlimit limit;
    ~restore() { ::setrlimit(RLIMIT_NOFILE, &limit); }
  } restore_limit{old};
  REQUIRE_MESSAGE(raised.rlim_cur >= 2100, "this test needs 2,100 file descriptors; the hard "
                                           "limit (ulimit -Hn) is "
                                               << old.rlim_max);
  http_routes r;
  r.metrics = [] { return std::string("ok\n"); };
  http_fixture f(r);
  std::vector<line_client> clients;
  for (int i = 0; i < 1000; ++i) {
    clients.push_back(f.connect());
  }
  for (auto& c : clients) {
    REQUIRE(c.send_raw("GET /metrics HTTP/1.1\r\n\r\n"));
  }
  int ok = 0;
  for (auto& c : clients) {
    auto l = c.read_line(5s);
    ok += l && *l == "HTTP/1.1 200 OK";
  }
  CHECK(ok == 1000);
}

TEST_CASE("http: out of descriptors, the accept loop backs off instead of spinning") {
  http_routes r;
  r.metrics = [] { return std::string("ok\n"); };
  http_settings s;
  s.accept_backoff = 100ms;
  http_fixture f(r, s);
  // Every descriptor but one taken; the client's socket takes that one, so the server's accept
  // fails until they are given back.
  emote::server::testing::descriptors_taken taken;
  std::optional<line_client> blocked;
  {
    auto b = line_client::connect(f.addr, 2s);
    if (b.ok()) {
      blocked.emplace(std::move(b).value());
    }
  }
  REQUIRE(blocked.has_value());
  std::this_thread::sleep_for(600ms);
  const auto failures = f.stats().accept_failures;
  taken.give_back();
  CHECK(failures >= 2);  // it tried again…
  CHECK(failures <= 12); // …every 100 ms, not in a tight loop
  blocked->send_raw("GET /metrics HTTP/1.1\r\n\r\n");
  auto l = blocked->read_line(3s);
  CHECK((l && *l == "HTTP/1.1 200 OK"));
}

TEST_CASE("http: /ws is an observer connection of the hub, token checked, read-only") {
  using emote::server::testing::synthetic_host;
  asio::io_context io;
  synthetic_host host;
  metrics m;
  hub_settings hs;
  hs.clock = clock_mode::manual;
  hs.auth.observer_token = "see";
  auto server = std::make_unique<hub>(io, hs, host, m, nullptr);
  REQUIRE_FALSE(server->listen({*parse_listen_address("127.0.0.1:0")}));
  const auto line_addr = server->bound()[0];
  http_routes r;
  r.observer = [&](connection::socket_type sock, std::string peer) {
    server->accept(std::move(sock), std::move(peer));
  };
  auto l = http_listener::open(io, *parse_listen_address("127.0.0.1:0"), r);
  REQUIRE(l.ok());
  const auto http_addr = l.value()->bound();
  auto guard = asio::make_work_guard(io);
  std::thread t([&] { io.run(); });

  asio::io_context cio; // the client's sockets (used synchronously)
  auto ws_open = [&](const std::string& target) {
    auto ws = std::make_unique<beast::websocket::stream<asio::ip::tcp::socket>>(cio);
    ws->next_layer().connect({asio::ip::make_address("127.0.0.1"), http_addr.port});
    ws->handshake("127.0.0.1", target);
    return ws;
  };
  auto ws_read = [](beast::websocket::stream<asio::ip::tcp::socket>& ws) {
    beast::flat_buffer b;
    boost::system::error_code ec;
    ws.read(b, ec);
    return ec ? std::string("(closed)") : beast::buffers_to_string(b.data());
  };
  {
    auto wrong = ws_open("/ws?token=nope");
    CHECK(ws_read(*wrong).find(R"("code":"unauthorized")") != std::string::npos);
    CHECK(ws_read(*wrong) == "(closed)");
  }
  auto ws = ws_open("/ws?token=se%65");
  const auto welcome = ws_read(*ws);
  CHECK(welcome.find(R"("op":"welcome")") != std::string::npos);
  CHECK(welcome.find(R"("role":"observer")") != std::string::npos);
  ws->text(true);
  ws->write(
      asio::buffer(std::string(R"({"op":"player.join","id":1,"player":"x","position":[0,0,0]})")));
  CHECK(ws_read(*ws).find(R"("code":"forbidden")") != std::string::npos);
  ws->write(asio::buffer(std::string(R"({"op":"subscribe","id":2})")));
  CHECK(ws_read(*ws).find(R"("id":2,)") != std::string::npos);
  // A controller on the line protocol plays; the browser receives the frames.
  auto c = line_client::connect(line_addr, 2s);
  REQUIRE(c.ok());
  c->send_line(R"({"op":"hello","protocol":1})");
  REQUIRE(c->read_line(2s).has_value());
  c->send_line(R"({"op":"player.join","player":"a","position":[0,64,0]})");
  c->send_line(R"({"op":"emote.play","player":"a","emote":"test:wave"})");
  c->send_line(R"({"op":"clock.step","id":"s","ticks":2})");
  const auto frame = ws_read(*ws);
  CHECK(frame.starts_with(R"({"op":"frame","tick":0,)"));
  CHECK(frame.find("playback.started") != std::string::npos);
  boost::system::error_code ignored;
  ws->close(beast::websocket::close_code::normal, ignored);
  asio::post(io, [&] {
    l.value()->close();
    server.reset();
    guard.reset();
    io.stop();
  });
  t.join();
}

namespace {

using ws_client = beast::websocket::stream<asio::ip::tcp::socket>;

/// A hub on the synthetic simulation with an HTTP listener whose /ws are its observers, both run
/// by one thread; the WebSocket clients use their own io_context synchronously.
struct ws_fixture {
  explicit ws_fixture(http_settings settings = {}, hub_settings hs = manual_hub()) {
    spdlog::set_level(spdlog::level::off);
    server = std::make_unique<hub>(io, hs, host, m, nullptr);
    REQUIRE_FALSE(server->listen({*parse_listen_address("127.0.0.1:0")}));
    line_addr = server->bound()[0];
    http_routes r;
    r.observer = [this](connection::socket_type sock, std::string peer) {
      server->accept(std::move(sock), std::move(peer));
    };
    auto l = http_listener::open(io, *parse_listen_address("127.0.0.1:0"), r, settings);
    REQUIRE(l.ok());
    listener = std::move(l).value();
    http_addr = listener->bound();
    guard.emplace(io.get_executor());
    thread = std::thread([this] { io.run(); });
  }
  ~ws_fixture() {
    asio::post(io, [this] {
      listener.reset();
      server.reset();
      guard.reset();
      io.stop();
    });
    thread.join();
  }
  static hub_settings manual_hub() {
    hub_settings hs;
    hs.clock = clock_mode::manual;
    return hs;
  }
  http_stats stats() {
    std::promise<http_stats> p;
    asio::post(io, [&] { p.set_value(listener->stats()); });
    return p.get_future().get();
  }
  /// Open /ws with this Host and Origin (none when empty); the handshake's error, if any.
  std::unique_ptr<ws_client> open(const std::string& host_name, const std::string& origin,
                                  boost::system::error_code& ec) {
    auto ws = std::make_unique<ws_client>(cio);
    ws->next_layer().connect({asio::ip::make_address("127.0.0.1"), http_addr.port});
    ws->set_option(
        beast::websocket::stream_base::decorator([origin](beast::websocket::request_type& req) {
          if (!origin.empty()) {
            req.set(beast::http::field::origin, origin);
          }
        }));
    ws->handshake(host_name, "/ws", ec);
    return ws;
  }
  std::string port() const { return std::to_string(http_addr.port); }

  asio::io_context io;
  emote::server::testing::synthetic_host host;
  metrics m;
  std::unique_ptr<hub> server;
  std::unique_ptr<http_listener> listener;
  listen_address line_addr;
  listen_address http_addr;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> guard;
  std::thread thread;
  asio::io_context cio;
};

std::string ws_read(ws_client& ws) {
  beast::flat_buffer b;
  boost::system::error_code ec;
  ws.read(b, ec);
  return ec ? std::string("(closed)") : beast::buffers_to_string(b.data());
}

} // namespace

// protocol.md §10: the attack of a web page on another origin reading the live stream (and a
// DNS-rebound name reaching the listener): refused 403; the listener's own page, clients without
// an Origin and configured origins get in.
TEST_CASE("http: /ws refuses other origins and foreign Host names") {
  http_settings s;
  s.origins = {"https://viewer.example.com"};
  ws_fixture f(s);
  const std::string self = "127.0.0.1:" + f.port();
  struct attempt {
    std::string host;
    std::string origin;
    bool allowed;
  };
  const std::vector<attempt> attempts = {
      {self, "", true},               // not a browser
      {self, "http://" + self, true}, // the listener's own page
      {"localhost:" + f.port(), "http://localhost:" + f.port(), true},
      {self, "https://viewer.example.com", true}, // configured
      {"viewer.example.com", "https://viewer.example.com", true},
      {self, "http://evil.example", false},    // another site's page
      {self, "null", false},                   // a sandboxed page
      {self, "http://127.0.0.1:1", false},     // another port is another origin
      {"evil.example:" + f.port(), "", false}, // DNS rebinding
      {"evil.example:" + f.port(), "http://evil.example:" + f.port(), false},
  };
  for (const auto& a : attempts) {
    CAPTURE(a.host);
    CAPTURE(a.origin);
    boost::system::error_code ec;
    auto ws = f.open(a.host, a.origin, ec);
    if (a.allowed) {
      REQUIRE_FALSE(ec);
      CHECK(ws_read(*ws).find(R"("op":"welcome")") != std::string::npos);
      ws->close(beast::websocket::close_code::normal, ec);
    } else {
      CHECK(ec);
    }
  }
  CHECK(f.stats().forbidden == 5); // each refusal was a 403
  // What a page of another origin is answered, as the browser sees it.
  auto raw = line_client::connect(f.http_addr, 2s);
  REQUIRE(raw.ok());
  raw->send_raw("GET /ws HTTP/1.1\r\nHost: " + self +
                "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: "
                "dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nOrigin: "
                "http://evil.example\r\n\r\n");
  CHECK(raw->read_line(3s) == "HTTP/1.1 403 Forbidden");
  // `*` allows any page.
  http_settings any;
  any.origins = {"*"};
  ws_fixture g(any);
  boost::system::error_code ec;
  auto ws = g.open("evil.example", "http://evil.example", ec);
  CHECK_FALSE(ec);
}

// protocol.md §10: a WebSocket whose hub connection closes gives its HTTP slot back at once,
// whatever the browser does (here: it never reads and never answers the close).
TEST_CASE("http: a /ws cut by the hub is closed within the linger, even when the browser is "
          "silent") {
  hub_settings hs = ws_fixture::manual_hub();
  hs.idle_timeout = 300ms; // the hub closes an observer that neither subscribes nor talks
  ws_fixture f({}, hs);
  std::vector<std::unique_ptr<ws_client>> clients;
  for (int i = 0; i < 20; ++i) {
    boost::system::error_code ec;
    clients.push_back(f.open("127.0.0.1", "", ec));
    REQUIRE_FALSE(ec);
  }
  for (int i = 0; i < 100 && f.stats().websockets < 20; ++i) {
    std::this_thread::sleep_for(10ms);
  }
  CHECK(f.stats().websockets == 20);
  const auto t0 = std::chrono::steady_clock::now();
  while (f.stats().open > 0 && std::chrono::steady_clock::now() - t0 < 10s) {
    std::this_thread::sleep_for(50ms);
  }
  CHECK(f.stats().open == 0);
  CHECK(std::chrono::steady_clock::now() - t0 < 4s); // idle 0.3 s + linger 2 s
}

// protocol.md §10: a browser that stops taking messages is closed after the write timeout, so it
// neither keeps its slot nor holds the hub's bytes.
TEST_CASE("http: a /ws write the browser does not take times out") {
  http_settings s;
  s.ws_write_timeout = 300ms;
  ws_fixture f(s);
  boost::system::error_code ec;
  auto ws = f.open("127.0.0.1", "", ec);
  REQUIRE_FALSE(ec);
  CHECK(ws_read(*ws).find(R"("op":"welcome")") != std::string::npos);
  // Ask for more than the sockets between us can hold, then read nothing.
  ws->text(true);
  const std::string pad(60000, 'x');
  for (int i = 0; i < 400 && !ec; ++i) {
    ws->write(asio::buffer(R"({"op":"ping","id":")" + pad + std::to_string(i) + "\"}"), ec);
  }
  const auto t0 = std::chrono::steady_clock::now();
  while (f.stats().open > 0 && std::chrono::steady_clock::now() - t0 < 15s) {
    std::this_thread::sleep_for(50ms);
  }
  CHECK(f.stats().open == 0);
}

// docs/guide/viewer.md: hidden files and symbolic links in the viewer folder are never served;
// each file is read once and shared by every response.
TEST_CASE("http: the viewer folder's hidden files and symlinks are refused; files are shared") {
  const auto dir = scratch("hidden");
  std::ofstream(dir / "index.html") << "<html>viewer</html>\n";
  std::ofstream(dir / ".env") << "TOKEN=secret\n";
  std::filesystem::create_directories(dir / ".git");
  std::ofstream(dir / ".git" / "config") << "[core]\n";
  std::filesystem::create_directories(dir / "js");
  std::ofstream(dir / "js" / "app.js") << "let x = 1;\n";
  std::ofstream(dir.parent_path() / "emote_sim_http_outside.txt") << "outside\n";
  std::filesystem::create_symlink(dir.parent_path() / "emote_sim_http_outside.txt",
                                  dir / "link.js");
  std::filesystem::create_directory_symlink(dir.parent_path(), dir / "up");
  const auto files = load_assets(dir);
  std::vector<std::string> names;
  for (const auto& [name, body] : files) {
    names.push_back(name);
  }
  CHECK(names == std::vector<std::string>{"index.html", "js/app.js"});
  http_routes r;
  r.assets = dir;
  http_fixture f(r);
  for (const char* path : {"/.env", "/.git/config", "/link.js", "/up/emote_sim_http_outside.txt"}) {
    CAPTURE(path);
    CHECK(status_of(f.exchange(std::string("GET ") + path + " HTTP/1.1\r\n\r\n")) ==
          "HTTP/1.1 404 Not Found");
  }
  CHECK(f.exchange("GET /js/app.js HTTP/1.1\r\n\r\n").back() == "let x = 1;");
  // Two answers share one buffer.
  r.files =
      std::make_shared<const std::map<std::string, std::shared_ptr<const std::string>>>(files);
  beast::http::request<beast::http::empty_body> req(beast::http::verb::get, "/js/app.js", 11);
  const auto a = answer_request(r, req);
  const auto b = answer_request(r, req);
  REQUIRE(a.shared);
  CHECK(a.shared.get() == b.shared.get());
}

// The attack of many unread requests for a large file: memory does not grow per request.
TEST_CASE("http: 100 unread requests for a 4 MiB file do not copy it 100 times") {
  const auto dir = scratch("big");
  std::ofstream(dir / "index.html") << "<html></html>\n";
  std::ofstream(dir / "big.bin") << std::string(std::size_t{4} << 20, 'b');
  http_routes r;
  r.assets = dir;
  http_fixture f(r);
  const auto rss = [] {
    std::ifstream statm("/proc/self/statm");
    long pages = 0;
    long resident = 0;
    statm >> pages >> resident;
    return resident * ::sysconf(_SC_PAGESIZE);
  };
  const long before = rss();
  std::vector<line_client> clients;
  for (int i = 0; i < 100; ++i) {
    clients.push_back(f.connect());
    REQUIRE(clients.back().send_raw("GET /big.bin HTTP/1.1\r\n\r\n"));
  }
  for (int i = 0; i < 100 && f.stats().open < 100; ++i) {
    std::this_thread::sleep_for(10ms);
  }
  std::this_thread::sleep_for(300ms);
  const long grown = rss() - before;
  CHECK_MESSAGE(grown < (long{100} << 20), grown); // one copy per request would be 400 MiB
}
