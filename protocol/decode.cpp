#include "protocol/decode.hpp"

#include "engine/core/enum_names.hpp"
#include "engine/core/identifier.hpp"
#include "engine/json/wire_reader.hpp"
#include "engine/json/writer.hpp"
#include "engine/molang/queries.hpp"
#include "engine/world/player_fields.hpp"
#include "protocol/item.hpp"
#include "render/tables.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace emote::protocol {

using json::as_int64;
using json::find_member;
using json::parse_wire;
using json::to_json;
namespace {

using rapidjson::Value;
using F = api::player_fields;

/// Cells one world.blocks request may touch (docs/guide/wire-format.md "Client ops").
constexpr std::uint64_t max_block_cells = std::uint64_t{1} << 24;
// protocol.md §5: a player's permissions (at most) and the longest score or permission name.
constexpr std::size_t max_permissions = 1024;
constexpr std::size_t max_map_key_bytes = 256;

std::string member_path(const std::string& base, std::string_view key) {
  std::string p = base;
  p.push_back('.');
  p.append(key);
  return p;
}

std::string index_path(const std::string& base, std::size_t i) {
  return base + "[" + std::to_string(i) + "]";
}

// Collects the first validation error; every reader returns false once it has failed.
struct checker {
  std::optional<api::error> error;

  bool fail(std::string path, std::string message) {
    if (!error) {
      error = api::error{api::error_code::bad_request, std::move(message), std::move(path), {}};
    }
    return false;
  }

  // The member `key` of `obj`, or nullptr when absent or null (null = absent).
  static const Value* find(const Value& obj, std::string_view key) {
    const auto* it = find_member(obj, key);
    if (it == nullptr || it->IsNull()) {
      return nullptr;
    }
    return it;
  }
  // The member including an explicit null.
  static const Value* find_raw(const Value& obj, std::string_view key) {
    const auto* it = find_member(obj, key);
    return it;
  }

  bool string(const Value& v, const std::string& path, std::string& out, bool non_empty = false) {
    if (!v.IsString()) {
      return fail(path, "must be a string");
    }
    if (non_empty && v.GetStringLength() == 0) {
      return fail(path, "must not be empty");
    }
    out.assign(v.GetString(), v.GetStringLength());
    return true;
  }

  /// A player key (protocol.md §5): a non-empty string of at most max_player_key_bytes.
  bool player_key(const Value& v, const std::string& path, std::string& out) {
    if (!string(v, path, out, true)) {
      return false;
    }
    if (out.size() > max_player_key_bytes) {
      return fail(path, "must be at most " + std::to_string(max_player_key_bytes) + " bytes");
    }
    return true;
  }

  bool boolean(const Value& v, const std::string& path, bool& out) {
    if (!v.IsBool()) {
      return fail(path, "must be a boolean");
    }
    out = v.GetBool();
    return true;
  }

  bool number(const Value& v, const std::string& path, double& out) {
    if (!v.IsNumber()) {
      return fail(path, "must be a number");
    }
    out = v.GetDouble();
    if (!std::isfinite(out)) {
      // Strict JSON has no non-finite literals: the text was beyond binary64.
      return fail(path, "is out of range for a 64-bit float");
    }
    return true;
  }

  bool f32(const Value& v, const std::string& path, float& out) {
    double d = 0;
    if (!number(v, path, d)) {
      return false;
    }
    out = static_cast<float>(d);
    if (!std::isfinite(out)) {
      return fail(path, "is out of range for a 32-bit float");
    }
    return true;
  }

  bool integer(const Value& v, const std::string& path, std::int64_t lo, std::int64_t hi,
               std::int64_t& out) {
    if (!v.IsNumber()) {
      return fail(path, "must be an integer");
    }
    auto i = as_int64(v);
    if (!i) {
      return fail(path, "must be an integer");
    }
    if (*i < lo || *i > hi) {
      return fail(path, "must be between " + std::to_string(lo) + " and " + std::to_string(hi));
    }
    out = *i;
    return true;
  }

  bool i32(const Value& v, const std::string& path, std::int32_t& out) {
    std::int64_t i = 0;
    if (!integer(v, path, std::numeric_limits<std::int32_t>::min(),
                 std::numeric_limits<std::int32_t>::max(), i)) {
      return false;
    }
    out = static_cast<std::int32_t>(i);
    return true;
  }

  bool vec3(const Value& v, const std::string& path, api::dvec3& out) {
    if (!v.IsArray()) {
      return fail(path, "must be an array");
    }
    if (v.Size() != 3) {
      return fail(path, "must contain 3 values");
    }
    double c[3];
    for (rapidjson::SizeType i = 0; i < 3; ++i) {
      if (!number(v[i], index_path(path, i), c[i])) {
        return false;
      }
    }
    out = {c[0], c[1], c[2]};
    return true;
  }

