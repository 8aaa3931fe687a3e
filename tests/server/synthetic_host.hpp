#pragma once
// A test double at the engine boundary (protocol::sim_host) for the server's transport tests:
// players join and leave, `test:wave` plays for `wave_ticks` ticks with `wave_displays` display
// entities whose transforms change every tick (so every tick has a frame of a chosen size), and
// shutdown stops every playback with SERVER_STOPPING. It is not the Engine and decides nothing
// the specifications define; tests of engine behaviour run against the real Engine and are
// marked "[engine]".

#include "engine/api/event.hpp"
#include "protocol/runner.hpp"

#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace emote::server::testing {

class synthetic_host final : public protocol::sim_host {
public:
  int wave_ticks = 40;
  int wave_displays = 4;
  std::int64_t reloads = 0;
  /// Time each step() takes (tests that need a long clock.step to still be running).
  std::chrono::microseconds step_delay{0};

  [[nodiscard]] api::tick_number tick() const override { return tick_; }

  api::reply apply(const api::input& in) override {
    api::reply r;
    r.tick = tick_;
    auto fail = [&](api::error_code c, std::string msg, std::string path = {}) {
      r.err = api::error{c, std::move(msg), std::move(path), std::nullopt};
      return r;
    };
    if (const auto* j = std::get_if<api::player_join>(&in)) {
      if (players_.contains(j->player)) {
        return fail(api::error_code::player_exists, "Player is already online.", "$.player");
      }
      players_[j->player] = player{j->fields.dimension.value_or("minecraft:overworld"), 0};
      return r;
    }
    if (const auto* l = std::get_if<api::player_leave>(&in)) {
      auto it = players_.find(l->player);
      if (it == players_.end()) {
        return fail(api::error_code::unknown_player, "Player is not online.", "$.player");
      }
      stop_session(l->player, api::stop_reason::disconnected);
      players_.erase(it);
      return r;
    }
    if (const auto* p = std::get_if<api::emote_play>(&in)) {
      auto it = players_.find(p->player);
      if (it == players_.end()) {
        return fail(api::error_code::unknown_player, "Player is not online.", "$.player");
      }
      if (p->emote != "test:wave") {
        return fail(api::error_code::unknown_emote, "That emote does not exist.", "$.emote");
      }
      stop_session(p->player, api::stop_reason::replaced);
      session s;
      s.id = ++next_session_;
      s.player = p->player;
      s.dimension = it->second.dimension;
      s.started = tick_;
      for (int i = 0; i < wave_displays; ++i) {
        s.handles.push_back(next_handle_++);
      }
      pending_.push_back(api::ev_playback_started{s.id, s.player, "test:wave", api::role::solo});
      for (auto h : s.handles) {
        api::ev_display_spawn sp;
        sp.session = s.id;
        sp.handle = h;
        sp.node = "n" + std::to_string(h);
        sp.dimension = s.dimension;
        sp.item = "{id:\"minecraft:stick\",count:1}";
        sp.item_display = "none";
        sp.visible = true;
        pending_.push_back(sp);
      }
      r.payload = api::play_ok{s.id, "test:wave", api::role::solo};
      sessions_[p->player] = std::move(s);
      return r;
    }
    if (const auto* st = std::get_if<api::emote_stop>(&in)) {
      auto it = sessions_.find(st->player);
      if (it == sessions_.end()) {
        return fail(api::error_code::not_playing, "Not playing an emote.", "$.player");
      }
      const auto id = it->second.id;
      stop_session(st->player, api::stop_reason::manual);
      r.payload = api::stop_ok{id};
      return r;
    }
    if (std::holds_alternative<api::emote_stop_all>(in)) {
      const auto n = static_cast<std::int64_t>(stop_all(api::stop_reason::manual));
      r.payload = api::count_ok{"stopped", n};
      return r;
    }
    return r;
  }

