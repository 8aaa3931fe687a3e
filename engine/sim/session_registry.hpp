#pragma once
// The session registry (players.md §3, §7): the registered sessions in creation order, who
// participates in and who is reserved by which session, the sessions stopped in the tick in
// progress (their removal goes out in P5, their handles return after it) and the display entities
// the registered sessions count against the limit. Bookkeeping only: it never starts, advances or
// stops a playback; the engine's parts decide, the registry records.

#include "engine/api/types.hpp"
#include "engine/core/state_digest.hpp"
#include "engine/sim/session.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace emote::sim {

class session_registry {
public:
  /// The id the next session takes (1, 2, ...): consumed by add().
  [[nodiscard]] api::session_id next_id() const noexcept { return next_; }

  /// Register `s` (its id must be next_id()): last in creation order, its initiator a participant
  /// and its displays counted. Returns the registered session.
  session& add(std::unique_ptr<session> s);

  /// `player` participates in `s` from now on (an activated partner, players.md §7.8).
  void add_participant(session& s, const std::string& player);
  /// `player` is reserved by `s` (players.md §7.5) / no longer is (when it still was by `s`).
  void add_reservation(session& s, const std::string& player);
  void drop_reservation(const session& s, const std::string& player);

  /// Leave the registry (players.md §3.6 step 1): the session moves to the ended ones until the
  /// frame is out, its participants no longer participate, its displays no longer count. Its
  /// reservation, if any, stays for drop_reservation.
  void detach(session& s);

  [[nodiscard]] session* participating(std::string_view player) const;
  [[nodiscard]] session* reserving(std::string_view player) const;
  /// molang.md §5.2 `is_hidden_by_emote`: `player` participates in a session whose emote hides
  /// it, since a tick before `now`.
  [[nodiscard]] bool hidden_by_emote(std::string_view player, api::tick_number now) const;

  /// The registered sessions now, in creation order, as a list that a stop during the walk does
  /// not change (each entry stays valid until the end of the tick). One walk at a time: the next
  /// call reuses the list.
  [[nodiscard]] std::span<session* const> walk();

  /// Registered sessions in creation order.
  [[nodiscard]] const std::vector<std::unique_ptr<session>>& sessions() const noexcept {
    return sessions_;
  }
  [[nodiscard]] std::size_t size() const noexcept { return sessions_.size(); }
  /// Display entities of the registered sessions (players.md §8.1).
  [[nodiscard]] std::int64_t displays() const noexcept { return displays_; }

  /// Every registered and ended session in creation (id) order: P5 emits in this order.
  template <class F>
  void for_each_in_creation_order(F&& f);
  /// The sessions stopped in this tick, then forgotten.
  template <class F>
  void clear_ended(F&& each);

  /// The registry's part of the state traversal (protocol.md §8 "State digests"): `next_session`
  /// and `displays` (members of the open object), then the maps `participating` and `reserved` and
  /// `sessions` (registered, then ended), each session with its playback.
  template <class Sink>
  void describe_counters(Sink& s) const;
  template <class Sink>
  void describe_sessions(Sink& s) const;

private:
  std::vector<std::unique_ptr<session>> sessions_;
  std::vector<std::unique_ptr<session>> ended_;
  std::map<std::string, session*, std::less<>> participant_of_;
  std::map<std::string, session*, std::less<>> reservation_of_;
  std::vector<session*> walk_;
  api::session_id next_ = 1;
  std::int64_t displays_ = 0;
};

template <class F>
void session_registry::for_each_in_creation_order(F&& f) {
  std::sort(ended_.begin(), ended_.end(),
            [](const auto& a, const auto& b) { return a->id < b->id; });
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < sessions_.size() || j < ended_.size()) {
    if (j == ended_.size() || (i < sessions_.size() && sessions_[i]->id < ended_[j]->id)) {
      f(*sessions_[i++]);
    } else {
      f(*ended_[j++]);
    }
  }
}

template <class F>
void session_registry::clear_ended(F&& each) {
  for (const auto& s : ended_) {
    each(*s);
  }
  ended_.clear();
}

extern template void session_registry::describe_counters(core::state_sink&) const;
extern template void session_registry::describe_counters(core::state_hasher&) const;
extern template void session_registry::describe_sessions(core::state_sink&) const;
extern template void session_registry::describe_sessions(core::state_hasher&) const;

} // namespace emote::sim
