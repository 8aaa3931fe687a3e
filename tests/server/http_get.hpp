#pragma once
// One HTTP request to a running emote-sim's HTTP listener (serve --http, --metrics, view), on a
// fresh loopback connection: the whole answer, each line followed by '\n', read until the server
// closes the connection.

#include "server/qa/line_client.hpp"
#include "settings/listen_address.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <string>

namespace emote::server::testing {

inline std::string http_get(const settings::listen_address& a, const std::string& request,
                            std::chrono::milliseconds wait = std::chrono::seconds(5)) {
  auto c = line_client::connect(a, wait);
  REQUIRE(c.ok());
  c->send_raw(request);
  std::string all;
  while (auto line = c->read_line(wait)) {
    all += *line + "\n";
  }
  return all;
}

} // namespace emote::server::testing
