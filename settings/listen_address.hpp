#pragma once
// Listener addresses as protocol.md §1 writes them: `HOST:PORT` (TCP; `[::1]:PORT` for IPv6
// literals) or `unix:/path/to.sock`.

#include "engine/core/result.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace emote::settings {

struct listen_address {
  enum class kind : std::uint8_t { tcp, unix_socket };
  listen_address::kind type = kind::tcp;
  std::string host;       ///< tcp: name or IP literal (without brackets)
  std::uint16_t port = 0; ///< tcp: 0 asks the system for an ephemeral port
  std::string path;       ///< unix_socket

  /// The address in the form it was written (`127.0.0.1:25580`, `[::1]:80`, `unix:/x.sock`).
  [[nodiscard]] std::string text() const;
  friend bool operator==(const listen_address&, const listen_address&) = default;
};

/// Parse `HOST:PORT` or `unix:PATH`; the error is a short message for the config key.
core::result<listen_address, std::string> parse_listen_address(std::string_view text);

} // namespace emote::settings