  bool cell(const Value& v, const std::string& path, std::int32_t (&out)[3]) {
    if (!v.IsArray()) {
      return fail(path, "must be an array");
    }
    if (v.Size() != 3) {
      return fail(path, "must contain 3 values");
    }
    for (rapidjson::SizeType i = 0; i < 3; ++i) {
      if (!i32(v[i], index_path(path, i), out[i])) {
        return false;
      }
    }
    return true;
  }

  bool location(const Value& v, const std::string& path, std::string& out) {
    if (!v.IsString()) {
      return fail(path, "must be a string");
    }
    auto id = core::parse_resource_location(json::string_of(v));
    if (v.GetStringLength() == 0 || !id || id->back() == ':') {
      return fail(path, "must be a resource location like minecraft:overworld");
    }
    out = std::move(*id);
    return true;
  }

  /// A wire enumeration; the message lists every name, in enumerator order.
  template <class E>
  bool enumeration(const Value& v, const std::string& path, E& out) {
    if (!v.IsString()) {
      return fail(path, "must be a string");
    }
    auto e = api::parse_enum<E>(json::string_of(v));
    if (!e) {
      std::string choices;
      for (std::size_t i = 0; i < core::enumerator_count<E>(); ++i) {
        choices += i == 0 ? "" : ", ";
        choices += api::name(static_cast<E>(i));
      }
      return fail(path, "must be one of: " + choices);
    }
    out = *e;
    return true;
  }

  bool item(const Value& v, const std::string& path, api::item_stack& out) {
    if (v.IsNull()) {
      out = {};
      return true;
    }
    if (!v.IsString()) {
      return fail(path, "must be a string (an item id or SNBT compound) or null");
    }
    auto parsed = parse_item(json::string_of(v));
    if (!parsed) {
      return fail(path, parsed.error());
    }
    out = std::move(*parsed);
    return true;
  }

  template <class T, class Read>
  bool map_of(const Value& v, const std::string& path, std::map<std::string, T>& out, Read read,
              std::size_t max_entries) {
    if (!v.IsObject()) {
      return fail(path, "must be an object");
    }
    if (v.MemberCount() > max_entries) {
      return fail(path, "must have at most " + std::to_string(max_entries) + " entries (has " +
                            std::to_string(v.MemberCount()) + ")");
    }
    out.clear();
    for (const auto& m : v.GetObject()) {
      if (m.name.GetStringLength() > max_map_key_bytes) {
        return fail(member_path(path, json::string_of(m.name).substr(0, 32)),
                    "a name is at most " + std::to_string(max_map_key_bytes) + " bytes");
      }
      T value{};
      if (!(this->*read)(m.value, member_path(path, json::string_of(m.name)), value)) {
        return false;
      }
      out[std::string(json::string_of(m.name))] = value;
    }
    return true;
  }
};

// ---------------------------------------------------------------------------------------------
// Player state fields (protocol.md §5)

// Walks world::player_field_table: each field is read by the reader of its type.
bool read_field(checker& c, const Value& v, const std::string& path, bool& out) {
  return c.boolean(v, path, out);
}
bool read_field(checker& c, const Value& v, const std::string& path, float& out) {
  return c.f32(v, path, out);
}
bool read_field(checker& c, const Value& v, const std::string& path, std::int32_t& out) {
  return c.i32(v, path, out);
}
bool read_field(checker& c, const Value& v, const std::string& path, api::dvec3& out) {
  return c.vec3(v, path, out);
}
bool read_field(checker& c, const Value& v, const std::string& path, std::string& out) {
  return c.location(v, path, out); // dimension
}
bool read_field(checker& c, const Value& v, const std::string& path, api::item_stack& out) {
  return c.item(v, path, out);
}
bool read_field(checker& c, const Value& v, const std::string& path, api::game_mode& out) {
  return c.enumeration(v, path, out);
}
bool read_field(checker& c, const Value& v, const std::string& path, api::physical_arm& out) {
  return c.enumeration(v, path, out);
}
bool read_field(checker& c, const Value& v, const std::string& path,
                std::optional<std::string>& out) {
  // vehicle: an entity id, or an explicit null for "not riding"
  if (v.IsNull()) {
    out.reset();
    return true;
  }
  std::string s;
  if (!c.string(v, path, s, true)) {
    return false;
  }
  out = std::move(s);
  return true;
}
// protocol.md §5: the keyed lists a player update carries are bounded, so that what the engine
// does per lookup (molang.md §6) and per update stays bounded too.
bool read_field(checker& c, const Value& v, const std::string& path,
                std::map<std::string, bool>& out) {
  return c.map_of(v, path, out, &checker::boolean, max_permissions); // permissions
}
bool read_field(checker& c, const Value& v, const std::string& path,
                std::map<std::string, std::int32_t>& out) {
  return c.map_of(v, path, out, &checker::i32, molang::max_scores); // scores
}

// The viewer fields (render.md §2), apart from the simulation's table: they change no player
// state the engine reads.
constexpr std::size_t max_profile_name_bytes = 256;
constexpr std::size_t max_skin_textures = 64;
constexpr std::size_t max_texture_bytes = 65536;

bool nullable_i32(checker& c, const Value& v, const std::string& path,
                  std::optional<std::optional<std::int32_t>>& out) {
  if (v.IsNull()) {
    out.emplace();
    return true;
  }
  std::int32_t i = 0;
  if (!c.i32(v, path, i)) {
    return false;
  }
  out.emplace(i);
  return true;
}

bool bounded_string(checker& c, const Value& v, const std::string& path, std::size_t max,
                    std::string& out) {
  if (!c.string(v, path, out)) {
    return false;
  }
  if (out.size() > max) {
    return c.fail(path, "must be at most " + std::to_string(max) + " bytes");
  }
  return true;
}

bool read_skin_textures(checker& c, const Value& v, std::map<std::string, api::skin_texture>& out) {
  const std::string at = "$.skin_textures";
  if (!v.IsObject()) {
    return c.fail(at, "must be an object of \"<part>:<order>\" or \"default\" to textures");
  }
  if (v.MemberCount() > max_skin_textures) {
    return c.fail(at, "must have at most " + std::to_string(max_skin_textures) + " entries");
  }
  for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
    const std::string key(json::string_of(m->name));
    const std::string path = member_path(at, key);
    if (!m->value.IsObject()) {
      return c.fail(path, "must be an object with value and optional signature");
    }
    api::skin_texture t;
    const Value* value = checker::find(m->value, "value");
    if (value == nullptr) {
      return c.fail(path + ".value", "is required");
    }
    if (!bounded_string(c, *value, path + ".value", max_texture_bytes, t.value)) {
      return false;
    }
    if (const Value* sig = checker::find(m->value, "signature")) {
      std::string s;
      if (!bounded_string(c, *sig, path + ".signature", max_texture_bytes, s)) {
        return false;
      }
      t.signature = std::move(s);
    }
    out[key] = std::move(t);
  }
  return true;
}

