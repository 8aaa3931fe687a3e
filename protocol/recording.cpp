#include "protocol/recording.hpp"

#include "engine/content/loader.hpp"
#include "engine/core/file_text.hpp"
#include "engine/core/sha256.hpp"
#include "engine/json/wire_reader.hpp"
#include "engine/json/writer.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

namespace emote::protocol {
using core::sha256;
using core::sha256_hex;
using core::to_hex;

using json::as_int64;
using json::find_member;
using json::json_out;
using json::parse_wire;
using json::to_json;
namespace {

using rapidjson::Value;

void tick_conn(json_out& o, std::int64_t tick, std::int64_t conn) {
  o.raw(R"({"tick":)");
  o.i64(tick);
  o.raw(R"(,"conn":)");
  o.i64(conn);
}

std::string lower_ascii(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return s;
}

core::failure<std::string> line_error(std::size_t line, const std::string& what) {
  return core::failure{"line " + std::to_string(line) + ": " + what};
}

} // namespace

void append_header(std::string& out, const recording_header& h) {
  json_out o(out);
  o.raw(R"({"emote_sim_recording":1,"server":)");
  o.str(h.server);
  o.raw(R"(,"build":)");
  o.str(h.build);
  o.raw(R"(,"protocol":)");
  o.i64(h.protocol);
  o.raw(R"(,"seed":)");
  o.i64(h.seed);
  o.raw(R"(,"config":)");
  o.raw(h.config_json.empty() ? std::string_view("{}") : std::string_view(h.config_json));
  o.raw(R"(,"content_digest":)");
  o.str(h.content_digest);
  if (h.content_files) {
    o.raw(R"(,"content_files":{)");
    bool first = true;
    for (const auto& f : *h.content_files) {
      if (!first) {
        o.ch(',');
      }
      first = false;
      o.str(f.path);
      o.ch(':');
      o.str(f.digest);
    }
    o.ch('}');
  }
  o.raw(R"(,"started":)");
  o.str(h.started);
  o.raw("}\n");
}

void append_connect(std::string& out, std::int64_t tick, std::int64_t conn, std::string_view role,
                    std::string_view client) {
  json_out o(out);
  tick_conn(o, tick, conn);
  o.raw(R"(,"connect":{"role":)");
  o.str(role);
  o.raw(R"(,"client":)");
  o.str(client);
  o.raw("}}\n");
}

void append_disconnect(std::string& out, std::int64_t tick, std::int64_t conn) {
  json_out o(out);
  tick_conn(o, tick, conn);
  o.raw(R"(,"disconnect":{}})");
  o.ch('\n');
}

void append_ended_early(std::string& out, std::int64_t tick, std::string_view reason) {
  json_out o(out);
  o.raw(R"({"tick":)");
  o.i64(tick);
  o.raw(R"(,"ended_early":{"reason":)");
  o.str(reason);
  o.raw("}}\n");
}

void append_msg(std::string& out, std::int64_t tick, std::int64_t conn,
                std::string_view message_json) {
  json_out o(out);
  tick_conn(o, tick, conn);
  o.raw(R"(,"msg":)");
  o.raw(message_json);
  o.raw("}\n");
}

namespace {
std::string_view without_newline(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) {
    line.remove_suffix(1);
  }
  return line;
}
} // namespace

void append_reply(std::string& out, std::int64_t tick, std::int64_t conn,
                  std::string_view reply_line) {
  json_out o(out);
  tick_conn(o, tick, conn);
  o.raw(R"(,"reply":)");
  o.raw(without_newline(reply_line));
  o.raw("}\n");
}

void append_frame(std::string& out, std::int64_t tick, std::string_view frame_line,
                  std::optional<std::string_view> stored_line,
                  std::optional<std::string_view> state) {
  frame_line = without_newline(frame_line);
  json_out o(out);
  o.raw(R"({"tick":)");
  o.i64(tick);
  o.raw(R"(,"digest":")");
  o.raw(sha256_hex(frame_line));
  o.ch('"');
  if (state) {
    o.raw(R"(,"state":")");
    o.raw(*state);
    o.ch('"');
  }
  if (stored_line) {
    o.raw(R"(,"frame":)");
    o.raw(without_newline(*stored_line));
  }
  o.raw("}\n");
}

