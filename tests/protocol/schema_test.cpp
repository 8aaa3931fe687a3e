// The JSON Schemas under schemas/ against the tables the loaders use (schemas/README.md): a key
// added to a loader table and not to its schema object, or the other way round, fails here.
//   * emote.schema.json `$defs.<name>.properties` == content::fields::all (the emote loader);
//   * config.schema.json's properties, nested objects flattened to `a.b`, ==
//   settings::config_keys(),
//     with each key's JSON type, integer range and default;
//   * scenario.schema.json's root properties == protocol::scenario_keys;
//   * every `enum` of emote.schema.json == the loader's name table for that value
//     (content/model.hpp, core/vocabulary.hpp), and no enum is without one.
#include "engine/content/fields.hpp"
#include "engine/content/model.hpp"
#include "engine/core/vocabulary.hpp"
#include "engine/json/source_reader.hpp"
#include "engine/json/writer.hpp"
#include "protocol/scenario.hpp"
#include "settings/config.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

namespace {

using emote::json::json_value;

json_value read_schema(const std::string& name) {
  std::ifstream f(std::string(EMOTE_SIM_SOURCE_DIR) + "/schemas/" + name, std::ios::binary);
  REQUIRE_MESSAGE(f.good(), "cannot open schemas/" << name);
  std::stringstream ss;
  ss << f.rdbuf();
  auto parsed = emote::json::parse_source(ss.str(), emote::json::source_dialect::strict);
  REQUIRE_MESSAGE(parsed.ok, "schemas/" << name << ": " << parsed.error.message);
  return std::move(parsed.root);
}

std::set<std::string> keys_of(const json_value& object) {
  std::set<std::string> out;
  for (const auto& m : object.as_object()) {
    out.insert(m.key);
  }
  return out;
}

std::string joined(const std::set<std::string>& s) {
  std::string out;
  for (const auto& k : s) {
    out += (out.empty() ? "" : ", ") + k;
  }
  return out.empty() ? "(none)" : out;
}

// `a` minus `b`.
std::set<std::string> minus(const std::set<std::string>& a, const std::set<std::string>& b) {
  std::set<std::string> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::inserter(out, out.end()));
  return out;
}

void flatten(const json_value& properties, const std::string& prefix,
             std::vector<std::pair<std::string, const json_value*>>& out) {
  for (const auto& m : properties.as_object()) {
    const json_value* nested = m.value.find("properties");
    if (nested != nullptr) {
      flatten(*nested, prefix + m.key + ".", out);
    } else {
      out.emplace_back(prefix + m.key, &m.value);
    }
  }
}

// Every `enum` under `v`, by its path of member names (`/$defs/playback/properties/mode`).
void enums(const json_value& v, const std::string& path,
           std::map<std::string, std::set<std::string>>& out) {
  if (v.is_object()) {
    for (const auto& m : v.as_object()) {
      if (m.key == "enum" && m.value.is_array()) {
        auto& values = out[path];
        for (const auto& e : m.value.as_array()) {
          values.insert(e.as_string());
        }
      } else {
        enums(m.value, path + "/" + m.key, out);
      }
    }
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.as_array().size(); ++i) {
      enums(v.as_array()[i], path + "/" + std::to_string(i), out);
    }
  }
}

template <typename Table>
std::set<std::string> names_of(const Table& table) {
  std::set<std::string> out;
  for (const auto n : table.all()) {
    out.insert(std::string(n));
  }
  return out;
}

} // namespace

TEST_CASE("emote.schema.json: each enum is the loader's name table for that value") {
  namespace content = emote::content;
  namespace core = emote::core;
  const std::map<std::string, std::set<std::string>> tables = {
      {"/properties/type", names_of(content::emote_kind_names)},
      {"/$defs/playback/properties/mode", names_of(content::playback_mode_names)},
      {"/$defs/anchorNode/properties/space", names_of(core::space_names)},
      {"/$defs/itemNode/properties/space", names_of(core::space_names)},
      {"/$defs/blockNode/properties/space", names_of(core::space_names)},
      {"/$defs/textNode/properties/space", names_of(core::space_names)},
      {"/$defs/itemSource/properties/arm", names_of(core::physical_arm_names)},
      {"/$defs/skin/properties/participant", names_of(content::participant_names)},
      {"/$defs/skin/properties/part", names_of(content::skin_part_names)},
      {"/$defs/itemNode/properties/item_display", names_of(content::item_display_context_names)},
      {"/$defs/node/properties/type", names_of(content::node_type_names)},
      {"/$defs/vectorKeyframe/properties/interpolation", names_of(content::interpolation_names)},
      {"/$defs/eventSource/properties/type", names_of(content::event_source_names)},
      {"/$defs/eventOrigin/properties/type", names_of(content::event_origin_names)},
  };
  std::map<std::string, std::set<std::string>> found;
  enums(read_schema("emote.schema.json"), "", found);
  for (const auto& [path, values] : found) {
    CAPTURE(path);
    const auto t = tables.find(path);
    if (t == tables.end()) {
      FAIL_CHECK("an enum with no loader name table in this test: " << path);
      continue;
    }
    CHECK_MESSAGE(minus(t->second, values).empty(), "accepted by the loader, not in the schema: "
                                                        << joined(minus(t->second, values)));
    CHECK_MESSAGE(minus(values, t->second).empty(), "in the schema, not accepted by the loader: "
                                                        << joined(minus(values, t->second)));
  }
  for (const auto& [path, names] : tables) {
    CHECK_MESSAGE(found.count(path) == 1, "the schema has no enum at " << path);
  }
}

