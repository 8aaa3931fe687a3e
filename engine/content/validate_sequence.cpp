// Sequence files (formats.md §4; sequence-format.md): every rule in the stated order; loading
// stops at the first error, `check` goes on with what does not depend on a rejected value
// (formats.md §1.3). Resolution against Animations is resolve.cpp.
#include "engine/content/fields.hpp"
#include "engine/content/validate.hpp"

#include "engine/core/coordinates.hpp"

#include <cmath>
#include <unordered_set>

namespace emote::content::detail {
namespace {

constexpr std::string_view continue_id = "emote:continue";
constexpr std::string_view break_id = "emote:break";

bool is_control(std::string_view id) noexcept {
  return id == continue_id || id == break_id;
}

enum class element_kind { none, emote, wait, await };

element_kind kind_of(const json_value& step) {
  int count = 0;
  element_kind k = element_kind::none;
  if (present(step, "emote") != nullptr) {
    ++count;
    k = element_kind::emote;
  }
  if (present(step, "wait") != nullptr) {
    ++count;
    k = element_kind::wait;
  }
  if (present(step, "await_partner") != nullptr) {
    ++count;
    k = element_kind::await;
  }
  return count == 1 ? k : element_kind::none;
}

class sequence_checker {
public:
  sequence_checker(const json_value& root, checker& c, checked_file& out)
      : root_(root), c_(c), out_(out), s_(std::make_shared<sequence>()) {}

  void run() {
    bool parts = false;
    bool steps_ok = false;
    if (!c_.each([&] { return check_schema_version(root_, c_); },
                 [&] { return check_id(root_, c_, s_->id, out_.id_loc); },
                 [&] { return check_minecraft_version(root_, c_); },
                 [&] { return check_metadata(root_, c_, s_->metadata); },
                 [&] { return parts = participants(); }, [&] { return settings(); },
                 [&] { return steps_ok = steps(); },
                 // The structure rules need the participants and the steps.
                 [&] { return parts && steps_ok && structure(); })) {
      return;
    }
    c_.unknown_keys(root_, fields::sequence);
    out_.id = s_->id;
    out_.seq = s_;
  }

private:
  bool placement_field(const json_value& obj, std::string_view key, bool position, placement& out) {
    std::string text;
    if (!c_.string(obj, key, text)) {
      return false;
    }
    auto k = c_.at(key);
    const auto& v = *obj.find(key);
    if (position) {
      auto r = core::parse_position(text);
      if (!r.ok()) {
        return c_.fail(v, r.error());
      }
      out.position = r.value();
    } else {
      auto r = core::parse_rotation(text);
      if (!r.ok()) {
        return c_.fail(v, r.error());
      }
      out.rotation = r.value();
    }
    return true;
  }

  bool participants() {
    const json_value* p = nullptr;
    if (!c_.object(root_, "participants", p, false)) {
      return false;
    }
    if (p == nullptr) {
      return true;
    }
    auto s = c_.at("participants");
    content::participants parts;
    bool ok = true;
    for (std::string_view role : {"initiator", "partner"}) {
      const auto placement = [&] {
        const json_value* r = nullptr;
        if (!c_.object(*p, role, r)) {
          return false;
        }
        auto k = c_.at(role);
        auto& pl = role == "initiator" ? parts.initiator : parts.partner;
        if (!c_.each([&] { return placement_field(*r, "position", true, pl); },
                     [&] { return placement_field(*r, "rotation", false, pl); })) {
          return false;
        }
        c_.unknown_keys(*r, fields::placement);
        return true;
      };
      if (!c_.next(ok, placement())) {
        return false;
      }
    }
    if (!ok) {
      return false;
    }
    c_.unknown_keys(*p, fields::participants);
    s_->participants = parts;
    return true;
  }

  bool settings() {
    const json_value* st = nullptr;
    if (!c_.object(root_, "settings", st)) {
      return false;
    }
    auto s = c_.at("settings");
    if (!c_.each([&] { return c_.time(*st, "cooldown", 0, s_->cooldown); },
                 [&] { return check_player_settings(*st, c_, s_->player); })) {
      return false;
    }
    c_.unknown_keys(*st, fields::sequence_settings);
    return true;
  }

  bool steps() {
    const json_value* list = nullptr;
    if (!c_.array(root_, "steps", list)) {
      return false;
    }
    steps_ = list;
    out_.steps_loc = location_of(*list);
    auto s = c_.at("steps");
    return step_list(*list, false, reference::list_kind::steps, s_->steps);
  }