void append_state(std::string& out, std::int64_t tick, std::string_view state) {
  json_out o(out);
  o.raw(R"({"tick":)");
  o.i64(tick);
  o.raw(R"(,"state":")");
  o.raw(state);
  o.raw("\"}\n");
}

void append_state_dump(std::string& out, std::int64_t tick, std::string_view dump_json) {
  json_out o(out);
  o.raw(R"({"tick":)");
  o.i64(tick);
  o.raw(R"(,"state_dump":)");
  o.raw(dump_json);
  o.raw("}\n");
}

namespace {
bool is_state_digest(const rapidjson::Value& v) {
  if (!v.IsString() || v.GetStringLength() != 16) {
    return false;
  }
  for (const char c : json::string_of(v)) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
      return false;
    }
  }
  return true;
}
} // namespace

std::optional<ndjson_line> next_ndjson_line(std::string_view& rest, std::size_t& line_no) {
  while (!rest.empty()) {
    const std::size_t nl = rest.find('\n');
    const bool complete = nl != std::string_view::npos;
    std::string_view line = rest.substr(0, nl);
    rest.remove_prefix(complete ? nl + 1 : rest.size());
    ++line_no;
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    if (!line.empty()) {
      return ndjson_line{line_no, line, complete};
    }
  }
  return std::nullopt;
}

