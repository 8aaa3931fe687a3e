#include "server/engine_host.hpp"

namespace emote::server {

engine_host::engine_host(std::shared_ptr<content_loader> loader,
                         std::vector<std::filesystem::path> roots, sim::engine_config config,
                         loaded_content content)
    : loader_(std::move(loader)), roots_(std::move(roots)), config_(std::move(config)),
      engine_(std::make_unique<sim::engine>(std::move(content.catalog), config_)) {}

core::result<std::unique_ptr<engine_host>, std::string>
engine_host::create(std::shared_ptr<content_loader> loader,
                    std::vector<std::filesystem::path> roots, sim::engine_config config) {
  auto content = loader->load(roots, config.disabled, {});
  if (!content) {
    return core::failure{std::move(content.error())};
  }
  return std::unique_ptr<engine_host>(
      new engine_host(std::move(loader), std::move(roots), std::move(config), std::move(*content)));
}

api::tick_number engine_host::tick() const {
  return engine_->tick();
}

api::reply engine_host::apply(const api::input& in) {
  return engine_->apply(in);
}

const api::frame& engine_host::step() {
  return engine_->step();
}

sim::state_snapshot engine_host::state(const std::optional<std::string>& player) const {
  return engine_->state(player);
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

protocol::sim_host::reload_outcome engine_host::reload() {
  reload_outcome out;
  auto content = loader_->load(roots_, config_.disabled, registered_);
  if (!content) {
    // An unreadable content folder keeps the running catalog (protocol.md §10 reload rule).
    out.error = api::error{api::error_code::internal, "reload failed: " + content.error(), {}, {}};
    return out;
  }
  out.loaded = content->loaded;
  out.skipped = std::move(content->diagnostics);
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
  // The document is valid. The Engine can swap catalogs only through reload(), which stops every
  // playback with RELOAD; registering must not, so it waits for an Engine entry point that keeps
  // playbacks running.
  return core::failure{
      api::error{api::error_code::internal,
                 "emote.register needs an Engine catalog swap that keeps running playbacks",
                 {},
                 {}}};
}

} // namespace emote::server
