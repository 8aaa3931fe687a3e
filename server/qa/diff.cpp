#include "server/qa/diff.hpp"

#include "engine/core/file_text.hpp"
#include "engine/core/sha256.hpp"
#include "engine/json/state_json.hpp"
#include "engine/json/wire_reader.hpp"
#include "engine/json/writer.hpp"
#include "server/qa/replay.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace emote::server {

namespace {

std::string conn_text(std::int64_t conn) {
  return "conn " + std::to_string(conn) + " ";
}

} // namespace

diff_timeline timeline_of(const protocol::recording& r) {
  diff_timeline t;
  t.recording = true;
  t.header = r.header;
  for (const auto& e : r.entries) {
    if (const auto* m = std::get_if<protocol::rec_msg>(&e)) {
      t.ticks[m->tick].inputs.push_back(conn_text(m->conn) + m->json);
    } else if (const auto* c = std::get_if<protocol::rec_connect>(&e)) {
      std::string line;
      json::json_out o(line);
      o.raw(R"(connect {"role":)");
      o.str(c->role);
      o.raw(R"(,"client":)");
      o.str(c->client);
      o.ch('}');
      t.ticks[c->tick].inputs.push_back(conn_text(c->conn) + line);
    } else if (const auto* d = std::get_if<protocol::rec_disconnect>(&e)) {
      t.ticks[d->tick].inputs.push_back(conn_text(d->conn) + "disconnect");
    } else if (const auto* rp = std::get_if<protocol::rec_reply>(&e)) {
      t.ticks[rp->tick].replies.push_back(conn_text(rp->conn) + rp->json);
    } else if (const auto* f = std::get_if<protocol::rec_frame>(&e)) {
      diff_tick& dt = t.ticks[f->tick];
      dt.output = f->digest;
      dt.frame = f->frame_line;
    }
  }
  // A damaged recording's entries stop before its last tick (protocol.md §8): so do its states.
  for (const auto& [tick, state] : r.states) {
    if (tick <= r.last_tick) {
      t.ticks[tick].state = state;
    }
  }
  for (const auto& [tick, dump] : r.state_dumps) {
    if (tick <= r.last_tick) {
      t.state_dumps[tick] = dump;
    }
  }
  t.last_tick = r.last_tick;
  t.damage = r.damage;
  if (r.ended_early) {
    t.incomplete = "ended early at tick " + std::to_string(r.ended_early->tick) + " (" +
                   r.ended_early->reason + ")";
  } else if (r.truncated_tail) {
    t.incomplete = "has an incomplete last line";
  } else if (!r.server_stopped) {
    t.incomplete = "has no end (the server did not stop normally)";
  }
  return t;
}

diff_timeline parse_output_timeline(std::string_view text, std::string_view file) {
  diff_timeline t;
  std::size_t line_no = 0;
  auto damaged = [&](std::size_t column, const std::string& what) {
    t.damage = std::string(file) + ":" + std::to_string(line_no) + ":" + std::to_string(column) +
               ": " + what;
  };
  while (const auto next = protocol::next_ndjson_line(text, line_no)) {
    const std::string_view line = next->text;
    rapidjson::Document doc;
    if (auto err = json::parse_wire(line, doc)) {
      if (!next->complete) {
        t.incomplete = "has an incomplete last line";
        break;
      }
      damaged(err->offset + 1, err->message);
      break;
    }
    const auto* op = doc.IsObject() ? json::find_member(doc, "op") : nullptr;
    const auto* tick_v = doc.IsObject() ? json::find_member(doc, "tick") : nullptr;
    const auto tick = tick_v != nullptr ? json::as_int64(*tick_v) : std::nullopt;
    const std::string_view name = op != nullptr && op->IsString()
                                      ? std::string_view(op->GetString(), op->GetStringLength())
                                      : std::string_view();
    if ((name != "reply" && name != "frame") || !tick || *tick < 0) {
      damaged(1, "expected a reply or a frame line with a tick (a scenario's output, as run "
                 "--out writes it)");
      break;
    }
    if (*tick < t.last_tick) {
      damaged(1, "tick " + std::to_string(*tick) + " goes back in time (one scenario per file)");
      break;
    }
    t.last_tick = *tick;
    diff_tick& dt = t.ticks[*tick];
    const std::string compact = json::to_json(doc);
    if (name == "reply") {
      dt.replies.push_back(compact);
    } else {
      dt.output = core::sha256_hex(compact);
      dt.frame = compact;
    }
  }
  if (!t.damage.empty()) {
    // As for recordings: the last tick before the damaged line may be incomplete.
    std::erase_if(t.ticks, [&](const auto& kv) { return kv.first >= t.last_tick; });
    t.last_tick = std::max<std::int64_t>(t.last_tick - 1, -1);
  }
  return t;
}

