#pragma once
// Running a scenario in process (protocol.md §7, `emote-sim run`): a manual clock, one
// controller "connection" whose lines are the script entries, the output as NDJSON (replies, then
// the frame of each tick with events, always unfiltered and with matrices), and the expectations
// checked against that output.
//
// The simulation is reached through `sim_host`, so the runner (and request execution) is the same
// code whether the host is the real Engine with loaded content or a test double.

#include "engine/api/event.hpp"
#include "engine/api/match.hpp"
#include "engine/api/types.hpp"
#include "engine/core/diagnostic.hpp"
#include "engine/core/result.hpp"
#include "engine/sim/engine.hpp"
#include "protocol/decode.hpp"
#include "protocol/encode.hpp"
#include "protocol/scenario.hpp"
#include "protocol/tick_output.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace emote::protocol {

/// What request execution needs from the simulation: the Engine plus its content.
class sim_host {
public:
  virtual ~sim_host() = default;

  [[nodiscard]] virtual api::tick_number tick() const = 0;
  virtual api::reply apply(const api::input& in) = 0;
  /// After apply() of an emote.play that made an initiator: the nearest open offer it did not
  /// join, and why (players.md §7.3); nullopt otherwise, or for a host that does not say.
  [[nodiscard]] virtual std::optional<api::unmatched_offer> last_unmatched() const {
    return std::nullopt;
  }
  /// Run the rest of the tick: the Engine's frame, the renderer's packets and warnings (one tick
  /// composition for every consumer); valid until the next apply() or step().
  virtual const tick_output& step() = 0;
  /// Whether anyone will receive the packets of the next step()s (render.md §6; until said
  /// otherwise, yes): a host told no builds none, with the same tracking and warnings.
  virtual void want_packets(bool wanted) { (void)wanted; }

  /// Graceful stop (protocol.md §11): stop every playback with SERVER_STOPPING (the records go
  /// to the next frame). Nothing for a host without playbacks.
  virtual void shutdown() {}
  /// The simulation's gauges for `/metrics` (zero for a host that does not count them).
  struct gauges {
    std::int64_t sessions = 0;
    std::int64_t players = 0;
    std::int64_t displays = 0;
  };
  [[nodiscard]] virtual gauges gauge() const { return {}; }

  [[nodiscard]] virtual sim::state_snapshot state(const sim::state_query& query) const = 0;
  [[nodiscard]] virtual std::vector<emote_summary> list() const = 0;
  [[nodiscard]] virtual std::optional<emote_details> info(std::string_view id) const = 0;
  [[nodiscard]] virtual std::int64_t emote_count() const = 0;

  struct reload_outcome {
    std::optional<api::error> error; ///< engaged: nothing changed
    std::int64_t loaded = 0;         ///< the emotes the new content has (also when refused)
    core::diagnostics skipped;       ///< the new content's diagnostics (also when refused)
  };
  /// emote.reload: every playback stops with RELOAD, then the new content is used — unless the
  /// folder cannot be read, or the new content has no emotes where the running one has some
  /// and `r.allow_empty` is false (protocol.md §4): then nothing changes.
  virtual reload_outcome reload(const emote_reload_request& r) = 0;
  /// emote.register: the registered id, or the document's diagnostics as bad_request.
  virtual core::result<std::string, api::error> register_emote(std::string_view document_json) = 0;

  // Rendering (render.md)
  /// The live displays, ascending handle.
  [[nodiscard]] virtual std::vector<render::display_info> displays() const = 0;
  /// render.resync: the next tracking pass resyncs these viewers (every viewer when `all`); the
  /// number of viewers concerned.
  virtual std::int64_t render_resync(const render_resync_request& r) = 0;
  /// A snapshot for a new packets subscriber after the last step() (render.md §4 rule 6): entries
  /// for it alone, naming the same players as the step's packets; valid until the next step() or
  /// snapshot.
  /// None for a host that does not render.
  [[nodiscard]] virtual frame_packets packet_snapshot() { return {}; }
  /// The renderer's counts (resync requests and resyncs made), for metrics.
  [[nodiscard]] virtual render::render_counts render_counts() const { return {}; }

  /// The simulation's whole state in its canonical traversal (protocol.md §8 state digests),
  /// between ticks; false (and nothing reported) for a host that cannot describe its state.
  virtual bool describe_state(core::state_sink& s) const {
    (void)s;
    return false;
  }
  /// The 64-bit digest of that traversal (core::state_hasher); nullopt without one.
  [[nodiscard]] virtual std::optional<std::uint64_t> state_digest() const { return std::nullopt; }
};

/// What executing a request came to, for whoever counts and logs it (the server's metrics): the
/// reply's error when it failed; `handled` is false for the connection ops, which only a
/// connection can execute.
struct outcome {
  outcome() = default;
  outcome(bool was_handled, std::optional<api::error> failure)
      : handled(was_handled), error(std::move(failure)) {}
  bool handled = true;
  std::optional<api::error> error;
  /// emote.reload: what the new content came to (its skipped files are logged).
  std::optional<sim_host::reload_outcome> reload;
  [[nodiscard]] bool ok() const noexcept { return handled && !error; }
};

/// The reply line of an engine input's reply, when one is due (protocol.md §3): an error names
/// the request's op and subject; a play that made an initiator adds its `unmatched` (§4).
void encode_input_reply(std::string& out, const sim_host& host, const request& r,
                        const api::reply& reply);

/// Execute a request that needs only the simulation: engine inputs, ping and the query and content
/// ops. Appends its reply line to `out` when one is due (an id, or a failure). Writes nothing for
/// the connection ops (hello, bye, subscribe, clock.step): `handled` is false.
outcome execute(sim_host& host, const request& r, std::string& out);

struct run_result {
  std::string output; ///< the NDJSON output
  bool passed = false;
  /// Every unmet expectation (describe_unmet), or why the run could not start.
  std::string failure;
  bool started = true; ///< false: the simulation could not be built (`failure` says why)
};

using host_factory =
    std::function<core::result<std::unique_ptr<sim_host>, std::string>(const scenario&)>;

/// Run `s` from tick 0 for s.ticks ticks and check its expectations.
run_result run_scenario(const scenario& s, const host_factory& make_host);

} // namespace emote::protocol