bool read_viewer_fields(checker& c, const Value& msg, api::viewer_fields& f) {
  if (const Value* v = checker::find_raw(msg, "protocol")) {
    if (!nullable_i32(c, *v, "$.protocol", f.protocol)) {
      return false;
    }
    if (*f.protocol && render::find_version(**f.protocol) == nullptr) {
      return c.fail("$.protocol", "is not a supported Minecraft protocol (supported: " +
                                      std::string(render::supported_protocols_text()) +
                                      "; null: not a viewer)");
    }
  }
  if (const Value* v = checker::find_raw(msg, "entity_id")) {
    if (!nullable_i32(c, *v, "$.entity_id", f.entity_id)) {
      return false;
    }
  }
  if (const Value* v = checker::find(msg, "view_distance")) {
    std::int64_t d = 0;
    if (!c.integer(*v, "$.view_distance", 2, 32, d)) {
      return false;
    }
    f.view_distance = static_cast<std::int32_t>(d);
  }
  if (const Value* v = checker::find(msg, "name")) {
    std::string n;
    if (!bounded_string(c, *v, "$.name", max_profile_name_bytes, n)) {
      return false;
    }
    f.name = std::move(n);
  }
  if (const Value* v = checker::find(msg, "glowing")) {
    bool g = false;
    if (!c.boolean(*v, "$.glowing", g)) {
      return false;
    }
    f.glowing = g;
  }
  if (const Value* v = checker::find(msg, "skin_textures")) {
    std::map<std::string, api::skin_texture> t;
    if (!read_skin_textures(c, *v, t)) {
      return false;
    }
    f.skin_textures = std::move(t);
  }
  if (const Value* v = checker::find(msg, "render_reset")) {
    if (!v->IsBool() || !v->GetBool()) {
      return c.fail("$.render_reset", "must be true (it is write-only)");
    }
    f.render_reset = true;
  }
  return true;
}

bool read_player_fields(checker& c, const Value& msg, F& f) {
  if (!read_viewer_fields(c, msg, f.viewer)) {
    return false;
  }
  bool ok = true;
  world::for_each_player_field([&](const auto& field) {
    using T = typename std::decay_t<decltype(field)>::value_type;
    if (!ok) {
      return;
    }
    // A null is "absent", but for the fields whose null means something (vehicle) and for item
    // stacks (null = empty hand).
    constexpr bool null_is_a_value =
        std::is_same_v<T, std::optional<std::string>> || std::is_same_v<T, api::item_stack>;
    const Value* v =
        null_is_a_value ? checker::find_raw(msg, field.name) : checker::find(msg, field.name);
    if (v == nullptr) {
      return;
    }
    T x{};
    if (!read_field(c, *v, member_path("$", field.name), x)) {
      ok = false;
      return;
    }
    f.*field.in = std::move(x);
  });
  return ok;
}

bool read_player(checker& c, const Value& msg, std::string& out) {
  const Value* v = checker::find(msg, "player");
  if (v == nullptr) {
    return c.fail("$.player", "is required");
  }
  return c.player_key(*v, "$.player", out);
}