core::result<diff_timeline, std::string> read_timeline(const std::filesystem::path& file) {
  if (protocol::is_recording_file(file)) {
    auto r = protocol::read_recording(file);
    if (!r) {
      return core::failure{r.error()};
    }
    return timeline_of(*r);
  }
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) {
    return core::failure{file.string() + ": is a folder, not a recording or a scenario output"};
  }
  auto read = core::read_file_text(file);
  if (!read) {
    return core::failure{std::move(read.error())};
  }
  const std::string& text = *read;
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    return core::failure{file.string() + ": empty (neither a recording nor a scenario output)"};
  }
  return parse_output_timeline(text, file.string());
}

namespace {

std::string or_none(const std::string& s, const char* none) {
  return s.empty() ? std::string(none) : s;
}

// Header notes (protocol.md §8): what differs between the two recordings' headers.
std::string header_notes(const diff_timeline& a, const diff_timeline& b) {
  const auto& ha = a.header;
  const auto& hb = b.header;
  std::string out;
  if (ha.build != hb.build) {
    out += "note: A was recorded by build " + or_none(ha.build, "(not recorded)") +
           ", B by build " + or_none(hb.build, "(not recorded)") + "\n";
  }
  if (ha.seed != hb.seed) {
    out += "note: the seeds differ: A " + std::to_string(ha.seed) + ", B " +
           std::to_string(hb.seed) + "\n";
  }
  // Only the keys that differ, leaving out where and how each server ran (record file, listen
  // address, clock, ...: protocol::run_only_config_key).
  if (const std::string keys = protocol::describe_config_change(ha.config_json, hb.config_json);
      !keys.empty()) {
    out += "note: the configurations differ:\n" + keys;
  }
  if (ha.content_digest != hb.content_digest) {
    out += "note: the content differs (A " + ha.content_digest + ", B " + hb.content_digest +
           "); removed: in A only, added: in B only\n";
    if (ha.content_files && hb.content_files) {
      out += protocol::describe_content_change(*ha.content_files, *hb.content_files);
    }
    for (const auto* side : {&a, &b}) {
      if (!side->header.content_files) {
        out += std::string("  (") + (side == &a ? "A" : "B") + ": " +
               std::string(protocol::content_files_unlisted) + ")\n";
      }
    }
  }
  return out;
}

} // namespace