  bool step_list(const json_value& list, bool in_branch, reference::list_kind lk,
                 std::vector<step>& out) {
    const auto& elements = list.as_array();
    if (elements.empty()) {
      return c_.fail(list, "must not be empty");
    }
    element_kind previous = element_kind::none;
    bool ok = true;
    for (std::size_t i = 0; i < elements.size(); ++i) {
      auto k = c_.at(i);
      const auto& e = elements[i];
      // An element's kind is known before its checks, so the wait rules see it even when the
      // element failed (`check`).
      const auto kind = e.is_object() ? kind_of(e) : element_kind::none;
      if (!c_.next(ok, element(e, kind, i, elements.size(), previous, in_branch, lk, out))) {
        return false;
      }
      previous = kind;
    }
    return ok;
  }

  bool element(const json_value& e, element_kind kind, std::size_t i, std::size_t n,
               element_kind previous, bool in_branch, reference::list_kind lk,
               std::vector<step>& out) {
    if (!e.is_object()) {
      return c_.fail(e, "must be an object");
    }
    switch (kind) {
    case element_kind::none:
      return c_.fail(e, "must contain exactly one of emote, wait, or await_partner");
    case element_kind::await:
      return await_step(e, in_branch);
    case element_kind::wait: {
      step st;
      st.kind = step_kind::wait;
      if (!wait_step(e, i, n, previous, st)) {
        return false;
      }
      out.push_back(std::move(st));
      return true;
    }
    case element_kind::emote: {
      step st;
      if (!emote_step(e, lk, out.size(), st)) {
        return false;
      }
      out.push_back(std::move(st));
      return true;
    }
    }
    return true;
  }

  bool await_step(const json_value& e, bool in_branch) {
    bool ok = true;
    if (has_key(e, "transition")) {
      auto k = c_.at("transition");
      if (!c_.next(ok, c_.fail(*e.find("transition"), "is supported only on an emote step"))) {
        return false;
      }
    }
    if (in_branch) {
      auto k = c_.at("await_partner");
      if (!c_.next(ok, c_.fail(*e.find("await_partner"),
                               "is not supported inside a collaboration branch"))) {
        return false;
      }
    }
    if (has_key(e, "repeat")) {
      auto k = c_.at("repeat");
      if (!c_.next(ok, c_.fail(*e.find("repeat"), "is not supported on an await_partner step"))) {
        return false;
      }
    }
    ++awaits_;
    partner_step ps;
    const auto offer = [&] {
      const json_value* ap = nullptr;
      if (!c_.object(e, "await_partner", ap)) {
        return false;
      }
      auto k = c_.at("await_partner");
      const auto id = [&] {
        auto ke = c_.at("emote");
        const json_value* v = nullptr;
        if (!c_.require(*ap, "emote", v) || !c_.identifier(*v, ps.offer_id)) {
          return false;
        }
        if (is_control(ps.offer_id)) {
          return c_.fail(*v, "must reference an animation");
        }
        out_.references.push_back(
            reference{ps.offer_id, c_.path(), location_of(*v), reference::list_kind::offer, 0, 0});
        return true;
      };
      if (!c_.each(id, [&] { return c_.time(*ap, "timeout", 1, ps.timeout); })) {
        return false;
      }
      c_.unknown_keys(*ap, fields::await_partner);
      return true;
    };
    if (!c_.next(ok, offer())) {
      return false;
    }
    for (auto [key, lk, dest] :
         {std::tuple{std::string_view("matched"), reference::list_kind::matched, &ps.matched},
          std::tuple{std::string_view("timeout"), reference::list_kind::timeout,
                     &ps.timeout_steps}}) {
      const json_value* list = nullptr;
      const bool is_list = c_.array(e, key, list);
      if (!c_.next(ok, is_list)) {
        return false;
      }
      if (!is_list) {
        continue;
      }
      auto k = c_.at(key);
      if (!c_.next(ok, step_list(*list, true, lk, *dest))) {
        return false;
      }
    }
    if (!ok) {
      return false;
    }
    c_.unknown_keys(e, fields::await_step);
    if (!s_->partner) {
      s_->partner = std::move(ps);
    }
    return true;
  }

  bool wait_step(const json_value& e, std::size_t i, std::size_t n, element_kind previous,
                 step& st) {
    bool ok = true;
    if (has_key(e, "transition")) {
      auto k = c_.at("transition");
      if (!c_.next(ok, c_.fail(*e.find("transition"), "is supported only on an emote step"))) {
        return false;
      }
    }
    if (has_key(e, "repeat")) {
      auto k = c_.at("repeat");
      if (!c_.next(ok, c_.fail(*e.find("repeat"), "is not supported on a wait step"))) {
        return false;
      }
    }
    {
      auto k = c_.at("wait");
      const auto& w = *e.find("wait");
      if (i == 0 || i + 1 == n) {
        if (!c_.next(ok, c_.fail(w, "must be between emote steps"))) {
          return false;
        }
      } else if (previous == element_kind::wait) {
        if (!c_.next(ok, c_.fail(w, "must not follow another wait step"))) {
          return false;
        }
      }
      if (!c_.next(ok, c_.as_time(w, 1, st.wait)) || !ok) {
        return false;
      }
    }
    c_.unknown_keys(e, fields::wait_step);
    return true;
  }