  const protocol::tick_output& step() override {
    if (step_delay.count() > 0) {
      std::this_thread::sleep_for(step_delay);
    }
    frame_.tick = tick_;
    frame_.events = std::move(pending_);
    pending_.clear();
    std::vector<std::string> finished;
    for (auto& [name, s] : sessions_) {
      const auto age = tick_ - s.started;
      if (age >= wave_ticks) {
        finished.push_back(name);
        continue;
      }
      for (auto h : s.handles) {
        api::ev_display_update u;
        u.handle = h;
        api::transform_record t;
        t.translation = {static_cast<float>(age) * 0.125F, 0.5F, static_cast<float>(h)};
        t.left_rotation = {0, 0, 0, 1};
        t.right_rotation = {0, 0, 0, 1};
        t.scale = {1, 1, 1};
        t.matrix = {1, 0, 0, t.translation[0], 0, 1, 0, 0.5F,
                    0, 0, 1, t.translation[2], 0, 0, 0, 1};
        u.transform = t;
        u.interpolation_duration = 1;
        frame_.events.push_back(u);
      }
    }
    for (const auto& name : finished) {
      stop_session(name, api::stop_reason::finished);
    }
    for (auto& e : pending_) {
      frame_.events.push_back(std::move(e));
    }
    pending_.clear();
    ++tick_;
    out_ = frame_;
    return out_;
  }

  void shutdown() override { stop_all(api::stop_reason::server_stopping); }
  [[nodiscard]] gauges gauge() const override {
    gauges g;
    g.players = static_cast<std::int64_t>(player_count());
    g.sessions = static_cast<std::int64_t>(session_count());
    return g;
  }

  [[nodiscard]] sim::state_snapshot state(const sim::state_query& q) const override {
    const std::optional<std::string>& who = q.player;
    sim::state_snapshot s;
    for (const auto& [name, p] : players_) {
      if (who && *who != name) {
        continue;
      }
      sim::state_snapshot::player_entry e;
      e.player = name;
      if (auto it = sessions_.find(name); it != sessions_.end()) {
        e.session = it->second.id;
        e.role = api::role::solo;
      }
      s.players.push_back(e);
    }
    return s;
  }
  [[nodiscard]] std::vector<protocol::emote_summary> list() const override {
    protocol::emote_summary w;
    w.id = "test:wave";
    w.type = "animation";
    w.name = "Wave";
    w.duration_ticks = wave_ticks;
    return {w};
  }
  [[nodiscard]] std::optional<protocol::emote_details> info(std::string_view id) const override {
    if (id != "test:wave") {
      return std::nullopt;
    }
    protocol::emote_details d;
    d.summary = list()[0];
    return d;
  }
  [[nodiscard]] std::int64_t emote_count() const override { return 1; }
  reload_outcome reload(const protocol::emote_reload_request&) override {
    ++reloads;
    stop_all(api::stop_reason::reload);
    reload_outcome o;
    o.loaded = 1;
    return o;
  }
  core::result<std::string, api::error> register_emote(std::string_view) override {
    return core::failure{api::error{api::error_code::bad_request, "registration is not simulated",
                                    "$.document", std::nullopt}};
  }
  std::vector<render::display_info> displays() const override { return {}; }
  std::int64_t render_resync(const protocol::render_resync_request&) override { return 0; }

  [[nodiscard]] std::size_t player_count() const { return players_.size(); }
  [[nodiscard]] std::size_t session_count() const { return sessions_.size(); }

private:
  struct player {
    std::string dimension;
    int unused = 0;
  };
  struct session {
    api::session_id id = 0;
    std::string player;
    std::string dimension;
    api::tick_number started = 0;
    std::vector<api::handle_id> handles;
  };

  void stop_session(const std::string& name, api::stop_reason why) {
    auto it = sessions_.find(name);
    if (it == sessions_.end()) {
      return;
    }
    pending_.push_back(api::ev_display_remove{it->second.id, it->second.handles});
    pending_.push_back(api::ev_playback_stopped{it->second.id, name, "test:wave", why});
    sessions_.erase(it);
  }
  std::size_t stop_all(api::stop_reason why) {
    std::vector<std::string> names;
    for (const auto& [name, s] : sessions_) {
      names.push_back(name);
    }
    for (const auto& n : names) {
      stop_session(n, why);
    }
    return names.size();
  }

  api::tick_number tick_ = 0;
  api::session_id next_session_ = 0;
  api::handle_id next_handle_ = 1;
  std::map<std::string, player> players_;
  std::map<std::string, session> sessions_;
  std::vector<api::event> pending_;
  api::frame frame_;
  protocol::tick_output out_;
};

} // namespace emote::server::testing
