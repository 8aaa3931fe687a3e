#include "server/daemon/dispatch.hpp"

#include "protocol/encode.hpp"

#include <algorithm>

namespace emote::server {

void player_owners::observe(std::uint64_t conn, const api::input& in, const api::reply& r) {
  if (!r.ok()) {
    return;
  }
  if (const auto* join = std::get_if<api::player_join>(&in)) {
    std::erase_if(owners_, [&](const auto& o) { return o.first == join->player; });
    if (!join->keep_on_disconnect) {
      owners_.emplace_back(join->player, conn);
    }
  } else if (const auto* leave = std::get_if<api::player_leave>(&in)) {
    std::erase_if(owners_, [&](const auto& o) { return o.first == leave->player; });
  }
}

std::vector<std::string> player_owners::release(std::uint64_t conn) {
  std::vector<std::string> out;
  for (const auto& [player, owner] : owners_) {
    if (owner == conn) {
      out.push_back(player);
    }
  }
  std::erase_if(owners_, [&](const auto& o) { return o.second == conn; });
  return out;
}

protocol::outcome dispatch(protocol::sim_host& host, player_owners& owners, std::uint64_t conn,
                           const protocol::request& r, std::string& out) {
  if (const auto* in = std::get_if<api::input>(&r.body)) {
    api::reply rep = host.apply(*in);
    owners.observe(conn, *in, rep);
    protocol::encode_input_reply(out, host, r, rep);
    return protocol::outcome{true, std::move(rep.err)};
  }
  return protocol::execute(host, r, out);
}

std::size_t disconnect_players(protocol::sim_host& host, player_owners& owners,
                               std::uint64_t conn) {
  const auto players = owners.release(conn);
  for (const auto& p : players) {
    (void)host.apply(api::player_leave{p});
  }
  return players.size();
}

} // namespace emote::server
