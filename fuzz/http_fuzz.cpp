// libFuzzer target: bytes as an HTTP request through the listener's parser settings (Boost.Beast,
// the header limit, no body) and its answers (server/daemon/http_listener.hpp). Invariants beyond
// "no crash, no leak, no UB": a request that does not parse is answered 400 or 431 unless it is
// only incomplete; one that parses is answered 101 (the WebSocket), 200, 404 or 405, and an asset
// path never leaves the assets folder (the folder holds index.html only, so any other 200 is a
// bug).
#include "server/daemon/http_listener.hpp"

#include <boost/beast/http/parser.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string_view>

namespace {

namespace http = boost::beast::http;
using emote::server::http_answer;
using emote::server::http_routes;

void require(bool ok) {
  if (!ok) {
    std::abort();
  }
}

const http_routes& routes() {
  static const http_routes r = [] {
    http_routes x;
    const auto dir = std::filesystem::temp_directory_path() / "emote_sim_http_fuzz_assets";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "index.html") << "<html></html>\n";
    x.assets = dir;
    x.files = std::make_shared<const std::map<std::string, std::shared_ptr<const std::string>>>(
        emote::server::load_assets(dir));
    x.metrics = [] { return std::string("emote_sim_ticks_total 1\n"); };
    x.observer = [](emote::server::connection::socket_type, std::string) {};
    x.documents.push_back(
        {"/viewer.json", "application/json", std::make_shared<const std::string>("{}\n")});
    return x;
  }();
  return r;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  http::request_parser<http::empty_body> parser;
  parser.header_limit(static_cast<std::uint32_t>(emote::server::http_settings{}.header_limit));
  parser.body_limit(0);
  parser.eager(true);
  boost::system::error_code ec;
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  while (!rest.empty() && !parser.is_done()) {
    const std::size_t used = parser.put(boost::asio::buffer(rest.data(), rest.size()), ec);
    if (ec == http::error::need_more) {
      ec = {};
      break;
    }
    if (ec) {
      break;
    }
    if (used == 0) {
      break;
    }
    rest.remove_prefix(used);
  }
  if (ec) {
    const auto a = emote::server::answer_parse_error(ec);
    require(a.has_value() && (a->status == 400 || a->status == 431));
    return 0;
  }
  if (!parser.is_done()) {
    return 0; // incomplete: the listener waits for more (bounded by its timeout)
  }
  const http_answer a = emote::server::answer_request(routes(), parser.get());
  require(a.status == http_answer::upgrade || a.status == 200 || a.status == 403 ||
          a.status == 404 || a.status == 405);
  if (a.status == 200 && a.content_type.starts_with("text/html")) {
    require((a.shared ? *a.shared : a.body) == "<html></html>\n");
  }
  return 0;
}