// ---------------------------------------------------------------------------------------------
// Ops

using body_result = std::optional<request_body>; // nullopt: see checker.error

body_result op_hello(checker& c, const Value& m) {
  hello_request h;
  if (const Value* v = checker::find(m, "protocol")) {
    std::int64_t p = 0;
    if (!c.integer(*v, "$.protocol", std::numeric_limits<std::int64_t>::min(),
                   std::numeric_limits<std::int64_t>::max(), p)) {
      return std::nullopt;
    }
    if (p != 1) {
      c.error = api::error{api::error_code::unsupported_protocol,
                           "unsupported protocol version " + std::to_string(p) + "; supported: 1",
                           "$.protocol",
                           {}};
      return std::nullopt;
    }
    h.protocol = p;
  }
  if (const Value* v = checker::find(m, "role")) {
    if (!v->IsString()) {
      c.fail("$.role", "must be a string");
      return std::nullopt;
    }
    if (json::string_of(*v) == "controller") {
      h.role = client_role::controller;
    } else if (json::string_of(*v) == "observer") {
      h.role = client_role::observer;
    } else {
      c.fail("$.role", "must be one of: controller, observer");
      return std::nullopt;
    }
  }
  if (const Value* v = checker::find(m, "token")) {
    std::string t;
    if (!c.string(*v, "$.token", t)) {
      return std::nullopt;
    }
    h.token = std::move(t);
  }
  if (const Value* v = checker::find(m, "client")) {
    if (!c.string(*v, "$.client", h.client)) {
      return std::nullopt;
    }
  }
  return request_body{std::move(h)};
}

body_result op_ping(checker&, const Value&) {
  return request_body{ping_request{}};
}

body_result op_bye(checker& c, const Value& m) {
  bye_request b;
  if (const Value* v = checker::find(m, "reason")) {
    if (!c.string(*v, "$.reason", b.reason)) {
      return std::nullopt;
    }
  }
  return request_body{std::move(b)};
}

// `players`: an array of player keys (render.resync, subscribe).
bool player_list(checker& c, const Value& v, std::vector<std::string>& out) {
  if (!v.IsArray()) {
    return c.fail("$.players", "must be an array of player names");
  }
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    std::string p;
    if (!c.player_key(v[i], index_path("$.players", i), p)) {
      return false;
    }
    out.push_back(std::move(p));
  }
  return true;
}

// A filter list as frame_filter keeps it: sorted, unique and not empty.
bool sorted_set(checker& c, std::vector<std::string>& v, const std::string& path,
                std::string_view omitted) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return !v.empty() || c.fail(path, "must not be empty (omit it for " + std::string(omitted) + ")");
}

body_result op_subscribe(checker& c, const Value& m) {
  subscription s;
  if (const Value* v = checker::find(m, "events")) {
    if (!v->IsArray()) {
      c.fail("$.events", "must be an array");
      return std::nullopt;
    }
    s.filter.types = 0;
    for (rapidjson::SizeType i = 0; i < v->Size(); ++i) {
      const std::string path = index_path("$.events", i);
      if (!(*v)[i].IsString()) {
        c.fail(path, "must be a string");
        return std::nullopt;
      }
      const std::uint32_t mask = event_type_mask(json::string_of((*v)[i]));
      if (mask == 0) {
        c.fail(path, "unknown event type or prefix: " + std::string(json::string_of((*v)[i])));
        return std::nullopt;
      }
      s.filter.types |= mask;
    }
  }
  if (const Value* v = checker::find(m, "dimensions")) {
    if (!v->IsArray()) {
      c.fail("$.dimensions", "must be an array");
      return std::nullopt;
    }
    for (rapidjson::SizeType i = 0; i < v->Size(); ++i) {
      std::string d;
      if (!c.location((*v)[i], index_path("$.dimensions", i), d)) {
        return std::nullopt;
      }
      s.filter.dimensions.push_back(std::move(d));
    }
    if (!sorted_set(c, s.filter.dimensions, "$.dimensions", "every dimension")) {
      return std::nullopt;
    }
  }
  if (const Value* v = checker::find(m, "players")) {
    // protocol.md §4: only events about these players and their sessions.
    if (!player_list(c, *v, s.filter.players)) {
      return std::nullopt;
    }
    if (!sorted_set(c, s.filter.players, "$.players", "every player")) {
      return std::nullopt;
    }
  }
  const std::pair<std::string_view, bool*> flags[] = {{"lossy", &s.lossy},
                                                      {"empty_frames", &s.empty_frames},
                                                      {"matrix", &s.filter.matrix},
                                                      {"packets", &s.filter.packets},
                                                      {"audiences", &s.filter.audiences}};
  for (const auto& [name, out] : flags) {
    if (const Value* v = checker::find(m, name)) {
      if (!c.boolean(*v, member_path("$", name), *out)) {
        return std::nullopt;
      }
    }
  }
  if (s.filter.packets && s.lossy) {
    // render.md §6: a dropped frame would leave the viewers' clients wrong.
    c.fail("$.lossy",
           "cannot be combined with packets (a dropped frame would leave clients wrong)");
    return std::nullopt;
  }
  if (s.filter.audiences && !s.filter.packets) {
    // render.md §6.1: audiences name the recipients of packet entries.
    c.fail("$.audiences", "needs packets (it names the recipients of packet entries)");
    return std::nullopt;
  }
  return request_body{subscribe_request{std::move(s)}};
}

