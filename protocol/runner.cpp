#include "protocol/runner.hpp"

#include "protocol/json.hpp"

namespace emote::protocol {
namespace {

struct executor {
  sim_host& host;
  const request& r;
  std::string& out;

  void ok(std::string_view members = {}) {
    if (needs_reply(r.id, true)) {
      encode_ok(out, r.id, host.tick(), members);
    }
  }
  void error(const api::error& e) { encode_error(out, r.id, host.tick(), e); }

  bool operator()(const api::input& in) {
    const api::reply reply = host.apply(in);
    if (needs_reply(r.id, reply.ok())) {
      encode_reply(out, r.id, reply);
    }
    return true;
  }
  bool operator()(const ping_request&) {
    ok();
    return true;
  }
  bool operator()(const state_get_request& q) {
    std::string members;
    encode_state_members(members, host.state(q.player));
    ok(members);
    return true;
  }
  bool operator()(const emote_list_request&) {
    std::string members;
    encode_emote_list_members(members, host.list());
    ok(members);
    return true;
  }
  bool operator()(const emote_info_request& q) {
    auto d = host.info(q.emote);
    if (!d) {
      error(
          api::error{api::error_code::unknown_emote, "That emote does not exist.", "$.emote", {}});
      return true;
    }
    std::string members;
    encode_emote_info_members(members, *d);
    ok(members);
    return true;
  }
  bool operator()(const emote_reload_request&) {
    auto outcome = host.reload();
    if (outcome.error) {
      error(*outcome.error);
      return true;
    }
    std::string members;
    encode_reload_members(members, outcome.loaded, outcome.skipped);
    ok(members);
    return true;
  }
  bool operator()(const emote_register_request& q) {
    auto id = host.register_emote(q.document);
    if (!id) {
      error(id.error());
      return true;
    }
    std::string members;
    json_out o(members);
    o.raw(R"(,"emote":)");
    o.str(*id);
    ok(members);
    return true;
  }
  bool operator()(const hello_request&) { return false; }
  bool operator()(const bye_request&) { return false; }
  bool operator()(const subscribe_request&) { return false; }
  bool operator()(const clock_step_request&) { return false; }
};

} // namespace

bool execute(sim_host& host, const request& r, std::string& out) {
  return std::visit(executor{host, r, out}, r.body);
}

run_result run_scenario(const scenario& s, const host_factory& make_host) {
  run_result result;
  auto made = make_host(s);
  if (!made) {
    result.failure = made.error();
    return result;
  }
  sim_host& host = **made;
  std::string& out = result.output;
  std::size_t next = 0;
  for (std::int64_t t = 0; t < s.ticks; ++t) {
    for (; next < s.script.size() && s.script[next].tick <= t; ++next) {
      auto decoded = decode_request(s.script[next].line);
      if (!decoded) {
        encode_error(out, decoded.error().id, host.tick(), decoded.error().error);
        continue;
      }
      const request& r = *decoded;
      if (!execute(host, r, out)) {
        // subscribe: the run's output is always the full subscription; acknowledge it.
        if (needs_reply(r.id, true)) {
          encode_ok(out, r.id, host.tick());
        }
      }
    }
    const api::frame& f = host.step();
    if (!f.events.empty()) {
      encode_frame(out, f, true);
    }
  }
  output_log log;
  log.add_text(out);
  if (auto unmet = first_unmet(s.expect, log)) {
    result.failure = std::move(*unmet);
    return result;
  }
  result.passed = true;
  return result;
}

} // namespace emote::protocol
