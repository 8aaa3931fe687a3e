#include "protocol/expect.hpp"

#include "engine/json/wire_reader.hpp"
#include "engine/json/writer.hpp"
#include "protocol/encode.hpp"

#include <cmath>

namespace emote::protocol {

using json::as_int64;
using json::find_member;
using json::parse_wire;
using json::to_json;
namespace {

using rapidjson::Value;

constexpr double number_tolerance = 1e-6;
constexpr std::size_t max_shown = 240;

std::string shorten(std::string s) {
  if (s.size() > max_shown) {
    s.resize(max_shown);
    s += "...";
  }
  return s;
}

bool is_window_key(std::string_view k) {
  return k == "tick" || k == "by" || k == "after";
}

using parse_result = core::result<expectation, std::string>;

core::failure<std::string> bad(const std::string& path, std::string_view what) {
  return core::failure{path + ": " + std::string(what)};
}

std::optional<std::string> read_window(const Value& obj, const std::string& path, tick_window& w) {
  const std::pair<const char*, std::optional<std::int64_t>*> keys[] = {
      {"tick", &w.tick}, {"by", &w.by}, {"after", &w.after}};
  for (const auto& [key, out] : keys) {
    const auto* it = find_member(obj, key);
    if (it == nullptr) {
      continue;
    }
    auto v = as_int64(*it);
    if (!v) {
      return path + "." + key + ": must be an integer";
    }
    *out = *v;
  }
  return std::nullopt;
}

parse_result parse_one(const Value& v, const std::string& path) {
  if (!v.IsObject()) {
    return bad(path, "must be an object");
  }
  expectation e;
  e.source = &v;
  e.text = to_json(v);
  const char* kinds[] = {"reply", "event", "count", "not", "order"};
  int found = 0;
  const char* kind = nullptr;
  for (const char* k : kinds) {
    if (v.HasMember(k)) {
      ++found;
      kind = k;
    }
  }
  if (found != 1) {
    return bad(path, "must have exactly one of reply, event, count, not, order");
  }
  const std::string_view k = kind;
  const Value& head = v[kind];
  const std::string head_path = path + "." + kind;

  if (k == "reply") {
    e.type = expectation::kind::reply;
    if (!head.IsString() && !(as_int64(head) && !head.IsDouble())) {
      return bad(head_path, "must be a string or an integer (a request id)");
    }
    e.reply_id = &head;
    if (auto err = read_window(v, path, e.window)) {
      return core::failure{*err};
    }
    return e;
  }
  if (k == "event") {
    e.type = expectation::kind::event;
    if (!head.IsString()) {
      return bad(head_path, "must be a string");
    }
    e.event_type = json::string_of(head);
    if (event_type_mask(e.event_type) == 0) {
      return bad(head_path, "unknown event type or prefix: " + e.event_type);
    }
    if (auto err = read_window(v, path, e.window)) {
      return core::failure{*err};
    }
    return e;
  }
  if (k == "count") {
    e.type = expectation::kind::count;
    if (!head.IsObject() || !head.HasMember("event")) {
      return bad(head_path, "must be an event expectation ({\"event\": TYPE, ...})");
    }
    auto inner = parse_one(head, head_path);
    if (!inner) {
      return inner;
    }
    e.children.push_back(std::move(*inner));
    const std::pair<const char*, std::optional<std::int64_t>*> bounds[] = {
        {"equals", &e.equals}, {"at_least", &e.at_least}, {"at_most", &e.at_most}};
    for (const auto& [key, out] : bounds) {
      const auto* it = find_member(v, key);
      if (it == nullptr) {
        continue;
      }
      auto n = as_int64(*it);
      if (!n || *n < 0) {
        return bad(path + "." + key, "must be an integer >= 0");
      }
      *out = *n;
    }
    if (!e.equals && !e.at_least && !e.at_most) {
      return bad(path, "needs equals, at_least or at_most");
    }
    for (const auto& m : v.GetObject()) {
      const std::string_view name = json::string_of(m.name);
      if (name != "count" && name != "equals" && name != "at_least" && name != "at_most") {
        return bad(path + "." + std::string(name), "unknown key in a count expectation");
      }
    }
    return e;
  }
  if (k == "not") {
    e.type = expectation::kind::negation;
    auto inner = parse_one(head, head_path);
    if (!inner) {
      return inner;
    }
    e.children.push_back(std::move(*inner));
    if (v.MemberCount() != 1) {
      return bad(path, "a not expectation has no other keys");
    }
    return e;
  }
  e.type = expectation::kind::order;
  if (!head.IsArray() || head.Empty()) {
    return bad(head_path, "must be a non-empty array");
  }
  for (rapidjson::SizeType i = 0; i < head.Size(); ++i) {
    const std::string p = head_path + "[" + std::to_string(i) + "]";
    auto inner = parse_one(head[i], p);
    if (!inner) {
      return inner;
    }
    if (inner->type != expectation::kind::event && inner->type != expectation::kind::reply) {
      return bad(p, "must be an event or reply expectation");
    }
    e.children.push_back(std::move(*inner));
  }
  if (v.MemberCount() != 1) {
    return bad(path, "an order expectation has no other keys");
  }
  return e;
}

bool same_id(const Value& expected, const Value& actual) {
  if (expected.IsString()) {
    return actual.IsString() && json::string_of(expected) == json::string_of(actual);
  }
  auto a = as_int64(actual);
  auto b = as_int64(expected);
  return a && b && *a == *b;
}

bool fields_match(const expectation& e, std::string_view head, const Value& actual) {
  for (const auto& m : e.source->GetObject()) {
    const std::string_view name = json::string_of(m.name);
    if (name == head || is_window_key(name)) {
      continue;
    }
    const auto* it = find_member(actual, json::string_of(m.name));
    if (it == nullptr || !subset_match(m.value, *it)) {
      return false;
    }
  }
  return true;
}

bool type_matches(std::string_view selector, std::string_view type) {
  if (!selector.empty() && selector.back() == '.') {
    return type.starts_with(selector);
  }
  return selector == type;
}

bool item_matches(const expectation& e, const output_log::item& it) {
  if (!e.window.contains(it.tick)) {
    return false;
  }
  if (e.type == expectation::kind::reply) {
    const auto* id = find_member(*it.value, "id");
    return id != nullptr && same_id(*e.reply_id, *id) && fields_match(e, "reply", *it.value);
  }
  return type_matches(e.event_type, it.type) && fields_match(e, "event", *it.value);
}

const std::vector<output_log::item>& items_for(const expectation& e, const output_log& log) {
  return e.type == expectation::kind::reply ? log.replies() : log.events();
}

// The first matching item with seq >= min_seq, or nullptr.
const output_log::item* find_first(const expectation& e, const output_log& log,
                                   std::size_t min_seq = 0) {
  for (const auto& it : items_for(e, log)) {
    if (it.seq >= min_seq && item_matches(e, it)) {
      return &it;
    }
  }
  return nullptr;
}

std::int64_t count_matches(const expectation& e, const output_log& log) {
  std::int64_t n = 0;
  for (const auto& it : items_for(e, log)) {
    if (item_matches(e, it)) {
      ++n;
    }
  }
  return n;
}

std::string describe(const output_log::item& it) {
  return "tick " + std::to_string(it.tick) + " " + shorten(to_json(*it.value));
}

// Why a reply or event expectation found no match.
std::string why_missing(const expectation& e, const output_log& log) {
  if (e.type == expectation::kind::reply) {
    for (const auto& it : log.replies()) {
      const auto* id = find_member(*it.value, "id");
      if (id != nullptr && same_id(*e.reply_id, *id)) {
        return "the reply differs: " + describe(it);
      }
    }
    return "no reply with this id";
  }
  std::size_t in_window = 0;
  std::size_t outside = 0;
  const output_log::item* first = nullptr;
  for (const auto& it : log.events()) {
    if (!type_matches(e.event_type, it.type)) {
      continue;
    }
    if (e.window.contains(it.tick)) {
      ++in_window;
      if (first == nullptr) {
        first = &it;
      }
    } else {
      ++outside;
    }
  }
  std::string s = "no matching event (" + std::to_string(in_window) + " " + e.event_type +
                  " in the window, " + std::to_string(outside) + " outside";
  if (first != nullptr) {
    s += "; first in the window: " + describe(*first);
  }
  s += ")";
  return s;
}

std::optional<std::string> unmet_reason(const expectation& e, const output_log& log) {
  switch (e.type) {
  case expectation::kind::reply:
  case expectation::kind::event:
    if (find_first(e, log) != nullptr) {
      return std::nullopt;
    }
    return why_missing(e, log);
  case expectation::kind::count: {
    const std::int64_t n = count_matches(e.children.front(), log);
    if ((e.equals && n != *e.equals) || (e.at_least && n < *e.at_least) ||
        (e.at_most && n > *e.at_most)) {
      return "counted " + std::to_string(n);
    }
    return std::nullopt;
  }
  case expectation::kind::negation: {
    const expectation& inner = e.children.front();
    if (inner.type == expectation::kind::reply || inner.type == expectation::kind::event) {
      if (const auto* it = find_first(inner, log)) {
        return "found " + describe(*it);
      }
      return std::nullopt;
    }
    if (!unmet_reason(inner, log)) {
      return "the negated expectation holds";
    }
    return std::nullopt;
  }
  case expectation::kind::order: {
    std::size_t next_seq = 0;
    std::optional<std::int64_t> last_tick;
    for (std::size_t k = 0; k < e.children.size(); ++k) {
      const auto* it = find_first(e.children[k], log, next_seq);
      if (it == nullptr) {
        std::string s =
            "element " + std::to_string(k) + " " + shorten(e.children[k].text) + " does not occur";
        if (last_tick) {
          s += " after the match of element " + std::to_string(k - 1) + " (tick " +
               std::to_string(*last_tick) + ")";
        }
        return s;
      }
      next_seq = it->seq + 1;
      last_tick = it->tick;
    }
    return std::nullopt;
  }
  }
  return std::nullopt;
}

} // namespace

core::result<expectation_set, std::string> expectation_set::parse(const rapidjson::Value& list) {
  expectation_set set;
  set.doc_ = std::make_shared<rapidjson::Document>();
  set.doc_->CopyFrom(list, set.doc_->GetAllocator());
  if (!set.doc_->IsArray()) {
    return core::failure{std::string("$.expect: must be an array")};
  }
  for (rapidjson::SizeType i = 0; i < set.doc_->Size(); ++i) {
    auto e = parse_one((*set.doc_)[i], "$.expect[" + std::to_string(i) + "]");
    if (!e) {
      return core::failure{std::move(e.error())};
    }
    set.items_.push_back(std::move(*e));
  }
  return set;
}

void output_log::add_line(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) {
    line.remove_suffix(1);
  }
  if (line.empty()) {
    return;
  }
  auto doc = std::make_unique<rapidjson::Document>();
  if (parse_wire(line, *doc) || !doc->IsObject()) {
    ++bad_lines_;
    return;
  }
  const auto* op = find_member(*doc, "op");
  const auto* tick = find_member(*doc, "tick");
  if (op == nullptr || !op->IsString() || tick == nullptr || !as_int64(*tick)) {
    return;
  }
  const std::int64_t t = *as_int64(*tick) - base_;
  const std::string_view name = json::string_of(*op);
  if (name == "reply") {
    replies_.push_back({seq_++, t, doc.get(), {}});
  } else if (name == "frame") {
    const auto* events = find_member(*doc, "events");
    if (events == nullptr || !events->IsArray()) {
      ++bad_lines_;
      return;
    }
    for (const auto& ev : events->GetArray()) {
      if (!ev.IsObject()) {
        continue;
      }
      const auto* type = find_member(ev, "type");
      if (type == nullptr || !type->IsString()) {
        continue;
      }
      events_.push_back({seq_++, t, &ev, json::string_of(*type)});
    }
  } else {
    return;
  }
  docs_.push_back(std::move(doc));
}

