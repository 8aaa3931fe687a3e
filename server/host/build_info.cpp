#include "server/host/build_info.hpp"

#include "emote_sim_build_id.hpp"

namespace emote::server {

std::string_view build_id() noexcept {
  return EMOTE_SIM_BUILD_ID;
}

} // namespace emote::server
