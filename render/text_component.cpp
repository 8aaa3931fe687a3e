// Text components (render.md §5.4): the mod's text JSON (26.1 dialect) as anonymous network NBT
// in a canonical subset that every output protocol decodes to what the mod's server sends.
//
// * A plain literal with no style and no siblings is a string tag; anything else a compound whose
//   keys come in this fixed order (whichever are present): `text` | `translate` `with` |
//   `keybind`, `extra`, `color`, `bold`, `italic`, `underlined`, `strikethrough`, `obfuscated`,
//   `font`, `shadow_color`. Elements of `extra` and `with` are always compounds (a string, number
//   or boolean becomes {text: its text}); an empty `extra` or `with` is left out.
// * JSON forms as vanilla reads them: a string, number or boolean is literal text (a number as
//   the project's JSON writer spells it); an array is its first element with the others appended
//   to its siblings; an object picks its content by `type`, else by the first content key present
//   in vanilla's order (text, translate, keybind, score, selector, nbt, object).
// * Dropped with a warning: click and hover events, insertion, translate's fallback, score /
//   selector / nbt / object contents (the component keeps its style and siblings, with empty
//   text), `shadow_color` before protocol 769, unknown keys, values of the wrong type, invalid
//   colours and fonts. A component without content is empty text, with a warning.
// * Bounds: components nest at most max_depth levels deep (so the NBT stays far below the
//   client's depth limit of 512), at most max_components components and max_text_bytes bytes of
//   strings (modified UTF-8) per text; what is beyond is cut, with a warning. Ill-formed UTF-8 is
//   replaced by U+FFFD, with a warning. Text that is not JSON is the empty text, with a warning.

#include "engine/core/identifier.hpp"
#include "engine/core/utf8.hpp"
#include "engine/json/wire_reader.hpp"
#include "engine/json/writer.hpp"
#include "render/content.hpp"
#include "render/content_detail.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

namespace emote::render {
namespace {

constexpr int max_depth = 128;
constexpr std::size_t max_components = 4096;
constexpr std::size_t max_text_bytes = 262144;

// Content types in vanilla's matching order: the `type` name and the key that selects it.
struct content_type {
  std::string_view type;
  std::string_view key;
};
constexpr std::array<content_type, 7> content_types = {{
    {"text", "text"},
    {"translatable", "translate"},
    {"keybind", "keybind"},
    {"score", "score"},
    {"selector", "selector"},
    {"nbt", "nbt"},
    {"object", "object"},
}};

// The keys that belong to each content type (same order as content_types).
bool content_key(std::size_t type, std::string_view k) noexcept {
  switch (type) {
  case 0:
    return k == "text";
  case 1:
    return k == "translate" || k == "with" || k == "fallback";
  case 2:
    return k == "keybind";
  case 3:
    return k == "score";
  case 4:
    return k == "selector" || k == "separator";
  case 5:
    return k == "nbt" || k == "source" || k == "block" || k == "entity" || k == "storage" ||
           k == "interpret" || k == "separator";
  case 6:
    return k == "object" || k == "sprite" || k == "atlas" || k == "player" || k == "hat";
  default:
    return false;
  }
}

constexpr std::array<std::string_view, 5> flag_keys = {"bold", "italic", "underlined",
                                                       "strikethrough", "obfuscated"};

constexpr std::array<std::string_view, 16> named_colors = {
    "black", "dark_blue",    "dark_green", "dark_aqua", "dark_red", "dark_purple",
    "gold",  "gray",         "dark_gray",  "blue",      "green",    "aqua",
    "red",   "light_purple", "yellow",     "white"};

std::string_view view(const rapidjson::Value& v) {
  return {v.GetString(), v.GetStringLength()};
}

// TextColor.parseColor: a named colour, or '#' and Integer.parseInt(rest, 16) within 0..0xFFFFFF;
// serialized back as the name or "#RRGGBB" (upper case).
std::optional<std::string> canonical_color(std::string_view s) {
  for (const auto n : named_colors) {
    if (s == n) {
      return std::string(s);
    }
  }
  if (s.size() < 2 || s.front() != '#') {
    return std::nullopt;
  }
  std::size_t i = 1;
  bool negative = false;
  if (s[i] == '+' || s[i] == '-') {
    negative = s[i] == '-';
    ++i;
  }
  if (i >= s.size()) {
    return std::nullopt;
  }
  std::int64_t value = 0;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    int d = 0;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else {
      return std::nullopt;
    }
    value = value * 16 + d;
    if (value > 0xFFFFFF) {
      return std::nullopt; // out of range (or beyond int32, which parseInt refuses)
    }
  }
  if (negative && value != 0) {
    return std::nullopt;
  }
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out = "#";
  for (int shift = 20; shift >= 0; shift -= 4) {
    out += hex[(value >> shift) & 0xF];
  }
  return out;
}

// Java's Number.intValue / byteValue of a JSON number as Gson reads it: the integer part, its low
// `bits` bits, two's complement.
std::int64_t java_low_bits(const rapidjson::Value& v, int bits) {
  const auto modulus = static_cast<double>(std::uint64_t{1} << bits);
  std::uint64_t u = 0;
  if (v.IsInt64()) {
    u = static_cast<std::uint64_t>(v.GetInt64());
  } else if (v.IsUint64()) {
    u = v.GetUint64();
  } else {
    const double r = std::fmod(std::trunc(v.GetDouble()), modulus);
    if (std::isnan(r)) {
      return 0;
    }
    u = static_cast<std::uint64_t>(static_cast<std::int64_t>(r));
  }
  const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
  u &= mask;
  const std::uint64_t sign = std::uint64_t{1} << (bits - 1);
  return (u & sign) != 0 ? static_cast<std::int64_t>(u) - static_cast<std::int64_t>(mask) - 1
                         : static_cast<std::int64_t>(u);
}

core::nbt_tag string_tag(std::string s) {
  core::nbt_tag t;
  t.type = core::nbt_type::string_tag;
  t.string = std::move(s);
  return t;
}

core::nbt_tag byte_tag(bool b) {
  core::nbt_tag t;
  t.type = core::nbt_type::byte_tag;
  t.integer = b ? 1 : 0;
  return t;
}

core::nbt_tag int_tag(std::int32_t i) {
  core::nbt_tag t;
  t.type = core::nbt_type::int_tag;
  t.integer = i;
  return t;
}

core::nbt_tag list_tag() {
  core::nbt_tag t;
  t.type = core::nbt_type::list_tag;
  return t;
}

class converter {
public:
  converter(const version_table& v, detail::warning_sink& warn) : v_(v), warn_(warn) {}

