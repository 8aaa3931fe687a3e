#include "server/daemon/metrics.hpp"

#include "engine/api/types.hpp"
#include "server/daemon/prometheus.hpp"
#include "server/host/build_info.hpp"

#include <array>
#include <charconv>

namespace emote::server {

void prometheus_header(std::string& out, std::string_view name, std::string_view help,
                       std::string_view type) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
}

namespace {

/// The shortest decimal that reads back to `v`, without an exponent (`0.0005`, not
/// `0.00050000000000000001` nor `5e-04`).
std::string number(double v) {
  std::array<char, 512> buf{}; // the longest fixed form of a finite double fits
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v, std::chars_format::fixed);
  if (r.ec != std::errc{}) {
    return "NaN";
  }
  return std::string(buf.data(), r.ptr);
}

void header(std::string& out, std::string_view name, std::string_view help, std::string_view type) {
  prometheus_header(out, name, help, type);
}

template <class T>
void scalar(std::string& out, std::string_view name, std::string_view help, std::string_view type,
            T value) {
  header(out, name, help, type);
  out += name;
  out += ' ';
  out += std::to_string(value);
  out += '\n';
}

} // namespace

void histogram::observe(double seconds) noexcept {
  ++count_;
  sum_ += seconds;
  for (std::size_t i = 0; i < bounds_.size(); ++i) {
    if (seconds <= bounds_[i]) {
      ++buckets_[i];
      return;
    }
  }
}

void histogram::render(std::string& out, std::string_view name, std::string_view help) const {
  header(out, name, help, "histogram");
  render_series(out, name, {});
}

void histogram::render_series(std::string& out, std::string_view name,
                              std::string_view labels) const {
  std::string with; // `labels,` inside a bucket's braces, `{labels}` after _sum and _count
  std::string alone;
  if (!labels.empty()) {
    with.append(labels).push_back(',');
    alone.append("{").append(labels).push_back('}');
  }
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < bounds_.size(); ++i) {
    cumulative += buckets_[i];
    out += name;
    out += "_bucket{" + with + "le=\"" + number(bounds_[i]) + "\"} " + std::to_string(cumulative) +
           "\n";
  }
  out += name;
  out += "_bucket{" + with + "le=\"+Inf\"} " + std::to_string(count_) + "\n";
  out += name;
  out += "_sum" + alone + " " + number(sum_) + "\n";
  out += name;
  out += "_count" + alone + " " + std::to_string(count_) + "\n";
}