body_result op_clock_step(checker& c, const Value& m) {
  clock_step_request r;
  if (const Value* v = checker::find(m, "ticks")) {
    std::int64_t t = 0;
    if (!c.integer(*v, "$.ticks", 1, 72000, t)) {
      return std::nullopt;
    }
    r.ticks = static_cast<std::int32_t>(t);
  }
  return request_body{r};
}

bool optional_player(checker& c, const Value& m, std::optional<std::string>& out) {
  if (const Value* v = checker::find(m, "player")) {
    std::string p;
    if (!c.player_key(*v, "$.player", p)) {
      return false;
    }
    out = std::move(p);
  }
  return true;
}

bool required_emote(checker& c, const Value& m, std::string& out) {
  const Value* v = checker::find(m, "emote");
  if (v == nullptr) {
    return c.fail("$.emote", "is required");
  }
  return c.string(*v, "$.emote", out, true);
}

body_result op_state_get(checker& c, const Value& m) {
  state_get_request r;
  sim::state_query& q = r.query;
  if (!optional_player(c, m, q.player)) {
    return std::nullopt;
  }
  // Paging (protocol.md §4 state.get): `limit` players after the key `after`.
  const Value* after = checker::find(m, "after");
  const Value* limit = checker::find(m, "limit");
  if (q.player && (after != nullptr || limit != nullptr)) {
    c.fail("$.player", "cannot be combined with after or limit");
    return std::nullopt;
  }
  if (after != nullptr && limit == nullptr) {
    c.fail("$.after", "requires limit");
    return std::nullopt;
  }
  if (limit != nullptr) {
    std::int64_t n = 0;
    if (!c.integer(*limit, "$.limit", 1, max_state_page_players, n)) {
      return std::nullopt;
    }
    q.limit = static_cast<std::size_t>(n);
  }
  if (after != nullptr) {
    std::string key;
    if (!c.player_key(*after, "$.after", key)) {
      return std::nullopt;
    }
    q.after = std::move(key);
  }
  return request_body{std::move(r)};
}

body_result op_emote_list(checker&, const Value&) {
  return request_body{emote_list_request{}};
}

body_result op_emote_info(checker& c, const Value& m) {
  emote_info_request r;
  if (!required_emote(c, m, r.emote)) {
    return std::nullopt;
  }
  return request_body{std::move(r)};
}

body_result op_render_resync(checker& c, const Value& m) {
  render_resync_request r;
  if (const Value* v = checker::find(m, "players")) {
    if (!player_list(c, *v, r.players)) {
      return std::nullopt;
    }
    r.all = false;
  }
  return request_body{std::move(r)};
}

body_result op_emote_reload(checker& c, const Value& m) {
  emote_reload_request r;
  if (const Value* v = checker::find(m, "allow_empty")) {
    if (!c.boolean(*v, "$.allow_empty", r.allow_empty)) {
      return std::nullopt;
    }
  }
  return request_body{r};
}

body_result op_emote_register(checker& c, const Value& m) {
  const Value* v = checker::find(m, "document");
  if (v == nullptr) {
    c.fail("$.document", "is required");
    return std::nullopt;
  }
  if (!v->IsObject()) {
    c.fail("$.document", "must be an object");
    return std::nullopt;
  }
  return request_body{emote_register_request{to_json(*v)}};
}

body_result op_emote_unregister(checker& c, const Value& m) {
  api::emote_unregister r;
  if (!required_emote(c, m, r.emote)) {
    return std::nullopt;
  }
  return request_body{api::input{std::move(r)}};
}

body_result op_cooldown_clear(checker& c, const Value& m) {
  api::cooldown_clear r;
  if (!optional_player(c, m, r.player)) {
    return std::nullopt;
  }
  return request_body{api::input{std::move(r)}};
}

body_result op_player_join(checker& c, const Value& m) {
  api::player_join j;
  if (!read_player(c, m, j.player)) {
    return std::nullopt;
  }
  if (const Value* v = checker::find(m, "uuid")) {
    std::string text;
    if (!c.string(*v, "$.uuid", text)) {
      return std::nullopt;
    }
    j.uuid = core::parse_uuid(text);
    if (!j.uuid) {
      c.fail("$.uuid", "must be a UUID like 0f8a1b2c-3d4e-5f60-7182-93a4b5c6d7e8");
      return std::nullopt;
    }
  }
  if (checker::find(m, "position") == nullptr) {
    c.fail("$.position", "is required");
    return std::nullopt;
  }
  if (!read_player_fields(c, m, j.fields)) {
    return std::nullopt;
  }
  if (const Value* v = checker::find(m, "keep_on_disconnect")) {
    if (!c.boolean(*v, "$.keep_on_disconnect", j.keep_on_disconnect)) {
      return std::nullopt;
    }
  }
  return request_body{api::input{std::move(j)}};
}

