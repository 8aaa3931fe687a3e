// Golden packet bytes (render.md §9): every case of tests/render/golden/cases.json, built with
// render/packets.hpp and render/content.hpp for every supported protocol, must equal byte for
// byte what minecraft-protocol 1.68.0's serializer wrote into tests/render/golden/<protocol>.json
// (minecraft/golden.mjs; tests/render/golden/README.md says how to regenerate). cases.json's
// `comment` describes the case fields.

#include "engine/json/source_reader.hpp"
#include "render/content.hpp"
#include "render/packets.hpp"
#include "render/tables.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using namespace emote;
using namespace emote::render;

namespace {

const std::filesystem::path golden_dir =
    std::filesystem::path(EMOTE_SIM_SOURCE_DIR) / "tests" / "render" / "golden";

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A JSON file through the project's reader; the error, when it does not read, in `error`.
std::optional<json::json_value> read_json(const std::filesystem::path& p, std::string& error) {
  if (!std::filesystem::exists(p)) {
    error = p.string() + " is missing";
    return std::nullopt;
  }
  auto r = json::parse_source(read_file(p), json::source_dialect::relaxed);
  if (!r.ok) {
    error = p.string() + ":" + std::to_string(r.error.line) + ":" + std::to_string(r.error.column) +
            ": " + r.error.message;
    return std::nullopt;
  }
  return std::move(r.root);
}

std::string hex(std::string_view s) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    out += digits[c >> 4];
    out += digits[c & 0xF];
  }
  return out;
}

// A malformed case: the message names what is wrong; the test fails with it.
struct bad_case {
  std::string message;
};

const json::json_value& member(const json::json_value& obj, std::string_view key) {
  const json::json_value* v = obj.find(key);
  if (v == nullptr) {
    throw bad_case{"missing \"" + std::string(key) + "\""};
  }
  return *v;
}

const std::string& string_of(const json::json_value& obj, std::string_view key) {
  const auto& v = member(obj, key);
  if (!v.is_string()) {
    throw bad_case{"\"" + std::string(key) + "\" is not a string"};
  }
  return v.as_string();
}

