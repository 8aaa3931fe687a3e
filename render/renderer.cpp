#include "render/renderer.hpp"

#include "render/render_parts.hpp"

#include <algorithm>

namespace emote::render {

render_parts::render_parts(const render_config& c, std::span<const version_table* const> tables)
    : cfg(c), vers(tables), defaults(tables.empty() ? nullptr : tables.back()), viewers(c, tables),
      contents(tables, c.content_cache), hidden(tables), out(tables) {}

/// The renderer is its parts; step() runs the passes over them (render_parts.hpp).
struct renderer::impl : render_parts {
  using render_parts::render_parts;

  void step(const api::frame& f, std::span<const world::player_state* const> ps, render_output& o,
            bool build_packets) {
    o.clear();
    building = build_packets;
    tick = f.tick;
    out.begin(o);
    if (vers.empty()) {
      out.end();
      return;
    }
    viewers.reconcile(ps, tick, dims, displays.trackers(), out, counts);
    out.set_only_version(viewers.only_version()); // begin() started the groupings over
    hidden.forget_departed(viewers);
    displays.learn_sessions(f);
    event_pass(*this, f);
    tracking_pass(*this);
    displays.end_sessions(f);
    if (!building) {
      // What changes state (spawns, destroys, arrivals; rare) was built as usual, so the
      // warnings of its encodes are the same; none of it is kept.
      o.entries.clear();
      o.recipients.clear();
      o.data.clear();
    }
    out.end();
  }
};

renderer::renderer(render_config config) : renderer(config, versions()) {}
renderer::renderer(render_config config, std::span<const version_table* const> tables)
    : impl_(std::make_unique<impl>(config, tables)) {}
renderer::~renderer() = default;

void renderer::step(const api::frame& f, std::span<const world::player_state* const> players,
                    render_output& out, bool build_packets) {
  impl_->step(f, players, out, build_packets);
}

void renderer::resync(std::span<const std::string> players) {
  for (const std::string& p : players) {
    impl_->viewers.request_resync(p);
  }
}

void renderer::resync_all() {
  impl_->viewers.request_resync_all();
}

void renderer::snapshot(render_output& out) {
  render::snapshot(*impl_, out);
}

render_counts renderer::counts() const noexcept {
  return impl_->counts;
}

std::vector<display_info> renderer::displays() const {
  std::vector<display_info> list;
  const std::vector<const display*> live = impl_->displays.by_handle();
  list.reserve(live.size());
  for (const display* d : live) {
    display_info i;
    i.handle = d->handle;
    i.session = d->session;
    i.node = d->node;
    i.kind = d->kind;
    i.item = d->item;
    i.item_display = d->item_display;
    i.block = d->block;
    i.text_json = d->text_json;
    i.dimension = d->dimension;
    i.position = d->pos;
    i.yaw = d->yaw;
    i.transform = d->transform;
    i.visible = d->visible;
    list.push_back(std::move(i));
  }
  return list;
}

const render_config& renderer::config() const noexcept {
  return impl_->cfg;
}

} // namespace emote::render