diff_report diff_timelines(const diff_timeline& a, const diff_timeline& b, std::string_view a_file,
                           std::string_view b_file) {
  diff_report rep;
  std::string& out = rep.text;
  auto kind = [](const diff_timeline& t) {
    return t.recording ? std::string("recording") : std::string("scenario output");
  };
  out += "diff: A = " + std::string(a_file) + " (" + kind(a) + "), B = " + std::string(b_file) +
         " (" + kind(b) + ")\n";
  if (a.recording && b.recording) {
    out += header_notes(a, b);
  }
  // The ticks both files can speak for: a file that stops early (damaged, cut, no end) is
  // compared only as far as it goes; a complete file that is shorter differs after its end.
  const bool a_partial = !a.damage.empty() || !a.incomplete.empty();
  const bool b_partial = !b.damage.empty() || !b.incomplete.empty();
  std::int64_t last = std::max(a.last_tick, b.last_tick);
  std::string cut_note;
  for (const auto* side : {&a, &b}) {
    const auto* other = side == &a ? &b : &a;
    const bool partial = side == &a ? a_partial : b_partial;
    if (partial && side->last_tick < other->last_tick) {
      last = std::min(last, side->last_tick);
    }
  }
  for (const auto* side : {&a, &b}) {
    const char* name = side == &a ? "A" : "B";
    if (!side->damage.empty()) {
      cut_note += std::string("; ") + name + " is damaged at " + side->damage;
    } else if (!side->incomplete.empty() && side->last_tick <= last &&
               side->last_tick < std::max(a.last_tick, b.last_tick)) {
      cut_note += std::string("; ") + name + " " + side->incomplete;
    }
  }

  std::set<std::int64_t> ticks;
  for (const auto* side : {&a, &b}) {
    for (const auto& [tick, data] : side->ticks) {
      if (tick <= last) {
        ticks.insert(tick);
      }
    }
  }
  const diff_tick none;
  auto at = [&](const diff_timeline& t, std::int64_t tick) -> const diff_tick& {
    const auto it = t.ticks.find(tick);
    return it == t.ticks.end() ? none : it->second;
  };
  // Each kind of difference at its first tick, in tick order.
  std::vector<std::pair<std::int64_t, std::string>> sections;
  for (const std::int64_t tick : ticks) {
    const diff_tick& x = at(a, tick);
    const diff_tick& y = at(b, tick);
    const std::string t = std::to_string(tick);
    if (!rep.inputs_tick && x.inputs != y.inputs) {
      rep.inputs_tick = tick;
      sections.emplace_back(
          tick, "inputs differ at tick " + t + ":\n" +
                    describe_first_difference("input", x.inputs, y.inputs, "in A", "in B"));
    }
    if (!rep.replies_tick && x.replies != y.replies) {
      rep.replies_tick = tick;
      sections.emplace_back(
          tick, "replies differ at tick " + t + ":\n" +
                    describe_first_difference("reply", x.replies, y.replies, "in A", "in B"));
    }
    if (!rep.output_tick && x.output != y.output) {
      rep.output_tick = tick;
      std::string s = "output differs at tick " + t + " (A " + or_none(x.output, "no output") +
                      ", B " + or_none(y.output, "no output") + "):\n";
      if ((x.frame || x.output.empty()) && (y.frame || y.output.empty())) {
        s += describe_event_diff(x.frame.value_or(R"({"events":[]})"), y.frame.value_or(""), "in A",
                                 "in B");
      } else {
        s += "  (digests only: record with --record-frames to see the events)\n";
      }
      sections.emplace_back(tick, std::move(s));
    }
    if (!rep.state_tick && x.state != y.state) {
      rep.state_tick = tick;
      std::string s = "state differs at tick " + t + " (A " + or_none(x.state, "not recorded") +
                      ", B " + or_none(y.state, "not recorded") + ")";
      // The first dump both hold at or after the tick: both states of that same tick.
      auto dump = a.state_dumps.lower_bound(tick);
      while (dump != a.state_dumps.end() && dump->first <= last &&
             !b.state_dumps.contains(dump->first)) {
        ++dump;
      }
      if (dump != a.state_dumps.end() && dump->first <= last) {
        const std::string details =
            json::describe_state_diff(dump->second, b.state_dumps.at(dump->first), "A", "B");
        s += ", the dumps of tick " + std::to_string(dump->first) + ":\n" +
             (details.empty() ? std::string("  (no difference in the dumped fields)\n") : details);
      } else {
        s += ":\n  (no state dump at or after it in both)\n";
      }
      sections.emplace_back(tick, std::move(s));
    }
  }
  rep.ticks_compared = last + 1;
  for (const auto& t : {rep.inputs_tick, rep.replies_tick, rep.output_tick, rep.state_tick}) {
    if (t && (!rep.tick || *t < *rep.tick)) {
      rep.tick = t;
    }
  }
  if (!rep.tick) {
    out += "diff: " + std::to_string(rep.ticks_compared) + " ticks, identical" + cut_note + "\n";
    rep.status = cut_note.empty() ? 0 : 1;
    return rep;
  }
  std::string ends;
  if (a.last_tick != b.last_tick) {
    ends = " (A ends at tick " + std::to_string(a.last_tick) + ", B at tick " +
           std::to_string(b.last_tick) + ")";
  }
  out += "diff: diverged at tick " + std::to_string(*rep.tick) + ends + cut_note + "\n";
  std::stable_sort(sections.begin(), sections.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  for (const auto& [tick, s] : sections) {
    out += s;
  }
  rep.status = 1;
  return rep;
}

} // namespace emote::server
