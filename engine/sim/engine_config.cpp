#include "engine/sim/engine.hpp"

namespace emote::sim {

std::vector<access_rule> engine_config::default_permissions() {
  access_rule rule;
  rule.permission = "emote.default";
  rule.emotes = {"*"};
  rule.idle = access_rule::idle_settings{3600, {"emote:sit"}, {}};
  return {rule};
}

} // namespace emote::sim
