#include "protocol/runner.hpp"

#include "engine/json/writer.hpp"

#include <algorithm>

namespace emote::protocol {

using json::json_out;
namespace {

struct executor {
  sim_host& host;
  const request& r;
  std::string& out;

  outcome ok(std::string_view members = {}) {
    if (needs_reply(r.id, true)) {
      encode_ok(out, r.id, host.tick(), members);
    }
    return {};
  }
  outcome error(api::error e) {
    const error_subject about = subject_of(r); // protocol.md §3
    encode_error(out, r.id, host.tick(), e, &about);
    return outcome{true, std::move(e)};
  }

  outcome operator()(const api::input& in) {
    api::reply reply = host.apply(in);
    encode_input_reply(out, host, r, reply);
    return outcome{true, std::move(reply.err)};
  }
  outcome operator()(const ping_request&) { return ok(); }
  outcome operator()(const state_get_request& q) {
    std::string members;
    const sim::state_snapshot snapshot = host.state(q.query);
    std::vector<render::display_info> displays = host.displays();
    if (q.query.player || q.query.limit > 0) {
      // Only the displays of the sessions the snapshot reports.
      std::erase_if(displays, [&](const render::display_info& d) {
        return std::none_of(snapshot.sessions.begin(), snapshot.sessions.end(),
                            [&](const auto& s) { return s.session == d.session; });
      });
    }
    encode_state_members(members, snapshot, displays);
    return ok(members);
  }
  outcome operator()(const render_resync_request& q) {
    std::string members;
    json_out o(members);
    o.raw(R"(,"viewers":)");
    o.i64(host.render_resync(q));
    return ok(members);
  }
  outcome operator()(const emote_list_request&) {
    std::string members;
    encode_emote_list_members(members, host.list());
    return ok(members);
  }
  outcome operator()(const emote_info_request& q) {
    auto d = host.info(q.emote);
    if (!d) {
      return error(
          api::error{api::error_code::unknown_emote, "That emote does not exist.", "$.emote", {}});
    }
    std::string members;
    encode_emote_info_members(members, *d);
    return ok(members);
  }
  outcome operator()(const emote_reload_request& q) {
    auto result = host.reload(q);
    outcome o;
    if (result.error) {
      o = error(*result.error);
    } else {
      std::string members;
      encode_reload_members(members, result.loaded, result.skipped);
      o = ok(members);
    }
    o.reload = std::move(result);
    return o;
  }
  outcome operator()(const emote_register_request& q) {
    auto id = host.register_emote(q.document);
    if (!id) {
      return error(id.error());
    }
    std::string members;
    json_out o(members);
    o.raw(R"(,"emote":)");
    o.str(*id);
    return ok(members);
  }
  outcome operator()(const hello_request&) { return not_handled(); }
  outcome operator()(const bye_request&) { return not_handled(); }
  outcome operator()(const subscribe_request&) { return not_handled(); }
  outcome operator()(const clock_step_request&) { return not_handled(); }

  static outcome not_handled() { return outcome{false, std::nullopt}; }
};

} // namespace

void encode_input_reply(std::string& out, const sim_host& host, const request& r,
                        const api::reply& reply) {
  if (!needs_reply(r.id, reply.ok())) {
    return;
  }
  if (reply.err) {
    const error_subject about = subject_of(r);
    encode_reply(out, r.id, reply, &about);
    return;
  }
  const auto* play = std::get_if<api::play_ok>(&reply.payload);
  if (play != nullptr && play->role == api::role::initiator) {
    const auto unmatched = host.last_unmatched();
    encode_reply(out, r.id, reply, nullptr, unmatched ? &*unmatched : nullptr);
    return;
  }
  encode_reply(out, r.id, reply);
}

outcome execute(sim_host& host, const request& r, std::string& out) {
  return std::visit(executor{host, r, out}, r.body);
}

run_result run_scenario(const scenario& s, const host_factory& make_host) {
  run_result result;
  auto made = make_host(s);
  if (!made) {
    result.failure = made.error();
    result.started = false;
    return result;
  }
  sim_host& host = **made;
  std::string& out = result.output;
  std::size_t next = 0;
  for (std::int64_t t = 0; t < s.ticks; ++t) {
    for (; next < s.script.size() && s.script[next].tick <= t; ++next) {
      auto decoded = decode_request(s.script[next].line);
      if (!decoded) {
        encode_error(out, decoded.error().id, host.tick(), decoded.error().error,
                     &decoded.error().subject);
        continue;
      }
      const request& r = *decoded;
      if (!execute(host, r, out).handled) {
        // subscribe: the run's output is always the full subscription; acknowledge it.
        if (needs_reply(r.id, true)) {
          encode_ok(out, r.id, host.tick());
        }
      }
    }
    const tick_output& stepped = host.step();
    if (stepped.has_events()) {
      encode_frame(out, stepped, true);
    }
  }
  output_log log;
  log.add_text(out);
  // Every unmet expectation, not only the first (protocol.md §7).
  if (const auto missed = unmet(s.expect, log); !missed.empty()) {
    result.failure = describe_unmet(missed);
    return result;
  }
  result.passed = true;
  return result;
}

} // namespace emote::protocol
