#pragma once
// The one HTTP listener (Boost.Beast) for what a browser or Prometheus asks (protocol.md §10,
// `http` and `metrics`): `GET /metrics` (Prometheus text), the viewer's static assets, documents
// the caller publishes (the `view` command's timeline), and `GET /ws`, a WebSocket that is an
// observer connection of the line protocol: the listener hands one end of a socket pair to the
// hub (which runs the hello, the observer's token and its read-only rules as for any socket) and
// bridges lines to WebSocket text messages.
//
// HTTP/1.1, one request per connection (`Connection: close`). Bounded: at most
// `max_connections` open (over the cap: 503 and close), a request must arrive within
// `idle_timeout`, headers at most `header_limit` bytes (else 431), no request body (else 400),
// every malformed request an error status. The accept loop backs off `accept_backoff` when the
// process or system is out of file descriptors instead of retrying at once.

#include "engine/core/result.hpp"
#include "server/daemon/connection.hpp"
#include "settings/listen_address.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace emote::server {

using settings::listen_address;

/// A fixed document served at `path` (e.g. the `view` command's `/timeline.json`).
struct http_document {
  std::string path;
  std::string content_type;
  std::shared_ptr<const std::string> body;
};

struct http_routes {
  /// `GET /metrics`; empty: 404.
  std::function<std::string()> metrics;
  /// The viewer's built assets (`index.html` …); empty: `/` answers 404 with `no_viewer`.
  /// http_listener::open loads them once (load_assets) unless `files` is set already.
  std::optional<std::filesystem::path> assets;
  /// The assets' contents by path relative to the folder (`index.html`, `js/app.js`), shared
  /// and immutable: every response refers to them, none copies them.
  std::shared_ptr<const std::map<std::string, std::shared_ptr<const std::string>>> files;
  /// `GET /ws`: receives the hub's end of each WebSocket's socket pair; empty: 404.
  std::function<void(connection::socket_type socket, std::string peer)> observer;
  std::vector<http_document> documents;
  /// What `/` answers (404) while `assets` is empty; empty: "not found". http_listener::open sets
  /// it to viewer_missing_message() when the listener serves the viewer's page (an `observer` or
  /// `documents`) and it is left empty.
  std::string no_viewer;
};

struct http_settings {
  std::string name = "http"; ///< prefixes startup errors ("http: cannot listen on …")
  std::size_t max_connections = 1024;
  /// protocol.md §10: origins besides the listener's own whose pages may open /ws (`*`: any);
  /// their hosts are accepted in a /ws request's `Host` besides IP literals and `localhost`.
  std::vector<std::string> origins;
  /// A /ws write to the browser that takes longer closes the WebSocket.
  std::chrono::milliseconds ws_write_timeout{10000};
  /// After the hub closed its side: how long the last lines and the close may take.
  std::chrono::milliseconds ws_linger{2000};
  std::chrono::milliseconds idle_timeout{10000};
  std::size_t header_limit = 8192;
  std::size_t max_ws_message = 1048576; ///< longest message a browser may send over /ws
  std::chrono::milliseconds accept_backoff{100};
};

struct http_stats {
  std::size_t open = 0;              ///< HTTP and WebSocket connections now open
  std::size_t websockets = 0;        ///< of which WebSockets
  std::uint64_t forbidden = 0;       ///< /ws requests refused for their Origin or Host
  std::uint64_t accepted = 0;        ///< connections accepted, refused ones included
  std::uint64_t refused = 0;         ///< over max_connections
  std::uint64_t accept_failures = 0; ///< accept errors (each EMFILE/ENFILE waits the backoff)
};

class http_listener {
public:
  static core::result<std::unique_ptr<http_listener>, std::string>
  open(boost::asio::io_context& io, const listen_address& address, http_routes routes,
       http_settings settings = {});

  ~http_listener();
  http_listener(const http_listener&) = delete;
  http_listener& operator=(const http_listener&) = delete;

  [[nodiscard]] listen_address bound() const;
  [[nodiscard]] http_stats stats() const;
  /// Stop accepting; open connections finish on their own (bounded by their timeouts).
  void close();

  struct state;

private:
  explicit http_listener(std::shared_ptr<state> s);
  std::shared_ptr<state> state_;
};

/// What a request is answered: a status, its body, or (status `upgrade`) the observer WebSocket
/// with the URL's token.
struct http_answer {
  static constexpr unsigned upgrade = 101;
  unsigned status = 200;
  std::string content_type;
  std::string body;
  std::string token;
  /// A static file's shared contents (then `body` is empty): sent without a copy.
  std::shared_ptr<const std::string> shared;
};

/// The answer to a request that parsed: GET and HEAD routed as the listener does (the fuzz target
/// fuzz/http_fuzz.cpp drives it with whatever the parser accepts). `origins` are the settings'
/// (a /ws request from another origin, or naming another host, is 403).
http_answer answer_request(const http_routes& routes,
                           const boost::beast::http::request<boost::beast::http::empty_body>& req,
                           const std::vector<std::string>& origins = {});

/// The viewer folder's files, read once (docs/guide/viewer.md): regular files only, at most
/// 64 MiB each and 256 MiB in all; hidden names (a component starting with `.`) and symbolic
/// links are left out, so they are never served.
std::map<std::string, std::shared_ptr<const std::string>>
load_assets(const std::filesystem::path& folder);
/// The answer to a request that did not parse: 431 over the header limit, 400 when malformed;
/// nothing when the peer left, went quiet or closed mid-request.
std::optional<http_answer> answer_parse_error(const boost::system::error_code& ec);

/// The folders that may hold the built viewer, in the order they are searched:
/// $EMOTE_SIM_VIEWER_DIR when set, `viewer/` beside the executable's folder (the build tree:
/// build/<preset>/viewer), ../share/emote-sim/viewer (an installed tree).
std::vector<std::filesystem::path> viewer_search_path();
/// Where the built viewer is: the first folder of viewer_search_path() with an index.html.
std::optional<std::filesystem::path> find_viewer_assets();
/// The one message (docs/guide/viewer.md) for a viewer that is not built, used by `view` and
/// `serve --http` on stderr and as their `/` page: the folders searched (`searched`, from
/// viewer_search_path()) and how to build it (scripts/build-viewer) or point at it. One line.
std::string viewer_missing_message(const std::vector<std::filesystem::path>& searched);

} // namespace emote::server