body_result op_player_update(checker& c, const Value& m) {
  api::player_update u;
  if (!read_player(c, m, u.player) || !read_player_fields(c, m, u.fields)) {
    return std::nullopt;
  }
  return request_body{api::input{std::move(u)}};
}

body_result op_player_event(checker& c, const Value& m) {
  api::player_event e;
  if (!read_player(c, m, e.player)) {
    return std::nullopt;
  }
  const Value* kind = checker::find(m, "event");
  if (kind == nullptr) {
    c.fail("$.event", "is required");
    return std::nullopt;
  }
  if (!c.enumeration(*kind, "$.event", e.kind)) {
    return std::nullopt;
  }
  switch (e.kind) {
  case api::player_event_kind::damage: {
    const Value* v = checker::find(m, "amount");
    if (v == nullptr) {
      c.fail("$.amount", "is required");
      return std::nullopt;
    }
    if (!c.number(*v, "$.amount", e.amount)) {
      return std::nullopt;
    }
    if (e.amount < 0) {
      c.fail("$.amount", "must not be negative");
      return std::nullopt;
    }
    if (const Value* l = checker::find(m, "lethal")) {
      if (!c.boolean(*l, "$.lethal", e.lethal)) {
        return std::nullopt;
      }
    }
    break;
  }
  case api::player_event_kind::attack:
    if (const Value* v = checker::find(m, "target")) {
      std::string t;
      if (!c.string(*v, "$.target", t, true)) {
        return std::nullopt;
      }
      e.target = std::move(t);
    }
    break;
  case api::player_event_kind::mount:
    if (const Value* v = checker::find(m, "vehicle")) {
      std::string t;
      if (!c.string(*v, "$.vehicle", t, true)) {
        return std::nullopt;
      }
      e.vehicle = std::move(t);
    }
    break;
  case api::player_event_kind::game_mode: {
    const Value* v = checker::find(m, "game_mode");
    if (v == nullptr) {
      c.fail("$.game_mode", "is required");
      return std::nullopt;
    }
    api::game_mode g{};
    if (!c.enumeration(*v, "$.game_mode", g)) {
      return std::nullopt;
    }
    e.mode = g;
    break;
  }
  default:
    break;
  }
  return request_body{api::input{std::move(e)}};
}

body_result op_player_leave(checker& c, const Value& m) {
  api::player_leave l;
  if (!read_player(c, m, l.player)) {
    return std::nullopt;
  }
  return request_body{api::input{std::move(l)}};
}

body_result op_emote_play(checker& c, const Value& m) {
  api::emote_play p;
  if (!read_player(c, m, p.player) || !required_emote(c, m, p.emote)) {
    return std::nullopt;
  }
  if (const Value* v = checker::find(m, "source")) {
    if (!c.enumeration(*v, "$.source", p.source)) {
      return std::nullopt;
    }
  }
  if (const Value* v = checker::find(m, "bypass")) {
    if (!c.boolean(*v, "$.bypass", p.bypass)) {
      return std::nullopt;
    }
  }
  if (const Value* v = checker::find(m, "placement")) {
    if (!v->IsObject()) {
      c.fail("$.placement", "must be an object");
      return std::nullopt;
    }
    api::placement pl;
    const Value* pos = checker::find(*v, "position");
    if (pos == nullptr) {
      c.fail("$.placement.position", "is required");
      return std::nullopt;
    }
    if (!c.vec3(*pos, "$.placement.position", pl.position)) {
      return std::nullopt;
    }
    if (const Value* yaw = checker::find(*v, "yaw")) {
      if (!c.f32(*yaw, "$.placement.yaw", pl.yaw)) {
        return std::nullopt;
      }
    }
    p.placement = pl;
  }
  return request_body{api::input{std::move(p)}};
}

body_result op_emote_stop(checker& c, const Value& m) {
  api::emote_stop s;
  if (!read_player(c, m, s.player)) {
    return std::nullopt;
  }
  return request_body{api::input{std::move(s)}};
}

body_result op_emote_stop_all(checker&, const Value&) {
  return request_body{api::input{api::emote_stop_all{}}};
}

