#include "gate/requests.hpp"

#include "engine/core/identifier.hpp"
#include "engine/json/writer.hpp"

namespace emote::gate {
namespace {

using json::json_out;

void key(json_out& o, std::string_view k) {
  o.ch(',');
  o.str(k);
  o.ch(':');
}

void fields(json_out& o, const api::player_fields& f) {
  if (f.dimension) {
    key(o, "dimension");
    o.str(*f.dimension);
  }
  if (f.position) {
    key(o, "position");
    o.ch('[');
    o.f64(f.position->x);
    o.ch(',');
    o.f64(f.position->y);
    o.ch(',');
    o.f64(f.position->z);
    o.ch(']');
  }
  if (f.yaw) {
    key(o, "yaw");
    o.f32(*f.yaw);
  }
  if (f.pitch) {
    key(o, "pitch");
    o.f32(*f.pitch);
  }
  if (f.alive) {
    key(o, "alive");
    o.boolean(*f.alive);
  }
  if (f.game_mode) {
    key(o, "game_mode");
    o.str(core::name(*f.game_mode));
  }
  if (f.vehicle) {
    key(o, "vehicle");
    if (*f.vehicle) {
      o.str(**f.vehicle);
    } else {
      o.null();
    }
  }
  if (f.on_ground) {
    key(o, "on_ground");
    o.boolean(*f.on_ground);
  }
  if (f.sneaking) {
    key(o, "sneaking");
    o.boolean(*f.sneaking);
  }
  if (f.sprinting) {
    key(o, "sprinting");
    o.boolean(*f.sprinting);
  }
  const api::viewer_fields& v = f.viewer;
  if (v.protocol) {
    key(o, "protocol");
    if (*v.protocol) {
      o.i64(**v.protocol);
    } else {
      o.null();
    }
  }
  if (v.entity_id) {
    key(o, "entity_id");
    if (*v.entity_id) {
      o.i64(**v.entity_id);
    } else {
      o.null();
    }
  }
  if (v.view_distance) {
    key(o, "view_distance");
    o.i64(*v.view_distance);
  }
  if (v.name) {
    key(o, "name");
    o.str(*v.name);
  }
  if (v.skin_textures) {
    key(o, "skin_textures");
    o.ch('{');
    bool first = true;
    for (const auto& [part, t] : *v.skin_textures) {
      if (!first) {
        o.ch(',');
      }
      first = false;
      o.str(part);
      o.raw(":{\"value\":");
      o.str(t.value);
      if (t.signature) {
        o.raw(",\"signature\":");
        o.str(*t.signature);
      }
      o.ch('}');
    }
    o.ch('}');
  }
  if (v.render_reset) {
    key(o, "render_reset");
    o.boolean(true);
  }
}

void head(json_out& o, std::string_view op, std::string_view id, std::string_view player) {
  o.raw("{\"op\":");
  o.str(op);
  if (!id.empty()) {
    key(o, "id");
    o.str(id);
  }
  key(o, "player");
  o.str(player);
}

} // namespace

std::string request_line(const api::input& in, std::string_view id) {
  std::string line;
  json_out o(line);
  if (const auto* j = std::get_if<api::player_join>(&in)) {
    head(o, "player.join", id, j->player);
    if (j->uuid) {
      key(o, "uuid");
      o.str(core::uuid_text(*j->uuid));
    }
    fields(o, j->fields);
  } else if (const auto* u = std::get_if<api::player_update>(&in)) {
    head(o, "player.update", id, u->player);
    fields(o, u->fields);
  } else if (const auto* e = std::get_if<api::player_event>(&in)) {
    head(o, "player.event", id, e->player);
    key(o, "event");
    o.str(api::name(e->kind));
    if (e->kind == api::player_event_kind::damage) {
      key(o, "amount");
      o.f64(e->amount);
    }
  } else if (const auto* l = std::get_if<api::player_leave>(&in)) {
    head(o, "player.leave", id, l->player);
  } else if (const auto* p = std::get_if<api::emote_play>(&in)) {
    head(o, "emote.play", id, p->player);
    key(o, "emote");
    o.str(p->emote);
    key(o, "source");
    o.str(api::name(p->source));
  } else if (const auto* s = std::get_if<api::emote_stop>(&in)) {
    head(o, "emote.stop", id, s->player);
  } else {
    return {};
  }
  o.ch('}');
  return line;
}

} // namespace emote::gate
