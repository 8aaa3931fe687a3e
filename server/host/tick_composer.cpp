#include "server/host/tick_composer.hpp"

#include "engine/world/player.hpp"

namespace emote::server {

api::frame& tick_composer::engine_step(sim::engine& engine) {
  api::frame& f = engine.step();
  frame_ = &f;
  return f;
}

const protocol::tick_output& tick_composer::render_step(const sim::engine& engine,
                                                        bool want_packets) {
  const api::frame& f = *frame_;
  engine.players(players_);
  renderer_.step(f, players_, packets_, want_packets);
  names_.clear();
  if (!packets_.entries.empty()) {
    name_players();
  }
  out_.frame = &f;
  out_.packets = protocol::frame_packets{&packets_, names_};
  out_.warnings = packets_.warnings;
  return out_;
}

protocol::frame_packets tick_composer::snapshot() {
  renderer_.snapshot(snapshot_);
  if (names_.size() != players_.size()) {
    name_players(); // step() names the players only when it made entries
  }
  return protocol::frame_packets{&snapshot_, names_};
}

void tick_composer::name_players() {
  names_.clear();
  names_.reserve(players_.size());
  for (const world::player_state* p : players_) {
    names_.push_back(p->id);
  }
}

} // namespace emote::server
