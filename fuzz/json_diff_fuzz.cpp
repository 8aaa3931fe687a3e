// libFuzzer target: the same bytes through both JSON readers (engine/json).
// Invariants checked beyond "no crash, no leak, no UB":
//  * the line/column reader in its strict dialect and the checked fast reader agree on
//    accept/reject for every input;
//  * when both accept, the trees are equal: kinds, strings byte for byte, numbers in the same form
//    with the same bits (exact integers, -0.0, infinity for numbers beyond binary64), members in
//    the same order — except where the dialects differ by design: with a duplicate key the fast
//    reader keeps both members and the source reader the last value;
//  * the emote-file dialect accepts everything the strict one does, with the same tree;
//  * the one writer's text of an accepted tree is strict JSON and reads back (fast reader) to the
//    same tree when every number is finite.
#include "engine/json/source_reader.hpp"
#include "engine/json/wire_reader.hpp"
#include "engine/json/writer.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace {

using emote::json::json_kind;
using emote::json::json_value;
using emote::json::number_form;

void require(bool ok) {
  if (!ok) {
    std::abort();
  }
}

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// Whether the fast reader's value equals the source reader's. `exact_form`: numbers also in the
// same form (integer or real); otherwise the same binary64 value (the writer writes an integral
// real such as 10000.0 as "10000", which reads back as an integer).
bool equal(const json_value& s, const rapidjson::Value& w, bool exact_form = true) {
  switch (s.kind()) {
  case json_kind::null_value:
    return w.IsNull();
  case json_kind::boolean:
    return w.IsBool() && w.GetBool() == s.as_bool();
  case json_kind::number: {
    if (!w.IsNumber()) {
      return false;
    }
    const auto& n = s.number();
    if (!exact_form && n.form == number_form::real) {
      return same_bits(w.GetDouble(), n.value);
    }
    switch (n.form) {
    case number_form::signed_integer:
      return w.IsInt64() && !w.IsDouble() && w.GetInt64() == static_cast<std::int64_t>(n.bits) &&
             w.GetInt64() < 0;
    case number_form::unsigned_integer:
      return w.IsUint64() && !w.IsDouble() && w.GetUint64() == n.bits;
    case number_form::real:
      return w.IsDouble() && same_bits(w.GetDouble(), n.value);
    }
    return false;
  }
  case json_kind::string:
    return w.IsString() && std::string_view(w.GetString(), w.GetStringLength()) == s.as_string();
  case json_kind::array: {
    if (!w.IsArray() || w.Size() != s.as_array().size()) {
      return false;
    }
    for (rapidjson::SizeType i = 0; i < w.Size(); ++i) {
      if (!equal(s.as_array()[i], w[i], exact_form)) {
        return false;
      }
    }
    return true;
  }
  case json_kind::object: {
    if (!w.IsObject() || w.MemberCount() != s.as_object().size()) {
      return false;
    }
    auto m = w.MemberBegin();
    for (std::size_t i = 0; i < s.as_object().size(); ++i, ++m) {
      const auto& sm = s.as_object()[i];
      if (std::string_view(m->name.GetString(), m->name.GetStringLength()) != sm.key ||
          !equal(sm.value, m->value, exact_form)) {
        return false;
      }
    }
    return true;
  }
  }
  return false;
}

// Whether every number of the tree is finite (the writer writes the others as null).
bool all_finite(const json_value& v) {
  switch (v.kind()) {
  case json_kind::number:
    return std::isfinite(v.as_number());
  case json_kind::array:
    for (const auto& e : v.as_array()) {
      if (!all_finite(e)) {
        return false;
      }
    }
    return true;
  case json_kind::object:
    for (const auto& m : v.as_object()) {
      if (!all_finite(m.value)) {
        return false;
      }
    }
    return true;
  default:
    return true;
  }
}

bool has_duplicate_warning(const emote::json::json_parse_result& r) {
  for (const auto& w : r.warnings) {
    if (w.message.starts_with("duplicate key")) {
      return true;
    }
  }
  return false;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace json = emote::json;
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  const auto strict = json::parse_source(text, json::source_dialect::strict);
  rapidjson::Document doc;
  const auto err = json::parse_wire(text, doc);
  require(strict.ok == !err.has_value());
  if (!strict.ok) {
    return 0;
  }
  const bool dup = has_duplicate_warning(strict);
  // No other warning can occur in the strict dialect.
  require(strict.warnings.size() == (dup ? strict.warnings.size() : 0));
  if (!dup) {
    require(equal(strict.root, doc));
  }

  const auto lenient = json::parse_source(text, json::source_dialect::emote_file);
  require(lenient.ok);
  require(json::to_json(lenient.root) == json::to_json(strict.root));

  // The writer's text is strict JSON and reads back to the same tree (numbers beyond binary64
  // are written as null).
  const std::string written = json::to_json(strict.root);
  rapidjson::Document again;
  require(!json::parse_wire(written, again));
  if (all_finite(strict.root)) {
    require(equal(strict.root, again, false));
  }
  return 0;
}
