// libFuzzer target: NDJSON client lines through the decoder and request validation, then through a
// real engine host with viewers, so every request reaches the engine and the renderer
// (render.md: tracking, packets, content encoding of whatever the lines make players hold).
// Invariants checked beyond "no crash, no leak, no UB":
//  * a decoded request's record copy decodes again, to the same record (a fixed point), so
//    recordings replay what was applied;
//  * every reply line written for the outcome is valid JSON;
//  * every frame, with its packet entries, is valid JSON, and every entry names a player.
//
// The input is split at newlines; each line is one request. Before them, two viewers join (on the
// oldest and newest supported protocols) so emotes the lines play are rendered.
#include "engine/json/wire_reader.hpp"
#include "protocol/decode.hpp"
#include "protocol/encode.hpp"
#include "protocol/runner.hpp"
#include "server/host/content_loader.hpp"
#include "server/host/engine_host.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

void require(bool ok) {
  if (!ok) {
    std::abort();
  }
}

void require_json_line(const std::string& line) {
  require(!line.empty() && line.back() == '\n');
  rapidjson::Document d;
  require(!emote::json::parse_wire(std::string_view(line).substr(0, line.size() - 1), d));
  require(d.IsObject());
}

// The decoder's own invariants for one line; the request when it decoded.
std::optional<emote::protocol::request> check_line(std::string_view line) {
  using namespace emote;
  auto r = protocol::decode_request(line);
  std::string out;
  if (!r) {
    protocol::encode_error(out, r.error().id, 0, r.error().error);
    require_json_line(out);
    return std::nullopt;
  }
  auto again = protocol::decode_request(r->record);
  require(again.ok());
  require(again->record == r->record);
  require(again->op == r->op);
  require(again->body.index() == r->body.index());
  protocol::encode_ok(out, r->id, 0);
  require_json_line(out);
  if (protocol::controller_only(*r)) {
    out.clear();
    protocol::encode_error(out, r->id, 0, protocol::forbidden_error(r->op));
    require_json_line(out);
  }
  return std::move(*r);
}

constexpr std::string_view preamble[] = {
    R"({"op":"player.join","player":"a","position":[0,64,0],"protocol":767,"entity_id":7,"name":"A"})",
    R"({"op":"player.join","player":"b","position":[3,64,0],"protocol":775,"entity_id":8,"view_distance":2})",
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace emote;
  static const std::shared_ptr<server::content_loader> loader = server::make_content_loader();
  auto made = server::engine_host::create(loader, {EMOTE_SIM_FUZZ_EMOTES}, sim::engine_config{},
                                          render::render_config{});
  require(made.ok());
  server::engine_host& host = **made;
  protocol::frame_encoder encoder;
  protocol::frame_filter with_packets = protocol::full_filter();
  with_packets.packets = true;
  std::string out;

  auto run = [&](std::string_view line) {
    auto r = check_line(line);
    if (!r) {
      return;
    }
    out.clear();
    const auto outcome = protocol::execute(host, *r, out);
    if (outcome.handled && !out.empty()) {
      require_json_line(out);
    }
    if (const auto* s = std::get_if<protocol::subscribe_request>(&r->body);
        s != nullptr && s->subscription.filter.packets) {
      host.render_resync(protocol::render_resync_request{});
    }
    // A few ticks per line, each frame encoded with its packets.
    for (int i = 0; i < 3; ++i) {
      const protocol::tick_output& t = host.step();
      const protocol::frame_packets& packets = t.packets;
      if (packets.output != nullptr) {
        for (const auto& e : packets.output->entries) {
          for (const std::uint32_t who : packets.output->to(e)) {
            require(who < packets.names.size());
          }
        }
      }
      encoder.begin(t);
      require_json_line(encoder.encode(with_packets)->line);
    }
  };

  for (const std::string_view line : preamble) {
    run(line);
  }
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  for (int lines = 0; !rest.empty() && lines < 64; ++lines) {
    const std::size_t nl = rest.find('\n');
    run(rest.substr(0, nl));
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
  }
  return 0;
}
