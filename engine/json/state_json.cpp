#include "engine/json/state_json.hpp"

#include "engine/json/wire_reader.hpp"
#include "engine/json/writer.hpp"

#include <map>

namespace emote::json {

void state_json::member(std::string_view key) {
  if (open_.empty()) {
    return;
  }
  auto& [list, any] = open_.back();
  if (any) {
    out_->push_back(',');
  }
  any = true;
  if (!list) {
    json_out(*out_).str(key);
    out_->push_back(':');
  }
}

void state_json::begin_object(std::string_view key) {
  member(key);
  out_->push_back('{');
  open_.emplace_back(false, false);
}
void state_json::begin_object_id(std::int64_t id) {
  member(std::to_string(id));
  out_->push_back('{');
  open_.emplace_back(false, false);
}
void state_json::begin_map(std::string_view key) {
  begin_object(key);
}
void state_json::end_object() {
  out_->push_back('}');
  open_.pop_back();
}
void state_json::begin_list(std::string_view key) {
  member(key);
  out_->push_back('[');
  open_.emplace_back(true, false);
}
void state_json::end_list() {
  out_->push_back(']');
  open_.pop_back();
}
void state_json::i64(std::string_view key, std::int64_t v) {
  member(key);
  json_out(*out_).i64(v);
}
void state_json::u64(std::string_view key, std::uint64_t v) {
  member(key);
  json_out(*out_).u64(v);
}
void state_json::f32(std::string_view key, float v) {
  member(key);
  json_out(*out_).f32(v);
}
void state_json::f64(std::string_view key, double v) {
  member(key);
  json_out(*out_).f64(v);
}
void state_json::str(std::string_view key, std::string_view v) {
  member(key);
  json_out(*out_).str(v);
}
void state_json::boolean(std::string_view key, bool v) {
  member(key);
  json_out(*out_).boolean(v);
}
void state_json::null(std::string_view key) {
  member(key);
  json_out(*out_).null();
}

namespace {

bool plain_key(std::string_view k) {
  if (k.empty()) {
    return false;
  }
  for (const char c : k) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) {
      return false;
    }
  }
  return true;
}

void flatten(const rapidjson::Value& v, const std::string& path,
             std::map<std::string, std::string>& out) {
  if (v.IsObject() && v.MemberCount() > 0) {
    for (const auto& m : v.GetObject()) {
      const std::string_view k(m.name.GetString(), m.name.GetStringLength());
      std::string p = path;
      if (plain_key(k)) {
        p += path.empty() ? "" : ".";
        p += k;
      } else {
        p += "[" + to_json(m.name) + "]";
      }
      flatten(m.value, p, out);
    }
    return;
  }
  if (v.IsArray() && !v.Empty()) {
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
      flatten(v[i], path + "[" + std::to_string(i) + "]", out);
    }
    return;
  }
  out[path.empty() ? std::string("(root)") : path] = to_json(v);
}

} // namespace

std::vector<state_difference> diff_states(std::string_view left, std::string_view right,
                                          std::size_t limit, std::size_t* total) {
  std::vector<state_difference> diffs;
  rapidjson::Document a;
  rapidjson::Document b;
  const bool a_bad = parse_wire(left, a).has_value();
  const bool b_bad = parse_wire(right, b).has_value();
  if (a_bad || b_bad) {
    diffs.push_back(
        {"(dump)", a_bad ? "(unreadable)" : "(readable)", b_bad ? "(unreadable)" : "(readable)"});
    if (total != nullptr) {
      *total = 1;
    }
    return diffs;
  }
  std::map<std::string, std::string> fa;
  std::map<std::string, std::string> fb;
  flatten(a, "", fa);
  flatten(b, "", fb);
  std::size_t n = 0;
  auto add = [&](const std::string& path, std::string x, std::string y) {
    if (diffs.size() < limit) {
      diffs.push_back({path, std::move(x), std::move(y)});
    }
    ++n;
  };
  auto ia = fa.begin();
  auto ib = fb.begin();
  while (ia != fa.end() || ib != fb.end()) {
    if (ib == fb.end() || (ia != fa.end() && ia->first < ib->first)) {
      add(ia->first, ia->second, "(absent)");
      ++ia;
    } else if (ia == fa.end() || ib->first < ia->first) {
      add(ib->first, "(absent)", ib->second);
      ++ib;
    } else {
      if (ia->second != ib->second) {
        add(ia->first, ia->second, ib->second);
      }
      ++ia;
      ++ib;
    }
  }
  if (total != nullptr) {
    *total = n;
  }
  return diffs;
}

std::string describe_state_diff(std::string_view left, std::string_view right,
                                std::string_view left_name, std::string_view right_name,
                                std::size_t limit) {
  std::size_t total = 0;
  const auto diffs = diff_states(left, right, limit, &total);
  std::string out;
  for (const auto& d : diffs) {
    out += "  " + d.path + ": " + std::string(left_name) + " " + d.left + ", " +
           std::string(right_name) + " " + d.right + "\n";
  }
  if (total > diffs.size()) {
    out += "  ... and " + std::to_string(total - diffs.size()) + " more\n";
  }
  return out;
}

} // namespace emote::json