body_result op_world_blocks(checker& c, const Value& m) {
  api::world_blocks w;
  if (const Value* v = checker::find(m, "dimension")) {
    if (!c.location(*v, "$.dimension", w.dimension)) {
      return std::nullopt;
    }
  }
  const Value* set = checker::find(m, "set");
  if (set == nullptr) {
    c.fail("$.set", "is required");
    return std::nullopt;
  }
  if (!set->IsArray()) {
    c.fail("$.set", "must be an array");
    return std::nullopt;
  }
  std::uint64_t cells = 0;
  for (rapidjson::SizeType i = 0; i < set->Size(); ++i) {
    const Value& e = (*set)[i];
    const std::string path = index_path("$.set", i);
    if (!e.IsObject()) {
      c.fail(path, "must be an object");
      return std::nullopt;
    }
    api::block_edit edit;
    const Value* at = checker::find(e, "at");
    const Value* from = checker::find(e, "from");
    const Value* to = checker::find(e, "to");
    if (at != nullptr && (from != nullptr || to != nullptr)) {
      c.fail(path, "must have either at, or from and to");
      return std::nullopt;
    }
    if (at != nullptr) {
      if (!c.cell(*at, path + ".at", edit.from)) {
        return std::nullopt;
      }
      std::copy(std::begin(edit.from), std::end(edit.from), std::begin(edit.to));
    } else {
      if (from == nullptr) {
        c.fail(path + ".from", "is required (or give at)");
        return std::nullopt;
      }
      if (to == nullptr) {
        c.fail(path + ".to", "is required");
        return std::nullopt;
      }
      if (!c.cell(*from, path + ".from", edit.from) || !c.cell(*to, path + ".to", edit.to)) {
        return std::nullopt;
      }
      for (int k = 0; k < 3; ++k) { // a box named by any two opposite corners
        if (edit.from[k] > edit.to[k]) {
          std::swap(edit.from[k], edit.to[k]);
        }
      }
    }
    std::uint64_t volume = 1;
    for (int k = 0; k < 3; ++k) {
      const auto edge =
          static_cast<std::uint64_t>(static_cast<std::int64_t>(edit.to[k]) - edit.from[k]) + 1;
      volume = edge > max_block_cells ? max_block_cells + 1
                                      : std::min(volume * edge, max_block_cells + 1);
    }
    cells += volume;
    if (cells > max_block_cells) {
      c.fail(path,
             "too many cells in one request (at most " + std::to_string(max_block_cells) + ")");
      return std::nullopt;
    }
    const Value* block = checker::find(e, "block");
    if (block == nullptr) {
      c.fail(path + ".block", "is required");
      return std::nullopt;
    }
    if (!block->IsString()) {
      c.fail(path + ".block", "must be a string");
      return std::nullopt;
    }
    const std::string_view b = json::string_of(*block);
    if (b == "air") {
      edit.kind = api::block_kind::passable;
    } else if (auto k = api::parse_enum<api::block_kind>(b)) {
      edit.kind = *k;
    } else {
      c.fail(path + ".block", "must be one of: solid, passable, water, air");
      return std::nullopt;
    }
    w.edits.push_back(edit);
  }
  return request_body{api::input{std::move(w)}};
}

body_result op_world_clear(checker& c, const Value& m) {
  api::world_clear w;
  if (const Value* v = checker::find(m, "dimension")) {
    std::string d;
    if (!c.location(*v, "$.dimension", d)) {
      return std::nullopt;
    }
    w.dimension = std::move(d);
  }
  return request_body{api::input{std::move(w)}};
}

struct op_entry {
  std::string_view name;
  body_result (*decode)(checker&, const Value&);
  bool controller;
};

constexpr std::array ops{
    op_entry{"hello", op_hello, false},
    op_entry{"ping", op_ping, false},
    op_entry{"bye", op_bye, false},
    op_entry{"subscribe", op_subscribe, false},
    op_entry{"state.get", op_state_get, false},
    op_entry{"emote.list", op_emote_list, false},
    op_entry{"emote.info", op_emote_info, false},
    op_entry{"player.join", op_player_join, true},
    op_entry{"player.update", op_player_update, true},
    op_entry{"player.event", op_player_event, true},
    op_entry{"player.leave", op_player_leave, true},
    op_entry{"emote.play", op_emote_play, true},
    op_entry{"emote.stop", op_emote_stop, true},
    op_entry{"emote.stop_all", op_emote_stop_all, true},
    op_entry{"emote.reload", op_emote_reload, true},
    op_entry{"world.blocks", op_world_blocks, true},
    op_entry{"world.clear", op_world_clear, true},
    op_entry{"emote.register", op_emote_register, true},
    op_entry{"emote.unregister", op_emote_unregister, true},
    op_entry{"cooldown.clear", op_cooldown_clear, true},
    op_entry{"clock.step", op_clock_step, true},
    op_entry{"render.resync", op_render_resync, true},
};

const op_entry* find_op(std::string_view name) {
  for (const auto& o : ops) {
    if (o.name == name) {
      return &o;
    }
  }
  return nullptr;
}

