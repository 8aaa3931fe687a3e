// `emote-sim list [--config FILE] [--emotes DIR] [--disabled ID]...`: the registered emotes of
// the configured emote folder, loaded as serve loads it.
#include "server/cli/cli_args.hpp"
#include "server/cli/commands.hpp"
#include "server/host/content_loader.hpp"

#include "engine/content/model.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

namespace emote::server {
namespace {

// The configuration keys list reads: the content and what is disabled.
constexpr std::string_view list_config_keys[] = {"emotes", "disabled"};

} // namespace

const cli_command& list_cli() {
  static const cli_command command = [] {
    cli_command c;
    c.name = "list";
    c.summary = "id, type, duration, standalone, two-player";
    c.max_operands = 0;
    c.description =
        "Loads the emote folder of the configuration, as serve does (the file, EMOTE_SIM_*\n"
        "variables, then these options), and prints id, type, duration, standalone and\n"
        "two-player for every registered emote; `disabled` ones are marked.\n";
    c.options.push_back(config_file_option());
    for (auto& o : config_cli_options(list_config_keys)) {
      c.options.push_back(o);
    }
    return c;
  }();
  return command;
}

int cmd_list(std::span<const std::string_view> argv) {
  const cli_command& command = list_cli();
  auto parsed = parse_command_line(command, argv);
  if (!parsed) {
    return parsed.error();
  }
  auto cfg = load_config(*parsed, command.options);
  if (!cfg) {
    std::fprintf(stderr, "emote-sim list: %s\n", cfg.error().c_str());
    return 2;
  }
  auto loaded = make_content_loader()->load({cfg->emotes}, cfg->engine.disabled, {});
  if (!loaded) {
    std::fprintf(stderr, "emote-sim list: %s\n", loaded.error().c_str());
    return 2;
  }
  const content::catalog& catalog = *loaded->catalog;
  std::size_t width = 2;
  for (const auto& e : catalog.entries()) {
    width = std::max(width, e.id.size());
  }
  std::printf("%-*s  %-9s  %9s  %-10s  %s\n", static_cast<int>(width), "id", "type", "duration",
              "standalone", "two-player");
  for (const auto& e : catalog.entries()) {
    const auto type = content::name(e.kind);
    const auto duration = std::to_string(e.duration()) + "t";
    std::printf("%-*s  %-9.*s  %9s  %-10s  %s%s\n", static_cast<int>(width), e.id.c_str(),
                static_cast<int>(type.size()), type.data(), duration.c_str(),
                e.standalone() ? "yes" : "no", e.two_player() ? "yes" : "no",
                e.disabled ? "  (disabled)" : "");
  }
  const auto errors = catalog.error_count();
  if (errors > 0) {
    std::fprintf(stderr, "list: %zu files not loaded (see emote-sim check %s)\n", errors,
                 cfg->emotes.string().c_str());
  }
  return 0;
}

} // namespace emote::server
