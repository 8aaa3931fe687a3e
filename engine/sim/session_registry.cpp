#include "engine/sim/session_registry.hpp"

#include "engine/playback/playback.hpp"

#include <utility>

namespace emote::sim {

session& session_registry::add(std::unique_ptr<session> s) {
  session& added = *s;
  next_ = added.id + 1;
  sessions_.push_back(std::move(s));
  participant_of_[added.initiator.player] = &added;
  displays_ += added.displays;
  return added;
}

void session_registry::add_participant(session& s, const std::string& player) {
  participant_of_[player] = &s;
}

void session_registry::add_reservation(session& s, const std::string& player) {
  reservation_of_[player] = &s;
}

void session_registry::drop_reservation(const session& s, const std::string& player) {
  const auto it = reservation_of_.find(player);
  if (it != reservation_of_.end() && it->second == &s) {
    reservation_of_.erase(it);
  }
}

void session_registry::detach(session& s) {
  for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
    if (it->get() == &s) {
      ended_.push_back(std::move(*it));
      sessions_.erase(it);
      break;
    }
  }
  const auto drop = [&](const std::string& player) {
    const auto it = participant_of_.find(player);
    if (it != participant_of_.end() && it->second == &s) {
      participant_of_.erase(it);
    }
  };
  drop(s.initiator.player);
  if (s.partner) {
    drop(s.partner->player);
  }
  displays_ -= s.displays;
}

session* session_registry::participating(std::string_view player) const {
  const auto it = participant_of_.find(player);
  return it == participant_of_.end() ? nullptr : it->second;
}

session* session_registry::reserving(std::string_view player) const {
  const auto it = reservation_of_.find(player);
  return it == reservation_of_.end() ? nullptr : it->second;
}

bool session_registry::hidden_by_emote(std::string_view player, api::tick_number now) const {
  const session* s = participating(player);
  if (s == nullptr || !s->settings.hidden) {
    return false;
  }
  const participant* p = s->find(player);
  // From the frame after the one in which it became a participant (molang.md §5.2).
  return p != nullptr && p->since < now;
}

std::span<session* const> session_registry::walk() {
  walk_.clear();
  for (const auto& s : sessions_) {
    walk_.push_back(s.get());
  }
  return walk_;
}

// ---------------------------------------------------------------------------------------------
// the state traversal

namespace {

template <class Sink>
void describe_participant(Sink& s, std::string_view key, const participant& p) {
  s.begin_object(key);
  s.str("player", p.player);
  s.i64("incarnation", p.incarnation);
  core::describe_vec3(s, "baseline", p.baseline);
  s.boolean("was_invisible", p.was_invisible);
  s.boolean("hidden", p.hidden);
  s.boolean("tracked", p.tracked);
  s.i64("since", p.since);
  s.end_object();
}

template <class Sink>
void describe_session(Sink& s, const session& x) {
  s.begin_object_id(x.id);
  s.str("emote", x.emote);
  s.boolean("two_player", x.two_player);
  s.str("dimension", x.dimension);
  s.i64("start_tick", x.start_tick);
  s.i64("displays", x.displays);
  s.i64("remaining", x.remaining);
  s.boolean("stopped", x.stopped);
  describe_participant(s, "initiator", x.initiator);
  if (x.partner) {
    describe_participant(s, "partner", *x.partner);
  } else {
    s.null("partner");
  }
  if (x.reserved) {
    s.begin_object("reserved");
    s.str("player", x.reserved->player);
    core::describe_vec3(s, "baseline", x.reserved->baseline);
    s.boolean("invisible", x.reserved->invisible);
    s.i64("tick", x.reserved->tick);
    s.boolean("tracked", x.reserved->tracked);
    s.end_object();
  } else {
    s.null("reserved");
  }
  x.pb->describe(s);
  s.end_object();
}

} // namespace

template <class Sink>
void session_registry::describe_counters(Sink& s) const {
  s.i64("next_session", next_);
  s.i64("displays", displays_);
}

template <class Sink>
void session_registry::describe_sessions(Sink& s) const {
  // Offers and participation: which session each player is in or reserved by.
  s.begin_map("participating");
  for (const auto& [player, sess] : participant_of_) {
    s.i64(player, sess->id);
  }
  s.end_object();
  s.begin_map("reserved");
  for (const auto& [player, sess] : reservation_of_) {
    s.i64(player, sess->id);
  }
  s.end_object();
  s.begin_map("sessions");
  for (const auto& sess : sessions_) {
    describe_session(s, *sess);
  }
  for (const auto& sess : ended_) {
    describe_session(s, *sess);
  }
  s.end_object();
}

template void session_registry::describe_counters(core::state_sink&) const;
template void session_registry::describe_counters(core::state_hasher&) const;
template void session_registry::describe_sessions(core::state_sink&) const;
template void session_registry::describe_sessions(core::state_hasher&) const;

} // namespace emote::sim