TEST_CASE("emote.schema.json: each $defs object has exactly the keys of its loader table") {
  const json_value schema = read_schema("emote.schema.json");
  const json_value* defs = schema.find("$defs");
  REQUIRE(defs != nullptr);
  REQUIRE(schema.find("$id") != nullptr);
  std::set<std::string> tabled;
  for (const auto& table : emote::content::fields::all) {
    const std::string name(table.name);
    tabled.insert(name);
    CAPTURE(name);
    const json_value* def = defs->find(name);
    REQUIRE_MESSAGE(def != nullptr, "the loader table " << name << " has no $defs." << name);
    const json_value* props = def->find("properties");
    REQUIRE_MESSAGE(props != nullptr, "$defs." << name << " has no properties");
    std::set<std::string> loader;
    for (const auto k : table.fields) {
      loader.insert(std::string(k));
    }
    const auto schema_keys = keys_of(*props);
    CHECK_MESSAGE(minus(loader, schema_keys).empty(),
                  "in the loader, not in the schema: " << joined(minus(loader, schema_keys)));
    CHECK_MESSAGE(minus(schema_keys, loader).empty(),
                  "in the schema, not in the loader: " << joined(minus(schema_keys, loader)));
  }
  // Every schema object that lists keys is one of the loader's tables (`node` only dispatches on
  // `type` to the four node objects).
  for (const auto& m : defs->as_object()) {
    const json_value* props = m.value.find("properties");
    if (props == nullptr || m.key == "node") {
      continue;
    }
    CHECK_MESSAGE(tabled.count(m.key) == 1,
                  "$defs." << m.key
                           << " lists keys but no loader table (content/fields.hpp) has them");
  }
}

TEST_CASE("config.schema.json: the configuration keys, their types, ranges and defaults") {
  const json_value schema = read_schema("config.schema.json");
  REQUIRE(schema.find("$id") != nullptr);
  std::vector<std::pair<std::string, const json_value*>> leaves;
  flatten(*schema.find("properties"), "", leaves);
  std::set<std::string> schema_keys;
  for (const auto& [k, v] : leaves) {
    schema_keys.insert(k);
  }
  std::set<std::string> table;
  for (const auto& key : emote::settings::config_keys()) {
    table.insert(std::string(key.name));
  }
  CHECK_MESSAGE(minus(table, schema_keys).empty(),
                "in the table, not in the schema: " << joined(minus(table, schema_keys)));
  CHECK_MESSAGE(minus(schema_keys, table).empty(),
                "in the schema, not in the table: " << joined(minus(schema_keys, table)));
  using emote::settings::config_type;
  for (const auto& [name, def] : leaves) {
    const auto* key = emote::settings::find_config_key(name);
    if (key == nullptr) {
      continue;
    }
    CAPTURE(name);
    const json_value* type = def->find("type");
    REQUIRE(type != nullptr);
    const std::string& t = type->as_string();
    switch (key->type) {
    case config_type::integer: {
      CHECK(t == "integer");
      const json_value* lo = def->find("minimum");
      const json_value* hi = def->find("maximum");
      REQUIRE((lo != nullptr && hi != nullptr));
      CHECK(lo->number().as_int64() == key->min);
      CHECK(hi->number().as_int64() == key->max);
      break;
    }
    case config_type::string:
    case config_type::path:
      CHECK(t == "string");
      break;
    case config_type::boolean:
      CHECK(t == "boolean");
      break;
    case config_type::string_list:
      CHECK(t == "array");
      break;
    case config_type::json:
      CHECK(t == "array");
      break;
    }
    // The default, compared as parsed JSON.
    const json_value* d = def->find("default");
    REQUIRE(d != nullptr);
    auto table_default =
        emote::json::parse_source(key->default_json, emote::json::source_dialect::strict);
    REQUIRE(table_default.ok);
    CHECK(emote::json::to_json(table_default.root) == emote::json::to_json(*d));
  }
}

TEST_CASE("scenario.schema.json: the root keys of a scenario file") {
  const json_value schema = read_schema("scenario.schema.json");
  REQUIRE(schema.find("$id") != nullptr);
  std::set<std::string> table;
  for (const auto k : emote::protocol::scenario_keys) {
    table.insert(std::string(k));
  }
  const auto schema_keys = keys_of(*schema.find("properties"));
  CHECK_MESSAGE(minus(table, schema_keys).empty(),
                "in the loader, not in the schema: " << joined(minus(table, schema_keys)));
  CHECK_MESSAGE(minus(schema_keys, table).empty(),
                "in the schema, not in the loader: " << joined(minus(schema_keys, table)));
}