  void warning(std::string message) { warn_(std::move(message)); }

  /// The component `j` as a compound into `out`; false when it is cut (depth or budget).
  bool component(const rapidjson::Value& j, int depth, core::nbt_compound& out) {
    if (depth > max_depth) {
      warning("text nested deeper than " + std::to_string(max_depth) + " levels cut");
      return false;
    }
    if (j.IsArray()) {
      if (j.Empty()) {
        warning("empty text array (written as empty text)");
        return literal("", out);
      }
      if (!component(j[0], depth + 1, out)) {
        return false;
      }
      for (rapidjson::SizeType i = 1; i < j.Size(); ++i) {
        if (!sibling(j[i], depth + 1, extra_of(out))) {
          break;
        }
      }
      drop_empty_extra(out);
      return true;
    }
    if (j.IsObject()) {
      return object(j, depth, out);
    }
    if (j.IsString()) {
      return literal(view(j), out);
    }
    if (j.IsNumber() || j.IsBool()) {
      return literal(json::to_json(j), out);
    }
    warning("null text (written as empty text)");
    return literal("", out);
  }

private:
  // Counts one component against the budget; false when the budget is spent.
  bool admit() {
    if (components_ >= max_components || bytes_ >= max_text_bytes) {
      warning(components_ >= max_components
                  ? "text over " + std::to_string(max_components) + " components cut"
                  : "text over " + std::to_string(max_text_bytes) + " bytes cut");
      return false;
    }
    ++components_;
    return true;
  }

  // A string within the NBT string limit and the text's byte budget.
  std::string take(std::string_view s) {
    const std::size_t room = std::min(detail::max_nbt_string_bytes, max_text_bytes - bytes_);
    std::size_t n = detail::modified_utf8_length(s);
    if (n > room) {
      warning(room == detail::max_nbt_string_bytes
                  ? "text string over 65535 bytes cut"
                  : "text over " + std::to_string(max_text_bytes) + " bytes cut");
      s = s.substr(0, detail::modified_utf8_prefix(s, room));
      n = detail::modified_utf8_length(s);
    }
    bytes_ += n;
    return std::string(s);
  }

  bool literal(std::string_view s, core::nbt_compound& out) {
    if (!admit()) {
      return false;
    }
    out.entries.push_back({"text", string_tag(take(s))});
    return true;
  }