  bool candidate_id(const json_value& v, reference::list_kind lk, std::size_t step_index,
                    step& st) {
    candidate cand;
    if (!c_.identifier(v, cand.id)) {
      return false;
    }
    if (cand.id == continue_id) {
      cand.kind = candidate_kind::continue_repeat;
    } else if (cand.id == break_id) {
      cand.kind = candidate_kind::break_repeat;
    } else {
      out_.references.push_back(
          reference{cand.id, c_.path(), location_of(v), lk, step_index, st.candidates.size()});
    }
    st.candidates.push_back(std::move(cand));
    return true;
  }

  bool emote_step(const json_value& e, reference::list_kind lk, std::size_t step_index, step& st) {
    st.kind = step_kind::emote;
    return c_.each([&] { return candidates(e, lk, step_index, st); },
                   [&] { return repeat_and_transition(e, st); });
  }

  // The candidates of an emote step: one error at most (weights belong to the id before them).
  bool candidates(const json_value& e, reference::list_kind lk, std::size_t step_index, step& st) {
    {
      auto k = c_.at("emote");
      const auto& v = *e.find("emote");
      if (v.is_string()) {
        if (!candidate_id(v, lk, step_index, st)) {
          return false;
        }
      } else if (v.is_array()) {
        const auto& a = v.as_array();
        if (a.empty()) {
          return c_.fail(v, "must not be empty");
        }
        st.weighted = a.size() >= 2 && a[1].is_number();
        if (st.weighted && a.size() % 2 != 0) {
          return c_.fail(v, "must contain complete id and chance pairs");
        }
        std::unordered_set<std::string_view> seen;
        std::int64_t total = 0;
        for (std::size_t j = 0; j < a.size(); ++j) {
          auto kj = c_.at(j);
          const auto& el = a[j];
          if (st.weighted && j % 2 == 1) {
            double w = 0;
            if (!c_.as_finite(el, w)) {
              return false;
            }
            if (w != std::trunc(w) || w < 1 || w > 100) {
              return c_.fail(el, "must be an integer between 1 and 100");
            }
            st.candidates.back().weight = static_cast<std::int32_t>(w);
            total += static_cast<std::int64_t>(w);
            continue;
          }
          if (!candidate_id(el, lk, step_index, st)) {
            return false;
          }
          if (!seen.insert(el.as_string()).second) {
            return c_.fail(el, "must not duplicate an earlier candidate");
          }
        }
        if (st.weighted && total != 100) {
          return c_.fail(v, "chances must total 100");
        }
      } else {
        return c_.fail(v, "must be a string or a non-empty array of strings");
      }
    }
    return true;
  }

  bool repeat_and_transition(const json_value& e, step& st) {
    const auto repeat = [&] {
      if (!has_key(e, "repeat")) {
        return true;
      }
      auto k = c_.at("repeat");
      const json_value* v = nullptr;
      if (!c_.require(e, "repeat", v) || !c_.as_int32(*v, st.repeat)) {
        return false;
      }
      if (st.repeat < 1) {
        return c_.fail(*v, "must be at least 1");
      }
      return true;
    };
    const auto transition = [&] {
      if (!has_key(e, "transition")) {
        return true;
      }
      auto k = c_.at("transition");
      const json_value* v = nullptr;
      return c_.require(e, "transition", v) && c_.as_time(*v, 0, st.transition);
    };
    if (!c_.each(repeat, transition)) {
      return false;
    }
    c_.unknown_keys(e, fields::emote_step);
    return true;
  }

  bool structure() {
    auto s = c_.at("steps");
    const bool has_await = awaits_ > 0;
    if (has_await && steps_->as_array().size() > 1) {
      return c_.fail(*steps_, "a partner sequence must contain exactly one await_partner step");
    }
    if (has_await && !s_->participants) {
      return c_.fail(*steps_, "a partner sequence requires participants");
    }
    if (!has_await && s_->participants) {
      return c_.fail(*steps_, "participants require an await_partner step");
    }
    return true;
  }

  const json_value& root_;
  checker& c_;
  checked_file& out_;
  std::shared_ptr<sequence> s_;
  const json_value* steps_ = nullptr;
  int awaits_ = 0;
};

} // namespace

void check_sequence(const json_value& root, checker& c, checked_file& out) {
  sequence_checker(root, c, out).run();
}

} // namespace emote::content::detail