void output_log::add_text(std::string_view text) {
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    add_line(text.substr(0, nl));
    if (nl == std::string_view::npos) {
      break;
    }
    text.remove_prefix(nl + 1);
  }
}

bool subset_match(const rapidjson::Value& expected, const rapidjson::Value& actual) {
  switch (expected.GetType()) {
  case rapidjson::kObjectType:
    if (!actual.IsObject()) {
      return false;
    }
    for (const auto& m : expected.GetObject()) {
      const auto* it = find_member(actual, json::string_of(m.name));
      if (it == nullptr || !subset_match(m.value, *it)) {
        return false;
      }
    }
    return true;
  case rapidjson::kArrayType:
    if (!actual.IsArray() || actual.Size() != expected.Size()) {
      return false;
    }
    for (rapidjson::SizeType i = 0; i < expected.Size(); ++i) {
      if (!subset_match(expected[i], actual[i])) {
        return false;
      }
    }
    return true;
  case rapidjson::kNumberType:
    return actual.IsNumber() &&
           std::fabs(expected.GetDouble() - actual.GetDouble()) <= number_tolerance;
  case rapidjson::kStringType:
    return actual.IsString() && json::string_of(expected) == json::string_of(actual);
  case rapidjson::kNullType:
    return actual.IsNull();
  case rapidjson::kTrueType:
    return actual.IsTrue();
  case rapidjson::kFalseType:
    return actual.IsFalse();
  }
  return false;
}

bool holds(const expectation& e, const output_log& log) {
  return !unmet_reason(e, log);
}

std::vector<std::string> unmet(const expectation_set& set, const output_log& log) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < set.items().size(); ++i) {
    const expectation& e = set.items()[i];
    if (auto why = unmet_reason(e, log)) {
      out.push_back("expect[" + std::to_string(i) + "] " + shorten(e.text) + ": " + *why);
    }
  }
  return out;
}

std::string describe_unmet(const std::vector<std::string>& descriptions) {
  std::string out;
  for (const auto& d : descriptions) {
    if (!out.empty()) {
      out += "\n  ";
    }
    out += d;
  }
  return out;
}

} // namespace emote::protocol
