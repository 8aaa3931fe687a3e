// libFuzzer target: one NDJSON client line through the decoder and request validation.
// Invariants checked beyond "no crash, no leak, no UB":
//  * a decoded request's record copy decodes again, to the same record (a fixed point), so
//    recordings replay what was applied;
//  * every reply line written for the outcome is valid JSON.
#include "engine/json/wire_reader.hpp"
#include "protocol/decode.hpp"
#include "protocol/encode.hpp"

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

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace emote;
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  auto r = protocol::decode_request(line);
  std::string out;
  if (!r) {
    protocol::encode_error(out, r.error().id, 0, r.error().error);
    require_json_line(out);
    return 0;
  }
  auto again = protocol::decode_request(r->record);
  require(again.ok());
  require(again->record == r->record);
  require(again->op == r->op);
  require(again->body.index() == r->body.index());
  protocol::encode_ok(out, r->id, 0);
  require_json_line(out);
  if (!protocol::controller_only(*r)) {
    return 0;
  }
  out.clear();
  protocol::encode_error(out, r->id, 0, protocol::forbidden_error(r->op));
  require_json_line(out);
  return 0;
}