std::int64_t integer(const json::json_value& v, std::int64_t lo, std::int64_t hi) {
  const auto n = v.is_number() ? v.number().as_int64() : std::nullopt;
  if (!n || *n < lo || *n > hi) {
    throw bad_case{"expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi)};
  }
  return *n;
}

std::int32_t int32_of(const json::json_value& obj, std::string_view key) {
  return static_cast<std::int32_t>(integer(member(obj, key), INT32_MIN, INT32_MAX));
}

double number_of(const json::json_value& v) {
  if (!v.is_number()) {
    throw bad_case{"expected a number"};
  }
  return v.as_number();
}

std::vector<double> numbers(const json::json_value& obj, std::string_view key, std::size_t n) {
  const auto& v = member(obj, key);
  if (!v.is_array() || v.as_array().size() != n) {
    throw bad_case{"\"" + std::string(key) + "\" is not " + std::to_string(n) + " numbers"};
  }
  std::vector<double> out;
  for (const auto& e : v.as_array()) {
    out.push_back(number_of(e));
  }
  return out;
}

core::dvec3 position_of(const json::json_value& c) {
  const auto p = numbers(c, "position", 3);
  return {p[0], p[1], p[2]};
}

float yaw_of(const json::json_value& c) {
  return static_cast<float>(number_of(member(c, "yaw")));
}

std::array<std::uint8_t, 16> uuid_of(const std::string& s) {
  std::array<std::uint8_t, 16> u{};
  if (s.size() != 32) {
    throw bad_case{"uuid is not 32 hex digits: " + s};
  }
  for (std::size_t i = 0; i < 32; ++i) {
    const char ch = s[i];
    int d = 0;
    if (ch >= '0' && ch <= '9') {
      d = ch - '0';
    } else if (ch >= 'a' && ch <= 'f') {
      d = ch - 'a' + 10;
    } else {
      throw bad_case{"uuid is not 32 lower-case hex digits: " + s};
    }
    u[i / 2] = static_cast<std::uint8_t>(u[i / 2] | (i % 2 == 0 ? d << 4 : d));
  }
  return u;
}

entity_kind entity_of(const std::string& s) {
  if (s == "item_display") {
    return entity_kind::item_display;
  }
  if (s == "block_display") {
    return entity_kind::block_display;
  }
  if (s == "text_display") {
    return entity_kind::text_display;
  }
  throw bad_case{"unknown entity " + s};
}

player_flags flags_of(const json::json_value& list) {
  if (!list.is_array()) {
    throw bad_case{"flags is not a list"};
  }
  player_flags f;
  for (const auto& e : list.as_array()) {
    const std::string& n = e.is_string() ? e.as_string() : throw bad_case{"a flag is not a name"};
    bool* bit = n == "on_fire"     ? &f.on_fire
                : n == "sneaking"  ? &f.sneaking
                : n == "sprinting" ? &f.sprinting
                : n == "swimming"  ? &f.swimming
                : n == "invisible" ? &f.invisible
                : n == "glowing"   ? &f.glowing
                : n == "gliding"   ? &f.gliding
                                   : nullptr;
    if (bit == nullptr) {
      throw bad_case{"unknown flag " + n};
    }
    *bit = true;
  }
  return f;
}

// One metadata entry; an item stack's or text's encoding is kept in `storage`.
metadata_entry entry_of(const version_table& v, const json::json_value& e,
                        std::deque<std::string>& storage, warnings& warn) {
  metadata_entry m;
  m.index = static_cast<std::uint8_t>(integer(member(e, "index"), 0, 254));
  const std::string& kind = string_of(e, "kind");
  auto floats = [&](std::size_t n) {
    const auto f = numbers(e, "value", n);
    for (std::size_t i = 0; i < n; ++i) {
      m.f[i] = static_cast<float>(f[i]);
    }
  };
  if (kind == "byte") {
    m.kind = serializer::byte;
    if (const auto* flags = e.find("flags")) {
      m.i = shared_flags_byte(flags_of(*flags));
    } else {
      m.i = static_cast<std::int32_t>(integer(member(e, "value"), -128, 127));
    }
  } else if (kind == "int") {
    m.kind = serializer::int_;
    m.i = int32_of(e, "value");
  } else if (kind == "float") {
    m.kind = serializer::float_;
    m.f[0] = static_cast<float>(number_of(member(e, "value")));
  } else if (kind == "vector3") {
    m.kind = serializer::vector3;
    floats(3);
  } else if (kind == "quaternion") {
    m.kind = serializer::quaternion;
    floats(4);
  } else if (kind == "item_stack") {
    m.kind = serializer::item_stack;
    std::optional<api::skin_texture> textures;
    std::optional<api::uuid> uuid;
    std::string name;
    const auto* skin = e.find("skin");
    if (skin != nullptr) {
      if (const auto* t = skin->find("textures")) {
        textures = api::skin_texture{string_of(*t, "value"), std::nullopt};
        if (t->find("signature") != nullptr) {
          textures->signature = string_of(*t, "signature");
        }
      }
      if (skin->find("uuid") != nullptr) {
        uuid = uuid_of(string_of(*skin, "uuid"));
      }
      if (skin->find("name") != nullptr) {
        name = string_of(*skin, "name");
      }
    }
    const skin_profile profile{textures ? &*textures : nullptr, uuid ? &*uuid : nullptr, name};
    auto& out = storage.emplace_back();
    byte_writer w(out);
    write_item_stack(w, v, string_of(e, "snbt"), skin != nullptr ? &profile : nullptr, warn);
    m.raw = out;
  } else if (kind == "block_state") {
    m.kind = serializer::block_state;
    m.i = block_state_id(v, string_of(e, "snbt"), warn);
  } else if (kind == "component") {
    m.kind = serializer::component;
    auto& out = storage.emplace_back();
    byte_writer w(out);
    write_text_component(w, v, string_of(e, "text"), warn);
    m.raw = out;
  } else {
    throw bad_case{"unknown metadata kind " + kind};
  }
  return m;
}

// The packet of case `c` for version `v`, as emote-sim builds it.
std::string build(const version_table& v, const json::json_value& c, warnings& warn) {
  std::string out;
  byte_writer w(out);
  const std::string& packet = string_of(c, "packet");
  if (packet == "bundle_delimiter") {
    write_bundle_delimiter(w, v);
  } else if (packet == "spawn_entity") {
    write_spawn_entity(w, v, int32_of(c, "entity_id"), uuid_of(string_of(c, "uuid")),
                       entity_of(string_of(c, "entity")), position_of(c), yaw_of(c));
  } else if (packet == "entity_metadata") {
    const auto& list = member(c, "metadata");
    if (!list.is_array()) {
      throw bad_case{"metadata is not a list"};
    }
    std::deque<std::string> storage;
    std::vector<metadata_entry> entries;
    for (const auto& e : list.as_array()) {
      entries.push_back(entry_of(v, e, storage, warn));
    }
    write_entity_metadata(w, v, int32_of(c, "entity_id"), entries);
  } else if (packet == "entity_destroy") {
    const auto& list = member(c, "entity_ids");
    if (!list.is_array()) {
      throw bad_case{"entity_ids is not a list"};
    }
    std::vector<std::int32_t> ids;
    for (const auto& id : list.as_array()) {
      ids.push_back(static_cast<std::int32_t>(integer(id, INT32_MIN, INT32_MAX)));
    }
    write_entity_destroy(w, v, ids);
  } else if (packet == "absolute_move") {
    write_absolute_move(w, v, int32_of(c, "entity_id"), position_of(c), yaw_of(c));
  } else if (packet == "entity_look") {
    write_entity_look(w, v, int32_of(c, "entity_id"), yaw_of(c));
  } else if (packet == "blank_equipment") {
    write_blank_equipment(w, v, int32_of(c, "entity_id"));
  } else {
    throw bad_case{"unknown packet " + packet};
  }
  return out;
}

bool applies(const json::json_value& c, std::int32_t protocol) {
  const auto* range = c.find("protocols");
  if (range == nullptr) {
    return true;
  }
  if (!range->is_array() || range->as_array().size() != 2) {
    throw bad_case{"protocols is not [first, last]"};
  }
  return protocol >= integer(range->as_array()[0], 0, INT32_MAX) &&
         protocol <= integer(range->as_array()[1], 0, INT32_MAX);
}

// The first offset where the two differ (the shorter length when one is a prefix of the other).
std::size_t first_difference(std::string_view a, std::string_view b) {
  const auto n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) {
      return i;
    }
  }
  return n;
}

} // namespace

