#include "settings/listen_address.hpp"

#include <charconv>

namespace emote::settings {

std::string listen_address::text() const {
  if (type == kind::unix_socket) {
    return "unix:" + path;
  }
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

core::result<listen_address, std::string> parse_listen_address(std::string_view text) {
  using core::failure;
  listen_address a;
  if (text.starts_with("unix:")) {
    a.type = listen_address::kind::unix_socket;
    a.path = std::string(text.substr(5));
    if (a.path.empty()) {
      return failure{std::string("a unix socket address needs a path: unix:/path/to.sock")};
    }
    // sockaddr_un.sun_path holds 108 bytes including the terminator.
    if (a.path.size() > 107) {
      return failure{std::string("unix socket path is longer than 107 bytes")};
    }
    return a;
  }
  std::string_view host;
  std::string_view port;
  if (text.starts_with("[")) {
    const auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return failure{std::string("expected [IPV6]:PORT")};
    }
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) {
      return failure{std::string("expected HOST:PORT or unix:PATH")};
    }
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) {
      return failure{std::string("write IPv6 addresses in brackets: [::1]:PORT")};
    }
  }
  if (host.empty()) {
    return failure{std::string("missing host in HOST:PORT")};
  }
  unsigned value = 0;
  const auto* end = port.data() + port.size();
  const auto [ptr, ec] = std::from_chars(port.data(), end, value);
  if (port.empty() || ec != std::errc{} || ptr != end || value > 65535) {
    return failure{std::string("port must be an integer between 0 and 65535")};
  }
  a.host = std::string(host);
  a.port = static_cast<std::uint16_t>(value);
  return a;
}

} // namespace emote::settings
