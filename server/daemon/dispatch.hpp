#pragma once
// Executing decoded client requests against the simulation, the same way for the live server and
// for `emote-sim replay`: engine inputs are applied (P1 of the current tick) and answered, the
// query and content ops go through protocol::execute, and the players each connection joined are
// remembered so that they leave (stop reason DISCONNECTED) when it disconnects (protocol.md §2).

#include "engine/api/types.hpp"
#include "protocol/decode.hpp"
#include "protocol/runner.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace emote::server {

/// Which connection joined which online player (without `keep_on_disconnect`), in join order.
class player_owners {
public:
  /// Account for `in`, applied for connection `conn` with reply `r`.
  void observe(std::uint64_t conn, const api::input& in, const api::reply& r);
  /// The players `conn` owns, in join order; they are forgotten.
  std::vector<std::string> release(std::uint64_t conn);
  [[nodiscard]] std::size_t size() const noexcept { return owners_.size(); }
  /// The connection that owns `player`, if any.
  [[nodiscard]] std::optional<std::uint64_t> owner(std::string_view player) const noexcept {
    for (const auto& [p, c] : owners_) {
      if (p == player) {
        return c;
      }
    }
    return std::nullopt;
  }

private:
  std::vector<std::pair<std::string, std::uint64_t>> owners_; // (player, conn), join order
};

/// Execute `r` for connection `conn`, appending its reply line (when one is due) to `out`.
/// Writes nothing for the connection ops (hello, bye, subscribe, clock.step): `handled` is false.
protocol::outcome dispatch(protocol::sim_host& host, player_owners& owners, std::uint64_t conn,
                           const protocol::request& r, std::string& out);

/// `conn` is gone: the players it joined leave, in join order. Returns how many left.
std::size_t disconnect_players(protocol::sim_host& host, player_owners& owners, std::uint64_t conn);

} // namespace emote::server
