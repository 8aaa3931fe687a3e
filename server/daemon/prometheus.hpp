#pragma once
// The Prometheus text format's pieces shared by the server's metrics (server/daemon/metrics.cpp)
// and the gates' (server/daemon/gate_service.cpp).

#include <string>
#include <string_view>

namespace emote::server {

/// `# HELP name help` and `# TYPE name type` lines.
void prometheus_header(std::string& out, std::string_view name, std::string_view help,
                       std::string_view type);

} // namespace emote::server
