#include "server/qa/line_client.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace emote::server {

using settings::listen_address;

using core::failure;

namespace {

using clock_type = std::chrono::steady_clock;

int remaining_ms(clock_type::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock_type::now()).count();
  return left < 0 ? 0 : static_cast<int>(left);
}

} // namespace

core::result<line_client, std::string> line_client::connect(const listen_address& address,
                                                            std::chrono::milliseconds timeout) {
  if (address.type == listen_address::kind::unix_socket) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      return failure{std::string("socket: ") + std::strerror(errno)};
    }
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    std::memcpy(sa.sun_path, address.path.c_str(), address.path.size() + 1);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) { // NOLINT
      const std::string err = std::strerror(errno);
      ::close(fd);
      return failure{"cannot connect to " + address.text() + ": " + err};
    }
    return line_client(fd);
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  const std::string port = std::to_string(address.port);
  if (const int rc = ::getaddrinfo(address.host.c_str(), port.c_str(), &hints, &res); rc != 0) {
    return failure{"cannot resolve " + address.host + ": " + ::gai_strerror(rc)};
  }
  std::string last_error = "no address";
  const auto deadline = clock_type::now() + timeout;
  for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
    const int fd =
        ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    if (fd < 0) {
      last_error = std::strerror(errno);
      continue;
    }
    int rc = ::connect(fd, ai->ai_addr, ai->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      if (::poll(&p, 1, remaining_ms(deadline)) == 1) {
        int err = 0;
        socklen_t len = sizeof err;
        ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
        rc = err == 0 ? 0 : -1;
        errno = err;
      } else {
        errno = ETIMEDOUT;
      }
    }
    if (rc == 0) {
      ::freeaddrinfo(res);
      // Back to blocking mode; reads use poll() for their timeouts.
      const int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      ::fcntl(fd, F_SETFL, 0);
      return line_client(fd);
    }
    last_error = std::strerror(errno);
    ::close(fd);
  }
  ::freeaddrinfo(res);
  return failure{"cannot connect to " + address.text() + ": " + last_error};
}

line_client::line_client(line_client&& o) noexcept
    : fd_(o.fd_), buf_(std::move(o.buf_)), pos_(o.pos_), eof_(o.eof_) {
  o.fd_ = -1;
}

line_client& line_client::operator=(line_client&& o) noexcept {
  if (this != &o) {
    close();
    fd_ = o.fd_;
    buf_ = std::move(o.buf_);
    pos_ = o.pos_;
    eof_ = o.eof_;
    o.fd_ = -1;
  }
  return *this;
}

line_client::~line_client() {
  close();
}

bool line_client::send_raw(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool line_client::send_line(std::string_view line) {
  std::string s(line);
  s.push_back('\n');
  return send_raw(s);
}

std::optional<std::string> line_client::read_line(std::chrono::milliseconds timeout) {
  const auto deadline = clock_type::now() + timeout;
  for (;;) {
    const auto nl = buf_.find('\n', pos_);
    if (nl != std::string::npos) {
      std::string line = buf_.substr(pos_, nl - pos_);
      pos_ = nl + 1;
      if (pos_ > 65536 && pos_ * 2 > buf_.size()) {
        buf_.erase(0, pos_);
        pos_ = 0;
      }
      if (!line.empty() && line.back() == '\r') {
        line.pop_back();
      }
      return line;
    }
    if (eof_ || fd_ < 0) {
      return std::nullopt;
    }
    pollfd p{fd_, POLLIN, 0};
    const int rc = ::poll(&p, 1, remaining_ms(deadline));
    if (rc < 0 && errno == EINTR) {
      continue;
    }
    if (rc <= 0) {
      return std::nullopt;
    }
    char chunk[65536];
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      eof_ = true;
      continue;
    }
    buf_.append(chunk, static_cast<std::size_t>(n));
  }
}

void line_client::shutdown_write() {
  if (fd_ >= 0) {
    ::shutdown(fd_, SHUT_WR);
  }
}

void line_client::close() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

void line_client::set_receive_buffer(int bytes) {
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
}

} // namespace emote::server
