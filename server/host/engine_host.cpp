#include "server/host/engine_host.hpp"

#include "engine/content/model.hpp"
#include "engine/world/player.hpp"

#include <algorithm>
#include <variant>

namespace emote::server {

namespace {

/// The id of the entry `added` holds and `base` lacks (emote.register adds exactly one).
std::string added_id(const content::catalog& base, const content::catalog& added) {
  for (const content::catalog_entry& e : added.entries()) {
    if (base.find(e.id) == nullptr) {
      return e.id;
    }
  }
  return {};
}

} // namespace

engine_host::engine_host(std::shared_ptr<content_loader> loader,
                         std::vector<std::filesystem::path> roots, sim::engine_config config,
                         render::render_config render, loaded_content content)
    : loader_(std::move(loader)), roots_(std::move(roots)), config_(std::move(config)),
      engine_(std::make_unique<sim::engine>(std::move(content.catalog), config_)),
      startup_diagnostics_(std::move(content.diagnostics)), ticks_([&] {
        render.content_cache = config_.caches.mode; // one option for every cache
        return render;
      }()) {}

core::result<std::unique_ptr<engine_host>, std::string>
engine_host::create(std::shared_ptr<content_loader> loader,
                    std::vector<std::filesystem::path> roots, sim::engine_config config,
                    render::render_config render) {
  auto content = loader->load(roots, config.disabled, {});
  if (!content) {
    return core::failure{std::move(content.error())};
  }
  return std::unique_ptr<engine_host>(new engine_host(
      std::move(loader), std::move(roots), std::move(config), render, std::move(*content)));
}

api::tick_number engine_host::tick() const {
  return engine_->tick();
}

api::reply engine_host::apply(const api::input& in) {
  api::reply r = engine_->apply(in);
  if (const auto* u = std::get_if<api::emote_unregister>(&in); u != nullptr && r.ok()) {
    // An unregistered runtime document is gone for good: a later reload must not bring it back.
    for (std::size_t i = registered_ids_.size(); i-- > 0;) {
      if (registered_ids_[i] == u->emote) {
        registered_ids_.erase(registered_ids_.begin() + static_cast<std::ptrdiff_t>(i));
        registered_.erase(registered_.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
  }
  return r;
}

const protocol::tick_output& engine_host::step() {
  return ticks_.step(*engine_, want_packets_);
}

std::vector<render::display_info> engine_host::displays() const {
  return ticks_.renderer().displays();
}

std::int64_t engine_host::render_resync(const protocol::render_resync_request& r) {
  std::vector<const world::player_state*> players;
  engine_->players(players);
  std::int64_t viewers = 0;
  for (const world::player_state* p : players) {
    const bool listed =
        r.all || std::find(r.players.begin(), r.players.end(), p->id) != r.players.end();
    viewers += listed && p->protocol ? 1 : 0;
  }
  if (r.all) {
    ticks_.renderer().resync_all();
  } else {
    ticks_.renderer().resync(r.players);
  }
  return viewers;
}

bool engine_host::describe_state(core::state_sink& s) const {
  engine_->describe_state(s);
  return true;
}

std::optional<std::uint64_t> engine_host::state_digest() const {
  return engine_->state_digest();
}

protocol::frame_packets engine_host::packet_snapshot() {
  return ticks_.snapshot();
}

render::render_counts engine_host::render_counts() const {
  return ticks_.renderer().counts();
}

protocol::sim_host::gauges engine_host::gauge() const {
  gauges g;
  g.sessions = static_cast<std::int64_t>(engine_->session_count());
  g.players = static_cast<std::int64_t>(engine_->player_count());
  g.displays = engine_->active_displays();
  return g;
}

sim::state_snapshot engine_host::state(const sim::state_query& query) const {
  return engine_->state(query);
}

std::vector<protocol::emote_summary> engine_host::list() const {
  return loader_->list(engine_->catalog());
}

std::optional<protocol::emote_details> engine_host::info(std::string_view id) const {
  return loader_->info(engine_->catalog(), id);
}

std::int64_t engine_host::emote_count() const {
  return loader_->size(engine_->catalog());
}

protocol::sim_host::reload_outcome engine_host::reload(const protocol::emote_reload_request& r) {
  reload_outcome out;
  auto content = loader_->load(roots_, config_.disabled, registered_);
  if (!content) {
    // An unreadable content folder keeps the running catalog (protocol.md §4 emote.reload).
    out.error = api::error{
        api::error_code::content_unavailable, "reload failed: " + content.error(), {}, {}};
    return out;
  }
  out.loaded = content->loaded;
  out.skipped = std::move(content->diagnostics);
  const std::int64_t running = emote_count();
  if (out.loaded == 0 && running > 0 && !r.allow_empty) {
    // protocol.md §4 emote.reload: an emptied or broken folder does not wipe the catalog.
    const std::int64_t files = skipped_count(out.skipped);
    out.error = api::error{api::error_code::reload_empty,
                           "the reload would leave 0 emotes (" + std::to_string(running) +
                               " loaded, " + std::to_string(files) +
                               " files skipped); the catalog is kept (send \"allow_empty\": true "
                               "to empty it)",
                           {},
                           {}};
    return out;
  }
  engine_->reload(std::move(content->catalog));
  return out;
}

core::result<std::string, api::error> engine_host::register_emote(std::string_view document_json) {
  auto added = loader_->add(engine_->catalog(), document_json, config_.disabled);
  if (!added) {
    for (const auto& d : added.error()) {
      if (d.severity == core::severity::error) {
        const std::string inner = d.path.size() > 1 ? d.path.substr(1) : std::string();
        return core::failure{
            api::error{api::error_code::bad_request, d.message, "$.document" + inner, {}}};
      }
    }
    return core::failure{api::error{
        api::error_code::bad_request, "the document was not accepted", "$.document", {}}};
  }
  // protocol.md §4: the registration answers {"emote": ID}, keeps running playbacks (unlike
  // reload) and survives later reloads.
  std::string id = added_id(engine_->catalog(), *added->catalog);
  registered_.emplace_back(document_json);
  registered_ids_.push_back(id);
  engine_->replace_catalog(std::move(added->catalog));
  return id;
}

core::result<std::unique_ptr<engine_host>, std::string>
make_engine_host(const std::filesystem::path& emotes, const sim::engine_config& config,
                 const render::render_config& render) {
  auto host = engine_host::create(make_content_loader(), {emotes}, config, render);
  if (!host) {
    return core::failure{std::string("cannot load emotes from '") + emotes.string() +
                         "': " + host.error()};
  }
  return std::move(host).value();
}

protocol::host_factory
scenario_host_factory(const std::vector<std::filesystem::path>& default_emotes, bool check_caches) {
  return [default_emotes, check_caches](const protocol::scenario& s)
             -> core::result<std::unique_ptr<protocol::sim_host>, std::string> {
    std::shared_ptr<content_loader> loader = make_content_loader();
    sim::engine_config config = s.engine;
    if (check_caches) {
      config.caches.mode = core::cache_mode::check;
    }
    auto host = engine_host::create(loader, s.emotes.empty() ? default_emotes : s.emotes, config);
    if (!host) {
      return core::failure{"cannot load content: " + host.error()};
    }
    return std::unique_ptr<protocol::sim_host>(std::move(*host));
  };
}

} // namespace emote::server