core::result<recording, std::string> parse_recording(std::string_view text) {
  recording rec;
  std::size_t line_no = 0;
  bool have_header = false;
  // protocol.md §8: damage after the header ends the readable part; what precedes it is kept.
  auto damaged = [&](std::size_t column, const std::string& what) {
    rec.damage = std::to_string(line_no) + ":" + std::to_string(column) + ": " + what;
  };
  while (const auto next = next_ndjson_line(text, line_no)) {
    const std::string_view line = next->text;
    const bool complete = next->complete;
    rapidjson::Document doc;
    if (auto err = parse_wire(line, doc)) {
      if (!complete) {
        rec.truncated_tail = true;
        break;
      }
      if (have_header) {
        damaged(err->offset + 1, err->message);
        break;
      }
      return line_error(line_no, err->message);
    }
    if (!doc.IsObject()) {
      if (have_header) {
        damaged(1, "must be a JSON object");
        break;
      }
      return line_error(line_no, "must be a JSON object");
    }
    if (!have_header) {
      const auto* magic = find_member(doc, "emote_sim_recording");
      if (magic == nullptr || as_int64(*magic) != 1) {
        return line_error(line_no, "not an emote-sim recording (header emote_sim_recording 1)");
      }
      recording_header& h = rec.header;
      auto str = [&](const char* key, std::string& out) -> bool {
        const auto* it = find_member(doc, key);
        if (it == nullptr || !it->IsString()) {
          return false;
        }
        out.assign(json::string_of(*it));
        return true;
      };
      if (!str("server", h.server) || !str("content_digest", h.content_digest) ||
          !str("started", h.started)) {
        return line_error(line_no, "header needs server, content_digest and started strings");
      }
      if (const auto* build = find_member(doc, "build"); build != nullptr) {
        if (!build->IsString()) {
          return line_error(line_no, "header build must be a string");
        }
        h.build.assign(json::string_of(*build));
      }
      if (const auto* files = find_member(doc, "content_files"); files != nullptr) {
        if (!files->IsObject()) {
          return line_error(line_no, "header content_files must be an object");
        }
        auto& list = h.content_files.emplace();
        for (const auto& m : files->GetObject()) {
          if (!m.value.IsString()) {
            return line_error(line_no, "header content_files values must be digest strings");
          }
          list.push_back(
              {std::string(json::string_of(m.name)), std::string(json::string_of(m.value))});
        }
      }
      const auto* protocol = find_member(doc, "protocol");
      const auto* seed = find_member(doc, "seed");
      const auto* config = find_member(doc, "config");
      if (protocol == nullptr || !as_int64(*protocol) || seed == nullptr || !as_int64(*seed) ||
          config == nullptr || !config->IsObject()) {
        return line_error(line_no, "header needs integer protocol and seed and a config object");
      }
      h.protocol = *as_int64(*protocol);
      h.seed = *as_int64(*seed);
      h.config_json = to_json(*config);
      have_header = true;
      continue;
    }
    const auto* tick_it = find_member(doc, "tick");
    if (tick_it == nullptr || !as_int64(*tick_it) || *as_int64(*tick_it) < 0) {
      damaged(1, "needs a tick (integer >= 0)");
      break;
    }
    const std::int64_t tick = *as_int64(*tick_it);
    if (rec.ended_early) {
      damaged(1, "a line after ended_early");
      break;
    }
    if (tick < rec.last_tick) {
      damaged(1, "tick " + std::to_string(tick) + " goes back in time");
      break;
    }
    if (const auto* end = find_member(doc, "ended_early"); end != nullptr) {
      // Not a tick of the recording: the ticks from `tick` on were not recorded.
      const auto* reason = end->IsObject() ? find_member(*end, "reason") : nullptr;
      if (reason == nullptr || !reason->IsString()) {
        damaged(1, "ended_early must be an object with a reason string");
        break;
      }
      rec.ended_early = recording::early_end{tick, std::string(json::string_of(*reason))};
      continue;
    }
    rec.last_tick = tick;
    if (const auto* state = find_member(doc, "state"); state != nullptr) {
      if (!is_state_digest(*state)) {
        damaged(1, "state must be 16 lower-case hexadecimal digits");
        break;
      }
      rec.states[tick] = std::string(json::string_of(*state));
      if (!doc.HasMember("digest")) {
        continue;
      }
    }
    if (const auto* dump = find_member(doc, "state_dump"); dump != nullptr) {
      if (!dump->IsObject()) {
        damaged(1, "state_dump must be an object");
        break;
      }
      rec.state_dumps[tick] = to_json(*dump);
      continue;
    }
    if (const auto* digest = find_member(doc, "digest"); digest != nullptr) {
      if (!digest->IsString() || digest->GetStringLength() != 64) {
        damaged(1, "digest must be 64 hexadecimal digits");
        break;
      }
      rec_frame f{tick, std::string(json::string_of(*digest)), std::nullopt};
      if (doc.HasMember("frame")) {
        // The frame's exact bytes: the writer puts it last, after `"frame":`.
        const std::size_t at = line.find(R"(,"frame":)");
        if (at == std::string_view::npos || line.back() != '}') {
          damaged(1, "frame must follow the digest");
          break;
        }
        std::string_view frame = line.substr(at + 9, line.size() - (at + 9) - 1);
        // The digest covers the events: a `packets` member (render.md §6, the frame's last) is
        // not part of it. Its unescaped quotes cannot occur inside a string.
        std::string digested(frame);
        if (const auto p = frame.find(R"(],"packets":[)"); p != std::string_view::npos) {
          digested = std::string(frame.substr(0, p + 1)) + "}";
        }
        if (sha256_hex(digested) != f.digest) {
          damaged(1, "the frame does not match its digest");
          break;
        }
        f.frame_line = std::string(frame);
      }
      rec.entries.emplace_back(std::move(f));
      continue;
    }
    const auto* conn_it = find_member(doc, "conn");
    if (conn_it == nullptr || !as_int64(*conn_it)) {
      damaged(1, "needs conn (an integer) or digest");
      break;
    }
    const std::int64_t conn = *as_int64(*conn_it);
    if (const auto* msg = find_member(doc, "msg"); msg != nullptr) {
      if (!msg->IsObject()) {
        damaged(1, "msg must be an object");
        break;
      }
      rec.entries.emplace_back(rec_msg{tick, conn, to_json(*msg)});
    } else if (const auto* reply = find_member(doc, "reply"); reply != nullptr) {
      if (!reply->IsObject()) {
        damaged(1, "reply must be an object");
        break;
      }
      rec.entries.emplace_back(rec_reply{tick, conn, to_json(*reply)});
    } else if (const auto* c = find_member(doc, "connect"); c != nullptr) {
      if (!c->IsObject()) {
        damaged(1, "connect must be an object");
        break;
      }
      rec_connect e{tick, conn, {}, {}};
      if (const auto* r = find_member(*c, "role"); r != nullptr && r->IsString()) {
        e.role.assign(json::string_of(*r));
      }
      if (const auto* cl = find_member(*c, "client"); cl != nullptr && cl->IsString()) {
        e.client.assign(json::string_of(*cl));
      }
      rec.entries.emplace_back(std::move(e));
    } else if (doc.HasMember("disconnect")) {
      rec.entries.emplace_back(rec_disconnect{tick, conn});
      rec.server_stopped = rec.server_stopped || conn == 0; // the server itself (protocol.md §8)
    } else {
      damaged(1, "unknown record (expected msg, reply, connect, disconnect, digest, state, "
                 "state_dump or ended_early)");
      break;
    }
  }
  if (!have_header) {
    return core::failure{std::string("empty recording (no header line)")};
  }
  if (!rec.damage.empty()) {
    // The last good tick may be incomplete (its frame or later inputs were on the damaged line):
    // replay what is certainly whole.
    std::erase_if(rec.entries, [&](const recording_entry& e) {
      return std::visit([](const auto& x) { return x.tick; }, e) >= rec.last_tick;
    });
    rec.last_tick = std::max<std::int64_t>(rec.last_tick - 1, -1);
  }
  return rec;
}

