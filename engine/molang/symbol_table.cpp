#include "engine/molang/symbol_table.hpp"

namespace emote::molang {

symbol_table::symbol_table() {
  intern_string("");
}

name_id symbol_table::intern_name(std::string_view name) {
  std::string key(name);
  for (char& c : key) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  if (const auto it = name_ids_.find(key); it != name_ids_.end()) {
    return it->second;
  }
  const auto id = static_cast<name_id>(names_.size());
  name_entry e;
  e.math = find_math_member(key);
  e.query = find_query(key).value_or(-1);
  if (key == "math") {
    e.root = root_kind::math;
  } else if (key == "v" || key == "variable") {
    e.root = root_kind::variable;
  } else if (key == "q" || key == "query") {
    e.root = root_kind::query;
  } else if (key == "t" || key == "temp") {
    e.root = root_kind::temp;
  }
  e.text = key;
  names_.push_back(std::move(e));
  name_ids_.emplace(std::move(key), id);
  return id;
}

string_id symbol_table::intern_string(std::string_view text) {
  std::string key(text);
  if (const auto it = string_ids_.find(key); it != string_ids_.end()) {
    return it->second;
  }
  const auto id = static_cast<string_id>(strings_.size());
  strings_.push_back({key, slot_from_string(key)});
  string_ids_.emplace(std::move(key), id);
  return id;
}

} // namespace emote::molang