std::string metrics::render() const {
  std::string out;
  out.reserve(4096);
  header(out, "emote_sim_build_info", "Build information.", "gauge");
  out += "emote_sim_build_info{version=\"" EMOTE_SIM_VERSION "\",build=\"";
  for (const char c : build_id()) { // a label value: \\, \" and \n escaped
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  out += "\"} 1\n";
  tick_duration.render(
      out, "emote_sim_tick_duration_seconds",
      "Wall time of one tick: inputs applied, engine step, frames encoded and queued.");
  scalar(out, "emote_sim_tick", "The engine tick now accepting inputs.", "gauge", tick);
  scalar(out, "emote_sim_ticks_total", "Ticks run.", "counter", ticks_total);
  scalar(out, "emote_sim_ticks_behind", "Whole ticks the realtime clock was late at the last tick.",
         "gauge", ticks_behind);
  scalar(out, "emote_sim_ticks_skipped_total",
         "Realtime deadlines skipped because the server was more than 40 ticks behind.", "counter",
         ticks_skipped_total);
  scalar(out, "emote_sim_sessions", "Running emote sessions.", "gauge", sessions);
  scalar(out, "emote_sim_players", "Players online.", "gauge", players);
  scalar(out, "emote_sim_displays", "Active display entities.", "gauge", displays);
  scalar(out, "emote_sim_emotes", "Emotes in the catalog.", "gauge", emotes);
  header(out, "emote_sim_connections", "Open client connections by role.", "gauge");
  out +=
      "emote_sim_connections{role=\"controller\"} " + std::to_string(connections_controller) + "\n";
  out += "emote_sim_connections{role=\"observer\"} " + std::to_string(connections_observer) + "\n";
  out += "emote_sim_connections{role=\"pending\"} " + std::to_string(connections_pending) + "\n";
  scalar(out, "emote_sim_connections_accepted_total", "Connections accepted.", "counter",
         connections_accepted_total);
  scalar(out, "emote_sim_connections_refused_total", "Connections refused over max_connections.",
         "counter", connections_refused_total);
  scalar(out, "emote_sim_connections_evicted_total",
         "Connections closed before their hello to make room for a new one (pending caps).",
         "counter", connections_evicted_total);
  scalar(out, "emote_sim_logins_failed_total", "Hellos refused for a wrong or missing token.",
         "counter", logins_failed_total);
  scalar(out, "emote_sim_log_lines_suppressed_total",
         "Refused connections and failed logins not logged on a line of their own (at most one "
         "line per address per 10 s).",
         "counter", log_lines_suppressed_total);
  scalar(out, "emote_sim_received_bytes_total", "Bytes read from clients.", "counter",
         bytes_in_total);
  scalar(out, "emote_sim_sent_bytes_total", "Bytes written to clients.", "counter",
         bytes_out_total);
  scalar(out, "emote_sim_messages_total", "Client messages applied.", "counter", messages_total);
  scalar(out, "emote_sim_frames_total", "Frames with events produced by the engine.", "counter",
         frames_total);
  scalar(out, "emote_sim_slow_consumer_disconnects_total",
         "Connections closed because they fell behind their outbound budget.", "counter",
         slow_consumer_disconnects_total);
  scalar(out, "emote_sim_frames_dropped_total", "Frames dropped for lossy subscribers.", "counter",
         frames_dropped_total);
  scalar(out, "emote_sim_render_snapshots_total",
         "Snapshots sent to new packets subscribers (render.md §4 rule 6).", "counter",
         render_snapshots_total);
  scalar(out, "emote_sim_render_snapshots_waiting",
         "Packets subscribers waiting for their snapshot's 20-tick window.", "gauge",
         render_snapshots_waiting);
  scalar(out, "emote_sim_render_resync_requests_total",
         "Viewers listed by render.resync requests (render.md §4 rule 5).", "counter",
         render_resync_requests_total);
  scalar(out, "emote_sim_render_resyncs_total",
         "Viewer resyncs made (at most one per viewer per 20 ticks).", "counter",
         render_resyncs_total);
  scalar(out, "emote_sim_render_unbuilt_ticks_total",
         "Ticks whose packets nobody would receive, so none were built (render.md §6).", "counter",
         render_unbuilt_ticks_total);
  scalar(out, "emote_sim_reloads_total", "Successful emote.reload requests.", "counter",
         reloads_total);
  scalar(out, "emote_sim_reload_failures_total", "Failed emote.reload requests (old catalog kept).",
         "counter", reload_failures_total);
  if (recording_failed >= 0) {
    scalar(out, "emote_sim_recording_failed",
           "1 when a write error (a full disk) stopped the --record recording.", "gauge",
           recording_failed);
  }
  const auto per_memo = [&](std::string_view name, std::string_view help, std::string_view type,
                            std::uint64_t core::memo_stats::*field) {
    header(out, name, help, type);
    for (std::size_t i = 0; i < memos.size(); ++i) {
      out += name;
      out += "{memo=\"";
      out += memo_names[i];
      out += "\"} " + std::to_string(memos[i].*field) + "\n";
    }
  };
  per_memo("emote_sim_memo_slots", "Slots of each memo (config memo.*_slots).", "gauge",
           &core::memo_stats::slots);
  per_memo("emote_sim_memo_entries", "Memo slots holding a value.", "gauge",
           &core::memo_stats::entries);
  per_memo("emote_sim_memo_hits_total", "Memo lookups that found their value.", "counter",
           &core::memo_stats::hits);
  per_memo("emote_sim_memo_misses_total", "Memo lookups that computed their value.", "counter",
           &core::memo_stats::misses);
  header(out, "emote_sim_errors_total", "Error replies by code.", "counter");
  // Every code of protocol.md §3 is listed, so the series exist before the first error.
  for (std::size_t i = 0; i < errors_total.size(); ++i) {
    out += "emote_sim_errors_total{code=\"";
    out += api::name(static_cast<api::error_code>(i));
    out += "\"} " + std::to_string(errors_total[i]) + "\n";
  }
  return out;
}

} // namespace emote::server
