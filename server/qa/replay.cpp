#include "server/qa/replay.hpp"

#include "engine/core/sha256.hpp"
#include "protocol/decode.hpp"
#include "protocol/encode.hpp"
#include "server/daemon/dispatch.hpp"
#include "server/daemon/recorder.hpp"

#include "engine/json/state_json.hpp"
#include "engine/json/wire_reader.hpp"
#include "engine/json/writer.hpp"

#include <iterator>
#include <map>

namespace emote::server {

std::string describe_first_difference(std::string_view what, const std::vector<std::string>& a,
                                      const std::vector<std::string>& b, std::string_view a_name,
                                      std::string_view b_name) {
  const std::size_t n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::string_view x = i < a.size() ? std::string_view(a[i]) : "(none)";
    const std::string_view y = i < b.size() ? std::string_view(b[i]) : "(none)";
    if (x != y) {
      auto side = [&](std::string_view name, std::size_t size, std::string_view value) {
        return "  " + std::string(what) + " " + std::to_string(i) + " of " + std::to_string(size) +
               " " + std::string(name) + ": " + std::string(value) + "\n";
      };
      return side(a_name, a.size(), x) + side(b_name, b.size(), y);
    }
  }
  return {};
}

std::string describe_event_diff(const std::string& a, const std::string& b, std::string_view a_name,
                                std::string_view b_name) {
  rapidjson::Document da;
  rapidjson::Document db;
  const auto* ap = json::parse_wire(a, da) ? nullptr : json::find_member(da, "events");
  const auto* bp = json::parse_wire(b.empty() ? R"({"events":[]})" : b, db)
                       ? nullptr
                       : json::find_member(db, "events");
  if (ap == nullptr || bp == nullptr || !ap->IsArray() || !bp->IsArray()) {
    return "  " + std::string(a_name) + ": " + a + "\n  " + std::string(b_name) + ": " + b + "\n";
  }
  auto texts = [](const rapidjson::Value& events) {
    std::vector<std::string> out;
    for (const auto& e : events.GetArray()) {
      out.push_back(json::to_json(e));
    }
    return out;
  };
  const std::string first =
      describe_first_difference("event", texts(*ap), texts(*bp), a_name, b_name);
  return first.empty() ? std::string("  (the events are equal; the frames differ elsewhere)\n")
                       : first;
}