core::result<recording, std::string> read_recording(const std::filesystem::path& file) {
  auto text = core::read_file_text(file);
  if (!text) {
    return core::failure{std::move(text.error())};
  }
  auto r = parse_recording(*text);
  if (r && !r->damage.empty()) {
    r->damage = file.string() + ":" + r->damage;
  }
  if (!r) {
    return core::failure{file.string() + ": " + r.error()};
  }
  return r;
}

bool is_recording_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string head(64, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head.find("\"emote_sim_recording\"") != std::string::npos;
}

namespace {
// formats.md §1.1 discovery order: the path after ASCII lower-casing, ties by the exact path.
bool discovery_less(const std::string& a, const std::string& b) {
  const std::string la = lower_ascii(a);
  const std::string lb = lower_ascii(b);
  return la != lb ? la < lb : a < b;
}
} // namespace

content_manifest content_manifest_of(std::vector<content_file> files) {
  std::sort(files.begin(), files.end(), [](const content_file& a, const content_file& b) {
    return discovery_less(a.path, b.path);
  });
  content_manifest out;
  sha256 h;
  for (const auto& f : files) {
    h.update(f.path);
    const std::uint8_t zero = 0;
    h.update(&zero, 1);
    std::uint8_t size[8];
    const auto n = static_cast<std::uint64_t>(f.bytes.size());
    for (int i = 0; i < 8; ++i) {
      size[i] = static_cast<std::uint8_t>(n >> (56 - 8 * i));
    }
    h.update(size, 8);
    h.update(f.bytes);
    out.files.push_back({f.path, sha256_hex(f.bytes)});
  }
  out.digest = to_hex(h.finish());
  return out;
}

std::string content_digest_of(std::vector<content_file> files) {
  return content_manifest_of(std::move(files)).digest;
}

core::result<content_manifest, std::string>
read_content_manifest(const std::vector<std::filesystem::path>& roots) {
  namespace fs = std::filesystem;
  std::vector<content_file> files;
  for (std::size_t r = 0; r < roots.size(); ++r) {
    const fs::path& root = roots[r];
    // Several roots: "<index>/" keeps their files apart and in the given order.
    const std::string prefix = roots.size() > 1 ? std::to_string(r) + "/" : std::string();
    std::error_code ec;
    if (!fs::is_directory(root, ec)) {
      return core::failure{root.string() + ": " + (ec ? ec.message() : "not a folder")};
    }
    // The files the loader reads, found the same way (formats.md §1.1 stage 1).
    for (const content::discovered_file& f : content::discover_directory(root)) {
      auto text = core::read_file_text(f.full_path);
      if (!text) {
        return core::failure{std::move(text.error())};
      }
      files.push_back({prefix + f.name, std::move(*text)});
    }
  }
  return content_manifest_of(std::move(files));
}

core::result<std::string, std::string>
content_digest(const std::vector<std::filesystem::path>& roots) {
  auto m = read_content_manifest(roots);
  if (!m) {
    return core::failure{m.error()};
  }
  return std::move(m->digest);
}

