#include "engine/rules/cooldowns.hpp"

#include "engine/rules/play_errors.hpp"

namespace emote::rules {

std::int64_t cooldown_seconds(std::int64_t remaining) noexcept {
  return (remaining + 19) / 20;
}

api::error cooldown_refusal(std::int64_t remaining) {
  api::error e;
  e.code = api::error_code::cooldown;
  e.message = "Emote cooldown: " + std::to_string(cooldown_seconds(remaining)) + "s remaining.";
  e.remaining_ticks = remaining;
  return e;
}

api::error cooling_down_refusal(std::int64_t remaining) {
  const std::int64_t n = cooldown_seconds(remaining);
  api::error e;
  e.code = api::error_code::cooldown;
  e.message = n == 1 ? std::string("You can use this emote again in 1 second.")
                     : "You can use this emote again in " + std::to_string(n) + " seconds.";
  e.remaining_ticks = remaining;
  return e;
}

api::error already_playing_refusal() {
  return play_error(api::error_code::already_playing);
}

std::optional<api::error> cooldown_table::check(std::string_view player, std::string_view emote,
                                                tick_number now) {
  const auto it = entries_.find(view_key{player, emote});
  if (it == entries_.end()) {
    return std::nullopt;
  }
  const entry& e = it->second;
  if (e.in_use) {
    return already_playing_refusal();
  }
  const std::int64_t r = e.ready - now;
  if (r > 0) {
    return mode_ == cooldown_mode::start ? cooldown_refusal(r) : cooling_down_refusal(r);
  }
  entries_.erase(it);
  return std::nullopt;
}

void cooldown_table::claim(std::string_view player, std::string_view emote, std::int64_t eff) {
  if (mode_ != cooldown_mode::stop || eff <= 0) {
    return;
  }
  entry& e = entries_[key{std::string(player), std::string(emote)}];
  e.in_use = true;
  e.eff = eff;
  e.ready = 0;
}

void cooldown_table::release(std::string_view player, std::string_view emote) {
  if (mode_ != cooldown_mode::stop) {
    return;
  }
  const auto it = entries_.find(view_key{player, emote});
  if (it != entries_.end() && it->second.in_use) {
    entries_.erase(it);
  }
}

void cooldown_table::started(std::string_view player, std::string_view emote, tick_number now,
                             std::int64_t eff) {
  if (mode_ != cooldown_mode::start || eff <= 0) {
    return;
  }
  entry& e = entries_[key{std::string(player), std::string(emote)}];
  e.in_use = false;
  e.ready = now + eff;
}

void cooldown_table::stopped(std::string_view player, std::string_view emote, tick_number now) {
  if (mode_ != cooldown_mode::stop) {
    return;
  }
  const auto it = entries_.find(view_key{player, emote});
  if (it == entries_.end() || !it->second.in_use) {
    return;
  }
  it->second.in_use = false;
  it->second.ready = now + it->second.eff;
}

std::int64_t cooldown_table::clear(const std::optional<std::string>& player) {
  if (!player) {
    const auto n = static_cast<std::int64_t>(entries_.size());
    entries_.clear();
    return n;
  }
  std::int64_t n = 0;
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->first.first == *player) {
      it = entries_.erase(it);
      ++n;
    } else {
      ++it;
    }
  }
  return n;
}

cooldown_status cooldown_table::status(std::string_view player, std::string_view emote,
                                       tick_number now) const {
  cooldown_status s;
  const auto it = entries_.find(view_key{player, emote});
  if (it == entries_.end()) {
    return s;
  }
  const entry& e = it->second;
  if (e.in_use) {
    s.state = cooldown_state::in_use;
    s.eff = e.eff;
    return s;
  }
  const std::int64_t r = e.ready - now;
  if (r > 0) {
    s.state =
        mode_ == cooldown_mode::start ? cooldown_state::cooldown : cooldown_state::cooling_down;
    s.remaining = r;
  }
  return s;
}

std::vector<cooldown_table::listed> cooldown_table::entries(tick_number now) const {
  std::vector<listed> out;
  for (const auto& [k, e] : entries_) {
    cooldown_status s = status(k.first, k.second, now);
    if (s.state != cooldown_state::available) {
      out.push_back({k.first, k.second, s});
    }
  }
  return out;
}

void cooldown_table::describe(core::state_sink& s) const {
  s.begin_map("cooldowns");
  std::string_view player;
  bool open = false;
  for (const auto& [k, e] : entries_) {
    if (!open || k.first != player) {
      if (open) {
        s.end_object();
      }
      player = k.first;
      open = true;
      s.begin_map(player);
    }
    s.begin_object(k.second);
    s.boolean("in_use", e.in_use);
    s.i64("eff", e.eff);
    s.i64("ready", e.ready);
    s.end_object();
  }
  if (open) {
    s.end_object();
  }
  s.end_object();
}

} // namespace emote::rules