TEST_CASE("golden bytes: every case on every protocol equals minecraft-protocol's serializer") {
  std::string error;
  const auto cases_file = read_json(golden_dir / "cases.json", error);
  REQUIRE_MESSAGE(cases_file.has_value(), error);
  const auto* cases = cases_file->find("cases");
  REQUIRE(cases != nullptr);
  REQUIRE(cases->is_array());
  REQUIRE_FALSE(cases->as_array().empty());

  std::size_t compared = 0;
  for (const version_table* v : versions()) {
    CAPTURE(v->protocol);
    const auto file = golden_dir / (std::to_string(v->protocol) + ".json");
    const auto golden = read_json(file, error);
    REQUIRE_MESSAGE(golden.has_value(), error);
    REQUIRE(golden->is_object());

    std::map<std::string, std::string> expected; // case name -> hex
    for (const auto& m : golden->as_object()) {
      REQUIRE_MESSAGE(m.value.is_string(), file.string() << ": " << m.key << " is not hex");
      expected.emplace(m.key, m.value.as_string());
    }
    std::size_t applicable = 0;
    for (const auto& c : cases->as_array()) {
      const json::json_value* name_value = c.find("name");
      const std::string name = name_value != nullptr && name_value->is_string()
                                   ? name_value->as_string()
                                   : std::string("(unnamed)");
      CAPTURE(name);
      warnings warn;
      std::string got;
      try {
        if (!applies(c, v->protocol)) {
          CHECK_MESSAGE(expected.count(name) == 0,
                        "golden " << v->protocol << " has " << name << ", which does not apply");
          continue;
        }
        got = build(*v, c, warn);
      } catch (const bad_case& bad) {
        FAIL_CHECK("case " << name << ": " << bad.message);
        continue;
      }
      ++applicable;
      const auto it = expected.find(name);
      if (it == expected.end()) {
        FAIL_CHECK("case " << name << " is missing from " << file.string()
                           << " (run minecraft/golden.mjs)");
        continue;
      }
      const std::string got_hex = hex(got);
      if (got_hex != it->second) {
        const std::size_t at = first_difference(got_hex, it->second) / 2;
        FAIL_CHECK("case " << name << ", protocol " << v->protocol << ": first difference at byte "
                           << at << "\n  minecraft-protocol: " << it->second
                           << "\n  emote-sim:          " << got_hex);
      }
      std::string warned;
      for (const auto& w : warn) {
        warned += "\n  " + w;
      }
      CHECK_MESSAGE(warn.empty(), "case " << name << ", protocol " << v->protocol
                                          << " warned (the cases never should):" << warned);
      ++compared;
    }
    CHECK_MESSAGE(expected.size() == applicable,
                  file.string() << " has " << expected.size() << " packets, the cases make "
                                << applicable << " (run minecraft/golden.mjs)");
  }
  // The required protocols (render.md §1) were all compared.
  REQUIRE_FALSE(versions().empty());
  CHECK(versions().front()->protocol == 767);
  CHECK(versions().back()->protocol == 775);
  CHECK(compared > 0);
}
