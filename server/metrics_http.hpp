#pragma once
// A minimal HTTP/1.1 endpoint for Prometheus: `GET /metrics` answers the rendered text, anything
// else 404 (or 405 for other methods). One request per connection, bounded request size and time.

#include "engine/core/result.hpp"
#include "protocol/listen_address.hpp"

#include <boost/asio/io_context.hpp>

#include <functional>
#include <memory>
#include <string>

namespace emote::server {

using protocol::listen_address;

class metrics_http {
public:
  using render_fn = std::function<std::string()>;

  static core::result<std::unique_ptr<metrics_http>, std::string>
  open(boost::asio::io_context& io, const listen_address& address, render_fn render);

  ~metrics_http();
  metrics_http(const metrics_http&) = delete;
  metrics_http& operator=(const metrics_http&) = delete;

  [[nodiscard]] listen_address bound() const;
  void close();

private:
  struct state;
  explicit metrics_http(std::shared_ptr<state> s);
  std::shared_ptr<state> state_;
};

} // namespace emote::server
