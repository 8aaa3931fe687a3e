// libFuzzer target: the server configuration loader (protocol.md §10) over arbitrary file text,
// including access rules with RE2 patterns and time strings, and over arbitrary environment /
// command-line text for every key of the table. Any input must give a config or a config_error,
// never a crash or a hang; a built configuration's effective JSON must read back to itself.
#include "settings/config.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {

void check_round_trip(const emote::settings::server_config& cfg) {
  emote::settings::config_loader again;
  if (again.add_json(cfg.effective_json, "again", "/")) {
    std::abort(); // the effective configuration is always readable
  }
  auto rebuilt = again.build();
  if (!rebuilt || rebuilt->effective_json != cfg.effective_json) {
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  // The whole input as a file.
  {
    emote::settings::config_loader loader;
    if (!loader.add_json(text, "fuzz.json", "/base")) {
      if (auto cfg = loader.build()) {
        check_round_trip(*cfg);
      }
    }
  }

  // The first byte picks a key, the rest is its environment / command-line text.
  if (size >= 1) {
    const auto keys = emote::settings::config_keys();
    const auto& key = keys[data[0] % keys.size()];
    emote::settings::config_loader loader;
    if (!loader.set(key.name, text.substr(1), std::string(key.env))) {
      if (auto cfg = loader.build()) {
        check_round_trip(*cfg);
      }
    }
  }
  return 0;
}
