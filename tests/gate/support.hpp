#pragma once
// Building packets and frames for the gate tests, with render/wire's writer and render/framing's
// framer (the same code the gate writes with).

#include "gate/packets.hpp"
#include "render/framing.hpp"
#include "render/wire.hpp"

#include <functional>
#include <string>

namespace emote::gate::test {

using render::byte_writer;

/// A packet: `id`, then what `fields` writes.
inline std::string packet(std::int32_t id, const std::function<void(byte_writer&)>& fields = {}) {
  std::string p;
  byte_writer w(p);
  w.varint(id);
  if (fields) {
    fields(w);
  }
  return p;
}

/// One frame of `p` with `threshold` (< 0: no compression).
inline std::string framed(const std::string& p, std::int32_t threshold = -1) {
  std::string out;
  render::packet_framer f(threshold);
  f.append(out, p);
  return out;
}

inline const render::version_table& version(std::int32_t protocol) {
  return *render::find_version(protocol);
}

} // namespace emote::gate::test
