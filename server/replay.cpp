#include "server/replay.hpp"

#include "protocol/decode.hpp"
#include "protocol/encode.hpp"
#include "engine/core/sha256.hpp"
#include "server/dispatch.hpp"
#include "server/recorder.hpp"

#include "engine/json/wire_reader.hpp"
#include "engine/json/writer.hpp"

#include <map>

namespace emote::server {

namespace {

// The first differing event of two frame lines, as readable lines.
std::string event_diff(const std::string& recorded, const std::string& replayed) {
  rapidjson::Document a;
  rapidjson::Document b;
  const auto* ap = json::parse_wire(recorded, a) ? nullptr : json::find_member(a, "events");
  const auto* bp = json::parse_wire(replayed.empty() ? R"({"events":[]})" : replayed, b)
                       ? nullptr
                       : json::find_member(b, "events");
  if (ap == nullptr || bp == nullptr || !ap->IsArray() || !bp->IsArray()) {
    return "  recorded: " + recorded + "\n  replayed: " + replayed + "\n";
  }
  const auto& ea = *ap;
  const auto& eb = *bp;
  const rapidjson::SizeType n = std::max(ea.Size(), eb.Size());
  for (rapidjson::SizeType i = 0; i < n; ++i) {
    const std::string x = i < ea.Size() ? json::to_json(ea[i]) : std::string("(none)");
    const std::string y = i < eb.Size() ? json::to_json(eb[i]) : std::string("(none)");
    if (x != y) {
      return "  event " + std::to_string(i) + " of " + std::to_string(ea.Size()) +
             " recorded: " + x + "\n  event " + std::to_string(i) + " of " +
             std::to_string(eb.Size()) + " replayed: " + y + "\n";
    }
  }
  return "  (the events are equal; the frames differ elsewhere)\n";
}

} // namespace

replay_result replay_recording(const protocol::recording& r, protocol::sim_host& host,
                               const std::function<void()>& shutdown) {
  replay_result out;
  std::map<std::int64_t, const protocol::rec_frame*> frames;
  for (const auto& e : r.entries) {
    if (const auto* f = std::get_if<protocol::rec_frame>(&e)) {
      frames[f->tick] = f;
    }
  }
  player_owners owners;
  protocol::frame_encoder encoder;
  std::string sink; // replies are not compared; the frames carry the effects

  // Run the current tick and compare its frame; false on divergence.
  auto step = [&]() -> bool {
    const api::frame& f = host.step();
    encoder.begin(f);
    std::string line;
    std::string digest;
    if (!f.events.empty()) {
      line = encoder.encode(protocol::full_filter())->line;
      if (!line.empty() && line.back() == '\n') {
        line.pop_back();
      }
      digest = core::sha256_hex(line);
    }
    ++out.ticks;
    const auto it = frames.find(f.tick);
    const std::string recorded = it == frames.end() ? std::string() : it->second->digest;
    if (recorded == digest) {
      return true;
    }
    replay_divergence d;
    d.tick = f.tick;
    d.recorded_digest = recorded;
    d.replayed_digest = digest;
    d.replayed_frame = line;
    if (it != frames.end() && it->second->frame_line) {
      d.recorded_frame = *it->second->frame_line;
      d.details = event_diff(*d.recorded_frame, line);
    }
    out.divergence = std::move(d);
    return false;
  };

  for (const auto& e : r.entries) {
    const std::int64_t tick = std::visit([](const auto& x) { return x.tick; }, e);
    while (host.tick() < tick) {
      if (!step()) {
        return out;
      }
    }
    if (std::holds_alternative<protocol::rec_frame>(e)) {
      // The frame of `tick` follows its inputs: run that tick now.
      while (host.tick() <= tick) {
        if (!step()) {
          return out;
        }
      }
      continue;
    }
    if (const auto* m = std::get_if<protocol::rec_msg>(&e)) {
      auto decoded = protocol::decode_request(m->json);
      if (!decoded) {
        continue; // the server only records messages it decoded; nothing to apply
      }
      sink.clear();
      (void)dispatch(host, owners, static_cast<std::uint64_t>(m->conn), *decoded, sink);
    } else if (const auto* d = std::get_if<protocol::rec_disconnect>(&e)) {
      if (d->conn == static_cast<std::int64_t>(server_conn)) {
        if (shutdown) {
          shutdown();
        }
      } else {
        (void)disconnect_players(host, owners, static_cast<std::uint64_t>(d->conn));
      }
    }
  }
  while (host.tick() <= r.last_tick) {
    if (!step()) {
      return out;
    }
  }
  return out;
}

} // namespace emote::server