// The path of the first member whose key repeats an earlier key of the same object (in a walk
// that sorts each object's keys, so a huge object costs n log n), skipping the root's `document`
// (emote.register hands it to the content loader, whose JSON rules decide). Empty: none.
std::string duplicate_key(const Value& v, const std::string& path, bool root) {
  if (v.IsArray()) {
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
      if (auto d = duplicate_key(v[i], index_path(path, i), false); !d.empty()) {
        return d;
      }
    }
    return {};
  }
  if (!v.IsObject()) {
    return {};
  }
  std::vector<std::string_view> keys;
  keys.reserve(v.MemberCount());
  for (const auto& m : v.GetObject()) {
    keys.push_back(json::string_of(m.name));
  }
  std::sort(keys.begin(), keys.end());
  if (auto twin = std::adjacent_find(keys.begin(), keys.end()); twin != keys.end()) {
    return member_path(path, *twin);
  }
  for (const auto& m : v.GetObject()) {
    if (root && json::string_of(m.name) == "document") {
      continue;
    }
    if (auto d = duplicate_key(m.value, member_path(path, json::string_of(m.name)), false);
        !d.empty()) {
      return d;
    }
  }
  return {};
}

core::failure<decode_failure> failed(request_id id, api::error_code code, std::string message,
                                     std::string path = {}) {
  return core::failure{
      decode_failure{std::move(id), api::error{code, std::move(message), std::move(path), {}}, {}}};
}

/// The string member `key` of a request when it is a string a reply may echo (at most
/// max_player_key_bytes bytes); empty otherwise.
std::string subject_member(const Value& doc, std::string_view key) {
  const Value* v = checker::find_raw(doc, key);
  if (v == nullptr || !v->IsString() || v->GetStringLength() > max_player_key_bytes) {
    return {};
  }
  return std::string(json::string_of(*v));
}

core::result<request, decode_failure> decode_object(rapidjson::Document& doc, request& r) {
  if (const Value* id = checker::find_raw(doc, "id")) {
    if (auto i = as_int64(*id); i && !id->IsDouble()) {
      r.id = *i;
    } else if (id->IsString()) {
      r.id = std::string(json::string_of(*id));
    } else if (!id->IsNull()) {
      return failed({}, api::error_code::bad_request, "must be a string or an integer", "$.id");
    }
  }
  // Duplicate keys would make the request and its recorded copy disagree about which value
  // counts; refuse them.
  if (std::string dup = duplicate_key(doc, "$", true); !dup.empty()) {
    if (dup == "$.id") {
      r.id = {};
    }
    return failed(std::move(r.id), api::error_code::bad_request, "duplicate key", std::move(dup));
  }
  const Value* op = checker::find(doc, "op");
  if (op == nullptr) {
    return failed(std::move(r.id), api::error_code::bad_request, "is required", "$.op");
  }
  if (!op->IsString()) {
    return failed(std::move(r.id), api::error_code::bad_request, "must be a string", "$.op");
  }
  const op_entry* entry = find_op(json::string_of(*op));
  if (entry == nullptr) {
    std::string shown(json::string_of(*op).substr(0, 64));
    return failed(std::move(r.id), api::error_code::unknown_op, "unknown op: " + shown);
  }
  r.op = entry->name;

  checker c;
  auto body = entry->decode(c, doc);
  if (!body) {
    api::error e = c.error ? std::move(*c.error)
                           : api::error{api::error_code::internal, "decoder failed", {}, {}};
    return core::failure{decode_failure{std::move(r.id), std::move(e), {}}};
  }
  r.body = std::move(*body);

  doc.EraseMember("token"); // keeps the members' order
  r.record = to_json(doc);
  return core::result<request, decode_failure>(std::move(r));
}

} // namespace

core::result<request, decode_failure> decode_request(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) {
    line.remove_suffix(1);
  }
  rapidjson::Document doc;
  if (auto err = parse_wire(line, doc)) {
    return failed({}, api::error_code::bad_json, err->message);
  }
  if (!doc.IsObject()) {
    return failed({}, api::error_code::bad_json, "a message must be a JSON object");
  }
  request r;
  auto decoded = decode_object(doc, r); // moves from r only on success
  if (!decoded) {
    // protocol.md §3: every error names the request's op and the player and emote it names.
    decoded.error().subject = error_subject{std::string(r.op), subject_member(doc, "player"),
                                            subject_member(doc, "emote")};
  }
  return decoded;
}

error_subject subject_of(const request& r) {
  error_subject s;
  s.op = std::string(r.op);
  rapidjson::Document doc;
  if (!parse_wire(r.record, doc) && doc.IsObject()) {
    s.player = subject_member(doc, "player");
    s.emote = subject_member(doc, "emote");
  }
  return s;
}

bool controller_only(const request& r) noexcept {
  const op_entry* e = find_op(r.op);
  return e != nullptr && e->controller;
}

api::error forbidden_error(std::string_view op) {
  return api::error{api::error_code::forbidden,
                    "observers may not send " + std::string(op) + " (a controller op)",
                    {},
                    {}};
}

} // namespace emote::protocol
