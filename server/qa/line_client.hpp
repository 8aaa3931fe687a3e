#pragma once
// A blocking NDJSON client over TCP or a Unix socket: what `emote-sim bot` and the integration
// tests use to talk to a server. Plain POSIX sockets with poll() timeouts; no Asio.

#include "engine/core/result.hpp"
#include "settings/listen_address.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace emote::server {

using settings::listen_address;

class line_client {
public:
  static core::result<line_client, std::string> connect(const listen_address& address,
                                                        std::chrono::milliseconds timeout);

  line_client(line_client&& o) noexcept;
  line_client& operator=(line_client&& o) noexcept;
  line_client(const line_client&) = delete;
  line_client& operator=(const line_client&) = delete;
  ~line_client();

  /// Send `line` plus '\n' (the whole of it, blocking). False when the connection is gone.
  bool send_line(std::string_view line);
  /// Send raw bytes as they are (for tests of framing).
  bool send_raw(std::string_view bytes);
  /// The next line without its '\n', or nullopt on timeout or end of stream (see `eof()`).
  std::optional<std::string> read_line(std::chrono::milliseconds timeout);
  [[nodiscard]] bool eof() const noexcept { return eof_; }
  /// Half-close: the server sees end of input but may still answer.
  void shutdown_write();
  void close();
  /// Shrink the kernel receive buffer (tests of slow consumers).
  void set_receive_buffer(int bytes);
  [[nodiscard]] int fd() const noexcept { return fd_; }

private:
  explicit line_client(int fd) : fd_(fd) {}
  int fd_ = -1;
  std::string buf_;
  std::size_t pos_ = 0;
  bool eof_ = false;
};

} // namespace emote::server