  // The `extra` list of a compound built here: found, or inserted right after the content keys.
  static std::vector<core::nbt_tag>& extra_of(core::nbt_compound& c) {
    if (auto* e = c.find("extra")) {
      return e->list;
    }
    std::size_t at = 0;
    while (at < c.entries.size() &&
           (c.entries[at].key == "text" || c.entries[at].key == "translate" ||
            c.entries[at].key == "with" || c.entries[at].key == "keybind")) {
      ++at;
    }
    c.entries.insert(c.entries.begin() + static_cast<std::ptrdiff_t>(at),
                     core::nbt_entry{"extra", list_tag()});
    return c.entries[at].value.list;
  }

  // An `extra` that ended up empty (its elements dropped) is left out, as vanilla writes none.
  static void drop_empty_extra(core::nbt_compound& c) {
    if (const auto* e = c.find("extra"); e != nullptr && e->list.empty()) {
      std::erase_if(c.entries, [](const core::nbt_entry& x) { return x.key == "extra"; });
    }
  }

  // An element of `extra` or `with`, always a compound; false when cut.
  bool sibling(const rapidjson::Value& j, int depth, std::vector<core::nbt_tag>& list) {
    if (j.IsNull()) {
      warning("null text element dropped");
      return true;
    }
    core::nbt_tag t;
    t.type = core::nbt_type::compound_tag;
    if (!component(j, depth, t.compound)) {
      return false;
    }
    list.push_back(std::move(t));
    return true;
  }

  std::optional<std::size_t> content_of(const rapidjson::Value& j) {
    if (const auto* type = json::find_member(j, "type")) {
      if (type->IsString()) {
        for (std::size_t i = 0; i < content_types.size(); ++i) {
          if (view(*type) == content_types[i].type) {
            return i;
          }
        }
      }
      warning("text type " +
              (type->IsString() ? detail::short_text(view(*type))
                                : detail::short_text(json::to_json(*type))) +
              " unknown");
    }
    for (std::size_t i = 0; i < content_types.size(); ++i) {
      if (json::find_member(j, content_types[i].key) != nullptr) {
        return i;
      }
    }
    return std::nullopt;
  }

  // A string-valued content key (text, translate, keybind): strings, numbers and booleans.
  std::string content_string(const rapidjson::Value* s, std::string_view key) {
    if (s == nullptr) {
      warning("text " + std::string(key) + " missing (written as empty)");
      return take("");
    }
    if (s->IsString()) {
      return take(view(*s));
    }
    if (s->IsNumber() || s->IsBool()) {
      return take(json::to_json(*s));
    }
    warning("text " + std::string(key) + " is not a string (written as empty)");
    return take("");
  }