std::string describe_content_change(const std::vector<content_file_digest>& before,
                                    const std::vector<content_file_digest>& after,
                                    std::size_t limit) {
  std::map<std::string, std::string> old_files;
  for (const auto& f : before) {
    old_files.emplace(f.path, f.digest);
  }
  std::map<std::string, std::string> new_files;
  for (const auto& f : after) {
    new_files.emplace(f.path, f.digest);
  }
  // Every path once, in discovery order.
  std::vector<std::string> paths;
  paths.reserve(old_files.size() + new_files.size());
  for (const auto& [path, digest] : old_files) {
    paths.push_back(path);
  }
  for (const auto& [path, digest] : new_files) {
    if (!old_files.contains(path)) {
      paths.push_back(path);
    }
  }
  std::sort(paths.begin(), paths.end(), discovery_less);
  std::string out;
  std::size_t lines = 0;
  std::size_t more = 0;
  for (const auto& path : paths) {
    const auto o = old_files.find(path);
    const auto n = new_files.find(path);
    const char* what = o == old_files.end()     ? "added"
                       : n == new_files.end()   ? "removed"
                       : o->second != n->second ? "changed"
                                                : nullptr;
    if (what == nullptr) {
      continue;
    }
    if (lines == limit) {
      ++more;
      continue;
    }
    ++lines;
    out += std::string("  ") + what + ": " + path + "\n";
  }
  if (more > 0) {
    out += "  ... and " + std::to_string(more) + " more\n";
  }
  return out;
}

bool run_only_config_key(std::string_view key) noexcept {
  for (std::string_view k : {"emotes", "listen", "clock", "tps", "metrics", "http", "record",
                             "record_frames", "record_state_every"}) {
    if (key == k) {
      return true;
    }
  }
  return false;
}

std::string simulation_config_json(std::string_view config_json) {
  rapidjson::Document doc;
  if (json::parse_wire(config_json, doc) || !doc.IsObject()) {
    return std::string(config_json);
  }
  for (auto m = doc.MemberBegin(); m != doc.MemberEnd();) {
    if (run_only_config_key(json::string_of(m->name))) {
      m = doc.EraseMember(m); // keeps the others' order
    } else {
      ++m;
    }
  }
  return json::to_json(doc);
}

namespace {

void flatten_config(const rapidjson::Value& v, const std::string& prefix,
                    std::vector<std::pair<std::string, std::string>>& out) {
  if (v.IsObject() && !prefix.empty() && v.MemberCount() == 0) {
    out.emplace_back(prefix, "{}");
    return;
  }
  if (!v.IsObject()) {
    out.emplace_back(prefix, json::to_json(v));
    return;
  }
  for (const auto& m : v.GetObject()) {
    std::string name(prefix);
    if (!name.empty()) {
      name += '.';
    } else if (run_only_config_key(json::string_of(m.name))) {
      continue;
    }
    name += json::string_of(m.name);
    flatten_config(m.value, name, out);
  }
}

} // namespace

std::string describe_config_change(std::string_view a_json, std::string_view b_json) {
  rapidjson::Document a;
  rapidjson::Document b;
  if (json::parse_wire(a_json, a) || json::parse_wire(b_json, b) || !a.IsObject() ||
      !b.IsObject()) {
    return a_json == b_json ? std::string()
                            : "  A: " + std::string(a_json) + "\n  B: " + std::string(b_json) + "\n";
  }
  std::vector<std::pair<std::string, std::string>> fa;
  std::vector<std::pair<std::string, std::string>> fb;
  flatten_config(a, "", fa);
  flatten_config(b, "", fb);
  const auto find = [](const auto& list, const std::string& key) -> const std::string* {
    for (const auto& [k, v] : list) {
      if (k == key) {
        return &v;
      }
    }
    return nullptr;
  };
  std::string out;
  for (const auto& [k, v] : fa) {
    const std::string* other = find(fb, k);
    if (other == nullptr || *other != v) {
      out.append("  ").append(k).append(": A ").append(v).append(", B ");
      out.append(other ? *other : std::string_view("(absent)")).append("\n");
    }
  }
  for (const auto& [k, v] : fb) {
    if (find(fa, k) == nullptr) {
      out.append("  ").append(k).append(": A (absent), B ").append(v).append("\n");
    }
  }
  return out;
}

} // namespace emote::protocol
