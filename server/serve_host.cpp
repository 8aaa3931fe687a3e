#include "server/serve_host.hpp"

#include "server/content_loader.hpp"
#include "server/engine_host.hpp"

namespace emote::server {

namespace {

class engine_serve_host final : public serve_host {
public:
  explicit engine_serve_host(std::unique_ptr<engine_host> host) : host_(std::move(host)) {}
  protocol::sim_host& sim() override { return *host_; }
  const core::diagnostics& startup_diagnostics() const override {
    return host_->startup_diagnostics();
  }
  host_extras extras() override {
    host_extras x;
    x.shutdown = [h = host_.get()] { h->engine().shutdown(); };
    x.gauges = [h = host_.get()](metrics& m) {
      m.sessions = static_cast<std::int64_t>(h->engine().session_count());
      m.players = static_cast<std::int64_t>(h->engine().player_count());
      m.displays = h->engine().active_displays();
    };
    return x;
  }

private:
  std::unique_ptr<engine_host> host_;
};

} // namespace

core::result<std::unique_ptr<serve_host>, std::string>
make_serve_host(const std::filesystem::path& emotes, const sim::engine_config& config,
                const render::render_config& render) {
  std::shared_ptr<content_loader> loader = make_content_loader();
  auto host = engine_host::create(std::move(loader), {emotes}, config, render);
  if (!host) {
    return core::failure{std::string("cannot load emotes from '") + emotes.string() +
                         "': " + host.error()};
  }
  return std::unique_ptr<serve_host>(std::make_unique<engine_serve_host>(std::move(host).value()));
}

} // namespace emote::server
