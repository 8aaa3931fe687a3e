#include "server/qa/replay_setup.hpp"

#include "settings/config.hpp"

namespace emote::server {

core::result<replay_setup, replay_setup_error>
prepare_replay(const protocol::recording& rec, const std::optional<std::string>& emotes,
               bool allow_content_change, bool check_caches) {
  settings::config_loader loader;
  if (auto err = loader.add_json(rec.header.config_json, "the recording's header", "/")) {
    return core::failure{replay_setup_error{err->text()}};
  }
  auto cfg = loader.build();
  if (!cfg) {
    return core::failure{replay_setup_error{cfg.error().text()}};
  }
  cfg->engine.seed = rec.header.seed;
  if (check_caches) {
    cfg->engine.caches.mode = core::cache_mode::check;
  }
  const std::filesystem::path folder = emotes.value_or(cfg->emotes.string());
  auto now = protocol::read_content_manifest({folder});
  if (!now) {
    return core::failure{replay_setup_error{now.error()}};
  }
  replay_setup out;
  if (now->digest != rec.header.content_digest) {
    // protocol.md §8: name the files that differ, when the header lists them.
    const std::string differs =
        "the content in " + folder.string() + " differs from the recording's (recorded " +
        rec.header.content_digest + ", now " + now->digest + ")\n" +
        (rec.header.content_files
             ? protocol::describe_content_change(*rec.header.content_files, now->files)
             : "  (" + std::string(protocol::content_files_unlisted) + ")\n");
    if (!allow_content_change) {
      return core::failure{replay_setup_error{differs.substr(0, differs.size() - 1), true}};
    }
    out.warning = differs.substr(0, differs.size() - 1);
  }
  auto host = make_engine_host(folder, cfg->engine, cfg->render);
  if (!host) {
    return core::failure{replay_setup_error{host.error()}};
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
