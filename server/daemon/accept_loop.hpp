#pragma once
// The one accept loop of every listener: the line protocol's (server/daemon/listener.cpp), the HTTP
// listener's (server/daemon/http_listener.cpp) and the gate's (server/daemon/gate_service.cpp). It
// accepts one connection after another and hands each socket to its owner. A failure for want of
// descriptors, buffers or memory waits `backoff` before the next try (trying at once would spin on
// a full descriptor table); another failure (a peer that reset before it was accepted) tries again
// at once, and a second one in a row waits too. close() ends it. The loop's state is shared with
// its pending handlers, so the owner may drop it at any time.

#include <boost/asio/error.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/system/error_code.hpp>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>

namespace emote::server {

/// The wait after a failure for want of descriptors, for listeners that do not configure one.
inline constexpr std::chrono::milliseconds default_accept_backoff{100};

/// Whether an accept failed for want of resources (then the loop waits before trying again).
inline bool accept_out_of_resources(const boost::system::error_code& ec) noexcept {
  namespace error = boost::asio::error;
  return ec == error::no_descriptors || ec == error::no_buffer_space || ec == error::no_memory ||
         ec.value() == ENFILE;
}

/// Accepts into `Socket` (the acceptor's own socket type, or a more generic one it converts to).
template <class Acceptor, class Socket>
class accept_loop : public std::enable_shared_from_this<accept_loop<Acceptor, Socket>> {
public:
  using accept_fn = std::function<void(Socket)>;
  struct counts {
    std::uint64_t accepted = 0;
    std::uint64_t failures = 0;
  };

  /// Start accepting on `acceptor` (bound and listening).
  static std::shared_ptr<accept_loop> start(boost::asio::io_context& io, Acceptor acceptor,
                                            accept_fn on_accept,
                                            std::chrono::milliseconds backoff) {
    auto loop = std::shared_ptr<accept_loop>(
        new accept_loop(io, std::move(acceptor), std::move(on_accept), backoff));
    loop->next();
    return loop;
  }

  /// Stop accepting: the acceptor closes, a pending wait is cancelled, the owner's function is
  /// released (so what it holds is not kept alive by the loop).
  void close() {
    if (closed_) {
      return;
    }
    closed_ = true;
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    retry_.cancel();
    on_accept_ = nullptr;
  }

  [[nodiscard]] bool closed() const noexcept { return closed_; }
  [[nodiscard]] const Acceptor& acceptor() const noexcept { return acceptor_; }
  [[nodiscard]] const counts& counted() const noexcept { return counts_; }

private:
  accept_loop(boost::asio::io_context& io, Acceptor acceptor, accept_fn on_accept,
              std::chrono::milliseconds backoff)
      : io_(io), acceptor_(std::move(acceptor)), on_accept_(std::move(on_accept)),
        backoff_(backoff), retry_(io) {}

  void next() {
    if (closed_) {
      return;
    }
    auto peer = std::make_shared<Socket>(io_);
    acceptor_.async_accept(
        *peer, [self = this->shared_from_this(), peer](const boost::system::error_code& ec) {
          self->accepted(ec, std::move(*peer));
        });
  }

  void accepted(const boost::system::error_code& ec, Socket socket) {
    if (closed_) {
      return;
    }
    if (ec) {
      ++counts_.failures;
      ++failed_in_a_row_;
      if (!accept_out_of_resources(ec) && failed_in_a_row_ == 1) {
        next();
        return;
      }
      retry_.expires_after(backoff_);
      retry_.async_wait([self = this->shared_from_this()](const boost::system::error_code& e) {
        if (!e) {
          self->next();
        }
      });
      return;
    }
    failed_in_a_row_ = 0;
    ++counts_.accepted;
    // The owner may close the loop from its function: keep it alive and look again after.
    const auto keep = this->shared_from_this();
    if (on_accept_) {
      on_accept_(std::move(socket));
    }
    next();
  }

  boost::asio::io_context& io_;
  Acceptor acceptor_;
  accept_fn on_accept_;
  std::chrono::milliseconds backoff_;
  boost::asio::steady_timer retry_;
  counts counts_;
  std::uint64_t failed_in_a_row_ = 0;
  bool closed_ = false;
};

} // namespace emote::server
