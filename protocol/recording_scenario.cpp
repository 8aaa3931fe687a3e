#include "protocol/recording_scenario.hpp"

#include "engine/json/wire_reader.hpp"
#include "engine/json/writer.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace emote::protocol {

using json::as_int64;
using json::find_member;
using json::json_out;
using json::parse_wire;
namespace {

using rapidjson::Value;

// The message with its id member replaced by `id` (added after `op` when it had none).
std::string with_id(const Value& doc, const std::string& id) {
  std::string line;
  json_out o(line);
  o.ch('{');
  bool first = true;
  bool written = false;
  auto member = [&](std::string_view name) {
    if (!first) {
      o.ch(',');
    }
    first = false;
    o.str(name);
    o.ch(':');
  };
  const bool has_id = find_member(doc, "id") != nullptr;
  for (const auto& m : doc.GetObject()) {
    const std::string_view name = json::string_of(m.name);
    member(name);
    if (name == "id") {
      o.str(id);
      written = true;
    } else {
      o.value(m.value);
    }
    if (name == "op" && !has_id && !written) {
      member("id");
      o.str(id);
      written = true;
    }
  }
  if (!written) {
    member("id");
    o.str(id);
  }
  o.ch('}');
  return line;
}

// The id as written: an integer in decimal, a string as it is; nullopt when absent or null.
std::optional<std::string> id_text(const Value& doc) {
  const auto* id = find_member(doc, "id");
  if (id == nullptr || id->IsNull()) {
    return std::nullopt;
  }
  if (id->IsString()) {
    return std::string(json::string_of(*id));
  }
  if (auto i = as_int64(*id); i && !id->IsDouble()) {
    return std::to_string(*i);
  }
  return std::nullopt; // not an id the server accepts; the line is kept as it is
}

} // namespace

core::result<converted_recording, std::string>
convert_recording(const recording& r, const scenario_conversion& options) {
  converted_recording out;
  scenario_text& s = out.text;
  s.name = options.name.empty() ? "recorded " + r.header.started : options.name;
  s.emotes = options.emotes;
  s.seed = r.header.seed;
  s.config_json = simulation_config_json(r.header.config_json); // protocol.md §8
  s.ticks = std::max<std::int64_t>(r.last_tick + 1, 1);
  s.expect_json = options.expect_json;

  // Which messages were answered: a reply follows its message on the same connection.
  std::vector<bool> answered(r.entries.size(), false);
  {
    std::map<std::int64_t, std::size_t> last;
    for (std::size_t i = 0; i < r.entries.size(); ++i) {
      if (const auto* m = std::get_if<rec_msg>(&r.entries[i])) {
        last[m->conn] = i;
      } else if (const auto* rp = std::get_if<rec_reply>(&r.entries[i])) {
        if (const auto it = last.find(rp->conn); it != last.end()) {
          answered[it->second] = true;
          last.erase(it);
        }
      }
    }
  }

  // Players each connection joined (join order) and would take with it on disconnect.
  std::map<std::int64_t, std::vector<std::string>> owned;
  auto owner_of = [&](const std::string& player) -> std::vector<std::string>* {
    for (auto& [conn, players] : owned) {
      if (std::find(players.begin(), players.end(), player) != players.end()) {
        return &players;
      }
    }
    return nullptr;
  };
  std::set<std::string> used_ids;
  std::map<std::int64_t, std::int64_t> scripted;              // messages scripted per connection
  std::map<std::int64_t, std::optional<std::string>> last_id; // per connection
  std::size_t index = 0;
  for (std::size_t i = 0; i < r.entries.size(); ++i) {
    const auto& entry = r.entries[i];
    if (const auto* m = std::get_if<rec_msg>(&entry)) {
      last_id[m->conn].reset();
      rapidjson::Document doc;
      if (parse_wire(m->json, doc) || !doc.IsObject()) {
        return core::failure{"recorded message at tick " + std::to_string(m->tick) +
                             " is not a JSON object"};
      }
      const auto* op = find_member(doc, "op");
      const std::string_view name =
          op != nullptr && op->IsString() ? json::string_of(*op) : std::string_view{};
      if (!script_op_allowed(name) || name == "subscribe") {
        continue;
      }
      const std::int64_t position = ++scripted[m->conn];
      script_origin origin;
      origin.source = i;
      const auto* player = find_member(doc, "player");
      if (player != nullptr && player->IsString()) {
        const std::string p(json::string_of(*player));
        if (name == "player.join") {
          origin.joins = p;
          const auto* keep = find_member(doc, "keep_on_disconnect");
          const bool kept = keep != nullptr && keep->IsTrue();
          if (!kept && owner_of(p) == nullptr) {
            owned[m->conn].push_back(p);
          }
        } else if (name == "player.leave") {
          if (auto* list = owner_of(p)) {
            list->erase(std::find(list->begin(), list->end(), p));
          }
        }
      }
      // Unique ids across connections (see the header).
      const std::string prefix = std::to_string(m->conn) + "/";
      std::optional<std::string> base;
      if (auto written = id_text(doc)) {
        base = prefix + *written;
      } else if (const auto* idm = find_member(doc, "id");
                 answered[i] && (idm == nullptr || idm->IsNull())) {
        base = prefix + "~" + std::to_string(position);
      }
      std::string line = m->json;
      if (base) {
        std::string id = *base;
        for (int k = 2; used_ids.contains(id); ++k) {
          id = *base + "~" + std::to_string(k);
        }
        used_ids.insert(id);
        line = with_id(doc, id);
        last_id[m->conn] = id;
      }
      s.script.push_back({m->tick, std::move(line), index++});
      out.origins.push_back(std::move(origin));
    } else if (const auto* rp = std::get_if<rec_reply>(&entry)) {
      auto it = last_id.find(rp->conn);
      if (it != last_id.end() && it->second) {
        out.replies.push_back({rp->tick, *it->second, rp->json});
        it->second.reset();
      }
    } else if (const auto* d = std::get_if<rec_disconnect>(&entry)) {
      auto it = owned.find(d->conn);
      if (it == owned.end()) {
        continue;
      }
      for (const auto& p : it->second) {
        std::string line;
        json_out o(line);
        o.raw(R"({"op":"player.leave","player":)");
        o.str(p);
        o.ch('}');
        s.script.push_back({d->tick, std::move(line), index++});
        out.origins.push_back({i, {}, p});
      }
      owned.erase(it);
    }
  }
  return out;
}

core::result<std::string, std::string> recording_to_scenario(const recording& r,
                                                             const scenario_conversion& options) {
  auto c = convert_recording(r, options);
  if (!c) {
    return core::failure{c.error()};
  }
  return write_scenario(c->text);
}

} // namespace emote::protocol
