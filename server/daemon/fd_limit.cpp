#include "server/daemon/fd_limit.hpp"

#include <algorithm>
#include <sys/resource.h>

namespace emote::server {

descriptor_limit raise_descriptor_limit() {
  descriptor_limit out;
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) {
    return out;
  }
  out.before = lim.rlim_cur;
  out.soft = lim.rlim_cur;
  out.hard = lim.rlim_max;
  if (lim.rlim_cur < lim.rlim_max) {
    rlimit raised = lim;
    raised.rlim_cur = lim.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) {
      out.soft = lim.rlim_max;
    }
  }
  return out;
}

connection_caps fit_connection_caps(std::uint64_t limit, std::int64_t line, std::size_t http,
                                    std::size_t http_listeners, std::size_t gate,
                                    std::size_t gates) {
  connection_caps caps{line, http, gate, false};
  std::uint64_t available =
      limit > 2 * descriptor_headroom ? limit - descriptor_headroom : limit / 2;
  const auto line_need = static_cast<std::uint64_t>(std::max<std::int64_t>(line, 0));
  const std::uint64_t http_need = descriptors_per_http_connection * http * http_listeners;
  const std::uint64_t gate_need = descriptors_per_gate_pair * gate * gates;
  if (line_need + http_need + gate_need <= available) {
    return caps;
  }
  if (gates > 0) {
    // gate.md §1: the gates keep up to half of what is free, shared equally.
    const std::uint64_t per_gate =
        std::min<std::uint64_t>(gate_need, available / 2) / (descriptors_per_gate_pair * gates);
    caps.gate = static_cast<std::size_t>(std::max<std::uint64_t>(1, per_gate));
    const std::uint64_t used = descriptors_per_gate_pair * caps.gate * gates;
    available = available > used ? available - used : 0;
    if (line_need + http_need <= available) {
      caps.lowered = caps.gate < gate;
      return caps;
    }
  }
  const std::uint64_t line_fit = std::max<std::uint64_t>(
      1, std::min(line_need, http_listeners > 0 ? available / 2 : available));
  caps.line = static_cast<std::int64_t>(line_fit);
  if (http_listeners > 0) {
    const std::uint64_t left = available > line_fit ? available - line_fit : 0;
    caps.http = static_cast<std::size_t>(std::max<std::uint64_t>(
        1,
        std::min<std::uint64_t>(http, left / (descriptors_per_http_connection * http_listeners))));
  }
  caps.lowered = caps.line < line || caps.http < http || caps.gate < gate;
  return caps;
}

} // namespace emote::server
