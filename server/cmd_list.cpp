// `emote-sim list [--emotes DIR] [--config FILE]`: the registered emotes of an emote folder.
#include "server/commands.hpp"

#include "engine/content/loader.hpp"
#include "engine/core/identifier.hpp"
#include "engine/json/source_reader.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace emote::server {
namespace {

namespace fs = std::filesystem;

constexpr const char* list_usage =
    "usage: emote-sim list [--emotes DIR] [--config FILE]\n"
    "  Load an emote folder and print id, type, duration, standalone and two-player for every\n"
    "  registered emote. Defaults: the config file config/emote-sim.json when it exists (its\n"
    "  `emotes` folder, relative to the file, and its `disabled` list), else the folder "
    "`emotes`.\n";

std::string trim_java(std::string_view s) {
  std::size_t b = 0;
  std::size_t e = s.size();
  while (b < e && static_cast<unsigned char>(s[b]) <= 0x20) {
    ++b;
  }
  while (e > b && static_cast<unsigned char>(s[e - 1]) <= 0x20) {
    --e;
  }
  return std::string(s.substr(b, e - b));
}

// Reads the two config keys that matter for loading. Returns false (with a message) when the
// file exists but is not usable.
bool read_config(const fs::path& file, fs::path& emotes, std::vector<std::string>& disabled,
                 std::string& error) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    error = "cannot read " + file.string();
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  const auto parsed = json::parse_source(ss.str());
  if (!parsed.ok || !parsed.root.is_object()) {
    error = file.string() + ": " + (parsed.ok ? "must be an object" : parsed.error.message);
    return false;
  }
  emotes = file.parent_path() / "emotes";
  if (const auto* e = parsed.root.find("emotes"); e != nullptr && !e->is_null()) {
    if (!e->is_string()) {
      error = file.string() + ": $.emotes: must be a string";
      return false;
    }
    emotes = file.parent_path() / e->as_string();
  }
  if (const auto* d = parsed.root.find("disabled"); d != nullptr && !d->is_null()) {
    if (!d->is_array()) {
      error = file.string() + ": $.disabled: must be an array";
      return false;
    }
    for (const auto& v : d->as_array()) {
      if (!v.is_string()) {
        error = file.string() + ": $.disabled: must contain strings";
        return false;
      }
      auto id = trim_java(v.as_string());
      if (!core::is_blank(id) &&
          std::find(disabled.begin(), disabled.end(), id) == disabled.end()) {
        disabled.push_back(std::move(id));
      }
    }
  }
  return true;
}

} // namespace

int cmd_list(std::span<const std::string_view> args) {
  std::optional<fs::path> emotes;
  std::optional<fs::path> config;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto a = args[i];
    if (a == "--help" || a == "-h") {
      std::fputs(list_usage, stdout);
      return 0;
    }
    if ((a == "--emotes" || a == "--config") && i + 1 < args.size()) {
      (a == "--emotes" ? emotes : config) = fs::path(std::string(args[++i]));
      continue;
    }
    std::fprintf(stderr, "emote-sim list: unexpected argument '%.*s'\n%s",
                 static_cast<int>(a.size()), a.data(), list_usage);
    return 2;
  }
  content::load_options options;
  fs::path root = "emotes";
  const fs::path config_file = config.value_or("config/emote-sim.json");
  std::error_code ec;
  if (config || fs::exists(config_file, ec)) {
    std::string error;
    if (!read_config(config_file, root, options.disabled, error)) {
      std::fprintf(stderr, "emote-sim list: %s\n", error.c_str());
      return 2;
    }
  }
  if (emotes) {
    root = *emotes;
  }
  if (!fs::is_directory(root, ec)) {
    std::fprintf(stderr, "emote-sim list: %s is not a directory\n", root.string().c_str());
    return 2;
  }
  const auto catalog = content::load_directory(root, options);
  std::size_t width = 2;
  for (const auto& e : catalog->entries()) {
    width = std::max(width, e.id.size());
  }
  std::printf("%-*s  %-9s  %9s  %-10s  %s\n", static_cast<int>(width), "id", "type", "duration",
              "standalone", "two-player");
  for (const auto& e : catalog->entries()) {
    const auto type = content::name(e.kind);
    const auto duration = std::to_string(e.duration()) + "t";
    std::printf("%-*s  %-9.*s  %9s  %-10s  %s%s\n", static_cast<int>(width), e.id.c_str(),
                static_cast<int>(type.size()), type.data(), duration.c_str(),
                e.standalone() ? "yes" : "no", e.two_player() ? "yes" : "no",
                e.disabled ? "  (disabled)" : "");
  }
  const auto errors = catalog->error_count();
  if (errors > 0) {
    std::fprintf(stderr, "list: %zu files not loaded (see emote-sim check %s)\n", errors,
                 root.string().c_str());
  }
  return 0;
}

} // namespace emote::server
