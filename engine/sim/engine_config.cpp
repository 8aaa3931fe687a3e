#include "engine/sim/engine.hpp"

namespace emote::sim {

std::vector<access_rule> engine_config::default_permissions() {
  return rules::default_access_rules();
}

std::optional<std::string> validate(const engine_config& config) {
  auto policy = rules::access_policy::compile(config.disabled, config.permissions);
  if (!policy) {
    return policy.error().path + ": " + policy.error().message;
  }
  return std::nullopt;
}

} // namespace emote::sim
