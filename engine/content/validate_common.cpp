#include "engine/content/fields.hpp"
#include "engine/content/validate.hpp"

#include "engine/core/identifier.hpp"
#include "engine/core/suggest.hpp"

namespace emote::content::detail {
namespace {

core::diagnostic from_notice(const json_notice& n, const std::string& file, core::severity sev) {
  core::diagnostic d;
  d.file = file;
  d.line = static_cast<int>(n.line);
  d.column = static_cast<int>(n.column);
  d.path = n.path;
  d.message = n.message;
  d.severity = sev;
  return d;
}

} // namespace

checked_file check_file(std::string_view bytes, const std::string& name,
                        const check_options& options) {
  checked_file out;
  auto parsed = json::parse_source(bytes);
  if (!parsed.ok) {
    out.error = from_notice(parsed.error, name, core::severity::error);
    return out;
  }
  for (const auto& w : parsed.warnings) {
    out.dialect_warnings.push_back(from_notice(w, name, core::severity::warning));
  }
  const json_value& root = parsed.root;
  checker c(name, options.errors);
  if (!root.is_object()) {
    c.fail(root, "must be an object");
  } else {
    std::string type;
    if (c.string(root, "type", type)) {
      if (type == "animation") {
        out.kind = emote_kind::animation;
        check_animation(root, c, out, options);
      } else if (type == "sequence") {
        out.kind = emote_kind::sequence;
        check_sequence(root, c, out);
      } else {
        auto s = c.at("type");
        std::string message = "unsupported emote file type: ";
        message += type;
        c.fail(*root.find("type"), message);
        constexpr std::string_view types[] = {"animation", "sequence"};
        c.suggest(core::did_you_mean(type, types));
      }
    }
  }
  auto errors = c.take_errors();
  if (!errors.empty()) {
    out.error = std::move(errors.front());
    out.further_errors.assign(std::make_move_iterator(errors.begin() + 1),
                              std::make_move_iterator(errors.end()));
    out.anim.reset();
    out.seq.reset();
    out.references.clear();
    out.id.clear();
  } else {
    out.warnings = c.take_warnings();
    if (out.anim) {
      out.anim->file = name;
    }
    if (out.seq) {
      out.seq->file = name;
    }
  }
  return out;
}

bool check_schema_version(const json_value& root, checker& c) {
  std::int32_t v = 0;
  if (!c.int32(root, "schema_version", v)) {
    return false;
  }
  if (v != 4) {
    auto s = c.at("schema_version");
    return c.fail(*root.find("schema_version"), "must equal 4");
  }
  return true;
}

bool check_id(const json_value& root, checker& c, std::string& id, location& loc) {
  auto s = c.at("id");
  const json_value* v = nullptr;
  if (!c.require(root, "id", v) || !c.identifier(*v, id)) {
    return false;
  }
  loc = location_of(*v);
  return true;
}

bool check_minecraft_version(const json_value& root, checker& c) {
  std::string ignored;
  return c.string(root, "target_minecraft_version", ignored, false);
}

bool check_metadata(const json_value& root, checker& c, metadata& out) {
  const json_value* m = nullptr;
  if (!c.object(root, "metadata", m)) {
    return false;
  }
  auto s = c.at("metadata");
  if (!c.each([&] { return c.nonblank_string(*m, "name", out.name); },
              [&] { return c.string(*m, "description", out.description); })) {
    return false;
  }
  for (const auto& member : m->as_object()) {
    if (member.key != "name" && member.key != "description") {
      out.extra.emplace_back(member.key, json::to_json(member.value));
    }
  }
  return true;
}

bool check_player_settings(const json_value& settings, checker& c, player_settings& out) {
  const json_value* p = nullptr;
  if (!c.object(settings, "player", p)) {
    return false;
  }
  auto s = c.at("player");
  const bool hidden = c.boolean(*p, "hidden", out.hidden);
  if (!hidden && !c.go_on()) {
    return false;
  }
  const json_value* sc = nullptr;
  if (!c.object(*p, "stop_conditions", sc)) {
    return false;
  }
  c.unknown_keys(*p, fields::player_settings);
  auto s2 = c.at("stop_conditions");
  auto& stop = out.stop_conditions;
  const auto distance = [&] {
    if (!c.finite(*sc, "movement_distance", stop.movement_distance)) {
      return false;
    }
    if (stop.movement_distance < 0) {
      auto s3 = c.at("movement_distance");
      return c.fail(*sc->find("movement_distance"), "must not be negative");
    }
    return true;
  };
  if (!c.each(
          distance, [&] { return c.boolean(*sc, "jump", stop.jump); },
          [&] { return c.boolean(*sc, "submerge", stop.submerge); },
          [&] { return c.boolean(*sc, "ride", stop.ride); },
          [&] { return c.boolean(*sc, "damage", stop.damage); },
          [&] { return c.boolean(*sc, "attack", stop.attack); },
          [&] { return c.boolean(*sc, "game_mode_change", stop.game_mode_change); })) {
    return false;
  }
  c.unknown_keys(*sc, fields::stop_conditions);
  return hidden;
}

} // namespace emote::content::detail
