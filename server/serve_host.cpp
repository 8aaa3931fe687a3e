#include "server/serve_host.hpp"

#include "server/content_loader.hpp"
#include "server/engine_host.hpp"

#include "protocol/config.hpp"

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

core::result<replay_host, replay_host_error>
make_replay_host(const protocol::recording& rec, const std::optional<std::string>& emotes,
                 bool allow_content_change, bool check_caches) {
  protocol::config_loader loader;
  if (auto err = loader.add_json(rec.header.config_json, "the recording's header", "/")) {
    return core::failure{replay_host_error{err->text()}};
  }
  auto cfg = loader.build();
  if (!cfg) {
    return core::failure{replay_host_error{cfg.error().text()}};
  }
  cfg->engine.seed = rec.header.seed;
  if (check_caches) {
    cfg->engine.caches.mode = core::cache_mode::check;
  }
  const std::filesystem::path folder = emotes.value_or(cfg->emotes.string());
  auto now = protocol::read_content_manifest({folder});
  if (!now) {
    return core::failure{replay_host_error{now.error()}};
  }
  replay_host out;
  if (now->digest != rec.header.content_digest) {
    // protocol.md §8: name the files that differ, when the header lists them.
    const std::string differs =
        "the content in " + folder.string() + " differs from the recording's (recorded " +
        rec.header.content_digest + ", now " + now->digest + ")\n" +
        (rec.header.content_files
             ? protocol::describe_content_change(*rec.header.content_files, now->files)
             : "  (" + std::string(protocol::content_files_unlisted) + ")\n");
    if (!allow_content_change) {
      return core::failure{replay_host_error{differs.substr(0, differs.size() - 1), true}};
    }
    out.warning = differs.substr(0, differs.size() - 1);
  }
  auto host = make_serve_host(folder, cfg->engine, cfg->render);
  if (!host) {
    return core::failure{replay_host_error{host.error()}};
  }
  out.host = std::move(host).value();
  out.folder = folder;
  return out;
}

std::string scenario_content_warning(const protocol::recording& rec,
                                     const std::vector<std::string>& emotes,
                                     const std::filesystem::path& scenario_dir) {
  if (rec.header.content_digest.empty() || emotes.empty()) {
    return {};
  }
  std::vector<std::filesystem::path> roots;
  std::string shown;
  for (const auto& e : emotes) {
    const std::filesystem::path p(e);
    roots.push_back(p.is_absolute() ? p : (scenario_dir / p).lexically_normal());
    shown += (shown.empty() ? "" : ", ") + e;
    if (!p.is_absolute()) {
      shown += " (" + roots.back().string() + ")";
    }
  }
  auto now = protocol::read_content_manifest(roots);
  if (!now) {
    return "warning: the scenario's emotes " + shown + " cannot be read: " + now.error() +
           "\n  (--emotes is relative to the folder the scenario is written to)\n";
  }
  if (now->digest == rec.header.content_digest) {
    return {};
  }
  return "warning: the scenario's emotes " + shown +
         " do not hold the recording's content files, so the scenario may not run as recorded:\n" +
         (rec.header.content_files
              ? protocol::describe_content_change(*rec.header.content_files, now->files)
              : "  (" + std::string(protocol::content_files_unlisted) + ")\n") +
         "  (--emotes is relative to the folder the scenario is written to)\n";
}

} // namespace emote::server