  bool object(const rapidjson::Value& j, int depth, core::nbt_compound& out) {
    if (!admit()) {
      return false;
    }
    const auto type = content_of(j);
    // Content.
    if (type == 1) {
      out.entries.push_back({"translate", string_tag(content_string(
                                              json::find_member(j, "translate"), "translate"))});
      if (const auto* with = json::find_member(j, "with")) {
        if (!with->IsArray()) {
          warning("text with is not an array, dropped");
        } else if (!with->Empty()) {
          core::nbt_tag args = list_tag();
          for (const auto& a : with->GetArray()) {
            if (!sibling(a, depth + 1, args.list)) {
              break;
            }
          }
          if (!args.list.empty()) {
            out.entries.push_back({"with", std::move(args)});
          }
        }
      }
    } else if (type == 2) {
      out.entries.push_back(
          {"keybind", string_tag(content_string(json::find_member(j, "keybind"), "keybind"))});
    } else {
      if (!type) {
        warning("text without content (written as empty text)");
      } else if (*type > 2) {
        warning("text " + std::string(content_types[*type].type) + " content dropped");
      }
      out.entries.push_back(
          {"text", string_tag(type == 0 ? content_string(json::find_member(j, "text"), "text")
                                        : take(""))});
    }
    // Siblings.
    if (const auto* extra = json::find_member(j, "extra")) {
      if (!extra->IsArray()) {
        warning("text extra is not an array, dropped");
      } else {
        for (const auto& e : extra->GetArray()) {
          if (!sibling(e, depth + 1, extra_of(out))) {
            break;
          }
        }
        drop_empty_extra(out);
      }
    }
    // Style.
    if (const auto* color = json::find_member(j, "color")) {
      std::optional<std::string> c;
      if (color->IsString()) {
        c = canonical_color(view(*color));
      }
      if (c) {
        out.entries.push_back({"color", string_tag(take(*c))});
      } else {
        warning("text color " +
                (color->IsString() ? detail::short_text(view(*color))
                                   : detail::short_text(json::to_json(*color))) +
                " invalid, dropped");
      }
    }
    for (const auto key : flag_keys) {
      if (const auto* f = json::find_member(j, key)) {
        if (f->IsBool()) {
          out.entries.push_back({std::string(key), byte_tag(f->GetBool())});
        } else if (f->IsNumber()) {
          out.entries.push_back({std::string(key), byte_tag(java_low_bits(*f, 8) != 0)});
        } else {
          warning("text " + std::string(key) + " is not a boolean, dropped");
        }
      }
    }
    if (const auto* font = json::find_member(j, "font")) {
      std::optional<std::string> id;
      if (font->IsString()) {
        id = core::parse_resource_location(view(*font));
      }
      if (id) {
        out.entries.push_back({"font", string_tag(take(*id))});
      } else {
        warning("text font invalid, dropped");
      }
    }
    if (const auto* shadow = json::find_member(j, "shadow_color")) {
      if (!v_.text_shadow_color) {
        warning("text shadow_color dropped: protocol " + std::to_string(v_.protocol) + " has none");
      } else if (const auto argb = shadow_color(*shadow)) {
        out.entries.push_back({"shadow_color", int_tag(*argb)});
      } else {
        warning("text shadow_color invalid, dropped");
      }
    }
    // Everything else.
    for (const auto& m : j.GetObject()) {
      const auto k = view(m.name);
      if (k == "type" || k == "extra" || k == "color" || k == "font" || k == "shadow_color" ||
          std::find(flag_keys.begin(), flag_keys.end(), k) != flag_keys.end()) {
        continue;
      }
      if (type && content_key(*type, k) && (*type > 2 || k != "fallback")) {
        continue; // the content's own keys (an unsupported content was warned about whole)
      }
      warning("text key " + detail::short_text(k) + " dropped");
    }
    return true;
  }

  // ExtraCodecs.ARGB_COLOR_CODEC: an int, or [r, g, b, a] in 0..1 (ARGB.colorFromFloat:
  // floor(x * 255) per channel in binary32).
  static std::optional<std::int32_t> shadow_color(const rapidjson::Value& s) {
    if (s.IsNumber()) {
      return static_cast<std::int32_t>(java_low_bits(s, 32));
    }
    if (!s.IsArray() || s.Size() != 4) {
      return std::nullopt;
    }
    std::array<std::uint32_t, 4> c{};
    for (rapidjson::SizeType i = 0; i < 4; ++i) {
      if (!s[i].IsNumber()) {
        return std::nullopt;
      }
      const auto f = static_cast<float>(s[i].GetDouble());
      if (!(f >= 0.0F && f <= 1.0F)) {
        return std::nullopt;
      }
      c[i] = static_cast<std::uint32_t>(std::floor(f * 255.0F));
    }
    return static_cast<std::int32_t>(c[3] << 24 | c[0] << 16 | c[1] << 8 | c[2]);
  }

  const version_table& v_;
  detail::warning_sink& warn_;
  std::size_t components_ = 0;
  std::size_t bytes_ = 0;
};

void write_empty_text(byte_writer& w) {
  write_network_nbt(w, string_tag(""));
}

} // namespace

void write_text_component(byte_writer& w, const version_table& v, std::string_view json,
                          warnings& warn) {
  if (json.empty()) {
    write_empty_text(w);
    return;
  }
  std::string sanitized;
  if (core::sanitize_utf8(json, sanitized) != std::string::npos) {
    warn.emplace_back("text JSON has ill-formed UTF-8 (replaced by U+FFFD)");
    json = sanitized;
  }
  rapidjson::Document doc;
  if (const auto error = json::parse_wire(json, doc)) {
    warn.push_back("invalid text JSON (written as empty text): " + error->message);
    write_empty_text(w);
    return;
  }
  detail::warning_sink sink(warn);
  converter c(v, sink);
  core::nbt_tag root;
  root.type = core::nbt_type::compound_tag;
  if (!c.component(doc, 0, root.compound)) {
    write_empty_text(w);
    return;
  }
  // A plain literal with no style and no siblings is the string itself.
  if (root.compound.entries.size() == 1 && root.compound.entries.front().key == "text") {
    write_network_nbt(w, root.compound.entries.front().value);
    return;
  }
  write_network_nbt(w, root);
}

} // namespace emote::render