replay_result replay_recording(const protocol::recording& r, protocol::sim_host& host,
                               const frame_sink& on_frame) {
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

  // protocol.md §8: the replayed state against the recorded digests, then the dumps.
  auto replayed_dump = [&] {
    std::string dump;
    json::state_json writer(dump);
    host.describe_state(writer);
    return dump;
  };
  auto describe_against = [&](std::int64_t dump_tick, std::int64_t replayed_tick) {
    state_divergence& sd = *out.state;
    sd.dump_tick = dump_tick;
    sd.compared_tick = replayed_tick;
    sd.details = json::describe_state_diff(r.state_dumps.at(dump_tick), replayed_dump(), "recorded",
                                           "replayed");
  };
  bool state_pending = false; // diverged, waiting for the next dump to describe it
  auto check_state = [&](std::int64_t tick) {
    if (!out.state) {
      const auto it = r.states.find(tick);
      if (it == r.states.end()) {
        return;
      }
      const auto digest = host.state_digest();
      if (!digest) {
        return;
      }
      ++out.states_compared;
      const std::string replayed = core::state_digest_hex(*digest);
      if (replayed == it->second) {
        return;
      }
      out.state = state_divergence{tick, it->second, replayed, -1, -1, {}};
      const auto later = r.state_dumps.lower_bound(tick);
      if (later != r.state_dumps.end()) {
        state_pending = true;
      } else if (later != r.state_dumps.begin()) {
        describe_against(std::prev(later)->first, tick);
      }
      if (!state_pending) {
        return;
      }
    }
    if (state_pending && r.state_dumps.contains(tick)) {
      describe_against(tick, tick);
      state_pending = false;
    }
  };

  // The replay stops before a dump at or after the divergence: the last dump before it.
  auto settle_state = [&](std::int64_t tick) {
    if (!state_pending) {
      return;
    }
    state_pending = false;
    const auto later = r.state_dumps.lower_bound(out.state->tick);
    if (later != r.state_dumps.begin()) {
      describe_against(std::prev(later)->first, tick);
    }
  };

  // Run the current tick and compare its frame; false on divergence.
  auto step = [&]() -> bool {
    const protocol::tick_output& t = host.step();
    const api::frame& f = *t.frame;
    encoder.begin(t);
    const auto it = frames.find(f.tick);
    auto encoded = [&](const protocol::frame_filter& filter) {
      std::string line = encoder.encode(filter)->line;
      if (!line.empty() && line.back() == '\n') {
        line.pop_back();
      }
      return line;
    };
    std::string line;
    std::string digest;
    // A recording with frames also holds ticks that had only packets (render.md §6).
    if (t.has_events() || it != frames.end()) {
      line = encoded(protocol::full_filter());
      digest = core::sha256_hex(line);
      if (on_frame && t.has_events()) {
        on_frame(f.tick, line);
      }
    }
    ++out.ticks;
    const std::string recorded = it == frames.end() ? std::string() : it->second->digest;
    // Recorded packets are compared too: the digest covers the events only.
    std::string with_packets;
    bool packets_differ = false;
    if (recorded == digest && it != frames.end() && it->second->frame_line &&
        it->second->frame_line->find(R"(],"packets":[)") != std::string::npos) {
      protocol::frame_filter filter = protocol::full_filter();
      filter.packets = true;
      with_packets = encoded(filter);
      packets_differ = with_packets != *it->second->frame_line;
    }
    check_state(f.tick);
    if (recorded == digest && !packets_differ) {
      return true;
    }
    settle_state(f.tick);
    replay_divergence d;
    d.tick = f.tick;
    d.recorded_digest = recorded;
    d.replayed_digest = digest;
    d.replayed_frame = packets_differ ? with_packets : line;
    if (it != frames.end() && it->second->frame_line) {
      d.recorded_frame = *it->second->frame_line;
      d.details = packets_differ
                      ? std::string("  (the events are equal; the packets differ)\n")
                      : describe_event_diff(*d.recorded_frame, line, "recorded", "replayed");
    }
    out.divergence = std::move(d);
    return false;
  };

  // The replayed reply of each connection's last message, compact, until its recorded reply.
  std::map<std::int64_t, std::string> replayed_replies;
  auto compact = [](std::string_view line) {
    rapidjson::Document doc;
    return json::parse_wire(line, doc) ? std::string(line) : json::to_json(doc);
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
      replayed_replies.erase(m->conn); // a reply belongs to the message just applied
      if (const auto* s = std::get_if<protocol::subscribe_request>(&decoded->body);
          s != nullptr && s->subscription.filter.packets) {
        // A subscription changes nothing in the shared stream (render.md §4 rule 6): its
        // snapshot went to that connection alone, outside what was recorded.
        continue;
      }
      (void)dispatch(host, owners, static_cast<std::uint64_t>(m->conn), *decoded, sink);
      if (!sink.empty()) {
        replayed_replies[m->conn] = compact(sink);
      }
    } else if (const auto* rp = std::get_if<protocol::rec_reply>(&e)) {
      // protocol.md §8: a reply that differs is a divergence at its tick, on its connection.
      const auto it = replayed_replies.find(rp->conn);
      const std::string replayed = it == replayed_replies.end() ? std::string() : it->second;
      if (it != replayed_replies.end()) {
        replayed_replies.erase(it);
      }
      if (replayed != rp->json) {
        settle_state(tick);
        replay_divergence d;
        d.tick = tick;
        d.reply_conn = rp->conn;
        d.details = "  reply on connection " + std::to_string(rp->conn) + " recorded: " + rp->json +
                    "\n  reply on connection " + std::to_string(rp->conn) +
                    " replayed: " + (replayed.empty() ? std::string("(none)") : replayed) + "\n";
        out.divergence = std::move(d);
        return out;
      }
    } else if (const auto* d = std::get_if<protocol::rec_disconnect>(&e)) {
      if (d->conn == static_cast<std::int64_t>(server_conn)) {
        host.shutdown();
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
  settle_state(host.tick() - 1);
  return out;
}

} // namespace emote::server
