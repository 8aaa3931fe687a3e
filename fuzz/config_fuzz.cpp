// libFuzzer target: the server configuration loader (protocol.md §10) over arbitrary file text,
// including access rules with patterns and time strings. Any input must give a config or a
// config_error naming a key, never a crash or a hang.
#include "protocol/config.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  emote::protocol::config_loader loader;
  if (loader.add_json(text, "fuzz.json", "/base")) {
    return 0;
  }
  auto cfg = loader.build();
  if (cfg) {
    // The effective configuration must read back.
    emote::protocol::config_loader again;
    if (!again.add_json(cfg->effective_json, "again", "/")) {
      (void)again.build();
    }
  }
  return 0;
}
