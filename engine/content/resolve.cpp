// Sequence resolution (formats.md §5) and skin regions (§6).
#include "engine/content/validate.hpp"

#include "engine/core/suggest.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace emote::content::detail {
namespace {

constexpr std::string_view partner_prefix = "__partner__";
constexpr std::int64_t max_length = 2147483647;

// Java Math.round for the non-negative values of formats.md §6: floor(x + 1/2) computed exactly.
std::int64_t java_round(double x) {
  const double f = std::floor(x);
  return static_cast<std::int64_t>(x - f >= 0.5 ? f + 1 : f);
}

std::int64_t sat_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) {
    return b > 0 ? INT64_MAX : INT64_MIN;
  }
  return r;
}

std::int64_t sat_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) {
    return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
  }
  return r;
}

} // namespace

skin_layout compute_skin_layout(const std::vector<node>& nodes,
                                std::vector<std::string>* overflow) {
  skin_layout layout;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& n = nodes[i];
    if (n.type != node_type::item_display || !n.skin) {
      continue;
    }
    skin_region r;
    r.node = static_cast<std::int32_t>(i);
    r.node_id = n.id;
    r.participant = n.skin->participant;
    r.part = n.skin->part;
    r.order = n.skin->order;
    layout.push_back(std::move(r));
  }
  // (participant, part) -> order -> regions (indices into layout)
  std::map<std::pair<participant, skin_part>, std::map<std::int32_t, std::vector<std::size_t>>>
      groups;
  for (std::size_t k = 0; k < layout.size(); ++k) {
    groups[{layout[k].participant, layout[k].part}][layout[k].order].push_back(k);
  }
  for (const auto& [key, subgroups] : groups) {
    const auto n = static_cast<std::int64_t>(subgroups.size());
    if (key.second == skin_part::head || n == 1) {
      continue; // FULL, the default
    }
    if (n > 12) {
      if (overflow != nullptr) {
        overflow->push_back("too many skin segments for " + std::string(name(key.first)) + " " +
                            std::string(name(key.second)) + ": " + std::to_string(n));
      }
      continue;
    }
    std::vector<double> w;
    double total = 0;
    for (const auto& [order, members] : subgroups) {
      double smallest = 0;
      for (auto k : members) {
        const double s =
            std::fabs(nodes[static_cast<std::size_t>(layout[k].node)].transform.scale[1]);
        if (s > 0 && (smallest == 0 || s < smallest)) {
          smallest = s;
        }
      }
      w.push_back(smallest);
      total += smallest;
    }
    if (total <= 0) {
      total = static_cast<double>(n);
    }
    std::int64_t start = 0;
    double acc = 0;
    std::int64_t g = 1;
    for (const auto& [order, members] : subgroups) {
      const double wg = w[static_cast<std::size_t>(g - 1)];
      acc += wg > 0 ? wg : 1;
      const std::int64_t lo = start + 1;
      const std::int64_t hi = std::max(lo, 12 - (n - g));
      const std::int64_t sug = java_round((acc * 12) / total);
      const std::int64_t end = std::clamp(sug, lo, hi);
      for (auto k : members) {
        layout[k].start = static_cast<std::int32_t>(start);
        layout[k].end = static_cast<std::int32_t>(end);
      }
      start = end;
      ++g;
    }
  }
  return layout;
}

std::vector<node> expand_partner(const animation& a) {
  std::vector<node> out = a.nodes;
  if (a.has_partner_nodes) {
    return out;
  }
  std::vector<std::size_t> initiator;
  std::unordered_set<std::string_view> initiator_ids;
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    if (a.nodes[i].space == core::space::initiator) {
      initiator.push_back(i);
      initiator_ids.insert(a.nodes[i].id);
    }
  }
  if (initiator.empty()) {
    return out;
  }
  // The prefix grows by '_' while some copy id would collide with an existing id. Instead of
  // retrying, collect every underscore count u at which "__partner__" + u*'_' + id(n) exists.
  std::set<std::size_t> collisions;
  for (const auto& n : a.nodes) {
    std::string_view m = n.id;
    if (m.substr(0, partner_prefix.size()) != partner_prefix) {
      continue;
    }
    const std::string_view rest = m.substr(partner_prefix.size());
    for (std::size_t u = 0;; ++u) {
      if (initiator_ids.count(rest.substr(u)) != 0) {
        collisions.insert(u);
      }
      if (u >= rest.size() || rest[u] != '_') {
        break;
      }
    }
  }
  std::size_t u = 0;
  while (collisions.count(u) != 0) {
    ++u;
  }
  std::string prefix(partner_prefix);
  prefix.append(u, '_');

  std::vector<std::int32_t> copy_index(a.nodes.size(), -1);
  for (std::size_t k = 0; k < initiator.size(); ++k) {
    copy_index[initiator[k]] = static_cast<std::int32_t>(a.nodes.size() + k);
  }
  for (auto src : initiator) {
    node copy = a.nodes[src];
    copy.id = prefix + a.nodes[src].id;
    copy.space = core::space::partner;
    if (copy.parent >= 0) {
      copy.parent = copy_index[static_cast<std::size_t>(copy.parent)];
    }
    if (copy.skin) {
      copy.skin->participant = participant::partner;
    }
    copy.mirror_of = static_cast<std::int32_t>(src);
    out.push_back(std::move(copy));
  }
  return out;
}

namespace {

bool same_content(const node& a, const node& b) {
  if (a.space != b.space || a.type != b.type) {
    return false;
  }
  switch (a.type) {
  case node_type::anchor:
    return true;
  case node_type::item_display: {
    if (!(a.entity_nbt == b.entity_nbt) || a.item_display != b.item_display) {
      return false;
    }
    if (a.participant_hand.has_value() != b.participant_hand.has_value()) {
      return false;
    }
    if (a.participant_hand ? *a.participant_hand != *b.participant_hand
                           : !(a.item_stack == b.item_stack)) {
      return false;
    }
    if (a.skin.has_value() != b.skin.has_value()) {
      return false;
    }
    return !a.skin || (a.skin->participant == b.skin->participant && a.skin->part == b.skin->part &&
                       a.skin->order == b.skin->order);
  }
  case node_type::block_display:
    return a.entity_nbt == b.entity_nbt && a.block_state == b.block_state;
  case node_type::text_display: {
    if (!(a.entity_nbt == b.entity_nbt)) {
      return false;
    }
    if (a.text_json == b.text_json) {
      return true;
    }
    const auto x = json::parse_source(a.text_json);
    const auto y = json::parse_source(b.text_json);
    return x.ok && y.ok && json::json_equal(x.root, y.root);
  }
  }
  return false;
}

} // namespace

std::optional<core::diagnostic> resolve_sequence(checked_file& f, const animation_lookup& lookup,
                                                 std::span<const std::string_view> known_ids) {
  sequence& s = *f.seq;
  auto error_at = [&](const std::string& path, location loc, std::string message) {
    core::diagnostic d;
    d.file = s.file;
    d.line = static_cast<int>(loc.line);
    d.column = static_cast<int>(loc.column);
    d.path = path;
    d.message = std::move(message);
    d.severity = core::severity::error;
    return d;
  };

  // 1. Every reference names a playable Animation of the resolution set.
  std::vector<std::shared_ptr<const animation>> resolved;
  resolved.reserve(f.references.size());
  for (const auto& r : f.references) {
    auto a = lookup(r.id);
    if (!a) {
      auto d = error_at(r.path, r.loc, "Unknown or disabled animation: " + r.id);
      d.suggestion = core::did_you_mean(r.id, known_ids);
      return d;
    }
    if (a->settings.mode == playback_mode::server_sync) {
      return error_at(r.path, r.loc,
                      "Server-synchronized animation is not supported in a sequence: " + r.id);
    }
    if (a->settings.mode == playback_mode::hold) {
      return error_at(r.path, r.loc, "Hold animation is not supported in a sequence: " + r.id);
    }
    resolved.push_back(std::move(a));
  }
  // 2.
  if (f.references.empty()) {
    return error_at("$.steps", f.steps_loc, "Sequence must reference at least one animation");
  }

  // Distinct Animations in validation order; 3. their (expanded) node lists and layouts.
  std::unordered_map<std::string, std::int32_t> anim_index;
  std::vector<std::int32_t> ref_anim(f.references.size());
  for (std::size_t i = 0; i < resolved.size(); ++i) {
    const auto [it, inserted] =
        anim_index.emplace(resolved[i]->id, static_cast<std::int32_t>(s.animations.size()));
    if (inserted) {
      sequence_animation sa;
      sa.animation = resolved[i];
      if (s.two_player() && !resolved[i]->has_partner_nodes) {
        sa.nodes = expand_partner(*resolved[i]);
        sa.expanded = sa.nodes.size() != resolved[i]->nodes.size();
        sa.skin = compute_skin_layout(sa.nodes);
      } else {
        sa.nodes = resolved[i]->nodes;
        sa.skin = resolved[i]->skin;
      }
      s.animations.push_back(std::move(sa));
    }
    ref_anim[i] = it->second;
  }

  // 4. Layout, lifecycle events, node union, per reference in order.
  const auto& anchor = s.animations.front();
  std::unordered_map<std::string, std::int32_t> union_index;
  std::vector<std::int32_t> definer; // union node -> index in s.animations
  std::vector<bool> merged(s.animations.size(), false);
  for (std::size_t i = 0; i < f.references.size(); ++i) {
    const auto& r = f.references[i];
    const auto ai = static_cast<std::size_t>(ref_anim[i]);
    auto& sa = s.animations[ai];
    const auto& x = *sa.animation;
    if (!same_layout(sa.skin, anchor.skin)) {
      return error_at(r.path, r.loc,
                      "Sequence animations must use the same skin layout: " + anchor.animation->id +
                          " and " + x.id);
    }
    if (x.events.has_lifecycle()) {
      return error_at(r.path, r.loc,
                      "Sequence animation lifecycle events are not supported by compiled "
                      "sequences: " +
                          x.id);
    }
    if (merged[ai]) {
      continue;
    }
    merged[ai] = true;
    sa.union_index.resize(sa.nodes.size());
    for (std::size_t k = 0; k < sa.nodes.size(); ++k) {
      const auto& n = sa.nodes[k];
      const auto it = union_index.find(n.id);
      if (it == union_index.end()) {
        const auto u = static_cast<std::int32_t>(s.node_union.size());
        union_index.emplace(n.id, u);
        s.node_union.push_back(n);
        s.union_source.emplace_back(static_cast<std::int32_t>(ai), static_cast<std::int32_t>(k));
        definer.push_back(static_cast<std::int32_t>(ai));
        sa.union_index[k] = u;
        continue;
      }
      if (!same_content(s.node_union[static_cast<std::size_t>(it->second)], n)) {
        const auto& first =
            s.animations[static_cast<std::size_t>(definer[static_cast<std::size_t>(it->second)])];
        return error_at(r.path, r.loc,
                        "Sequence animations must use compatible nodes: " + first.animation->id +
                            " and " + x.id);
      }
      sa.union_index[k] = it->second;
    }
  }
  // Union parents and mirrors refer to union indices.
  for (std::size_t u = 0; u < s.node_union.size(); ++u) {
    auto& n = s.node_union[u];
    const auto& src = s.animations[static_cast<std::size_t>(s.union_source[u].first)];
    if (n.parent >= 0) {
      n.parent = src.union_index[static_cast<std::size_t>(n.parent)];
    }
    if (n.mirror_of >= 0) {
      n.mirror_of = src.union_index[static_cast<std::size_t>(n.mirror_of)];
    }
  }
  s.skin = anchor.skin;
  for (auto& region : s.skin) {
    region.node = anchor.union_index[static_cast<std::size_t>(region.node)];
  }

  // Fill in the candidates.
  for (std::size_t i = 0; i < f.references.size(); ++i) {
    const auto& r = f.references[i];
    const auto ai = ref_anim[i];
    const auto& a = s.animations[static_cast<std::size_t>(ai)].animation;
    if (r.list == reference::list_kind::offer) {
      s.partner->offer = a;
      s.partner->offer_index = ai;
      continue;
    }
    auto& list = r.list == reference::list_kind::steps     ? s.steps
                 : r.list == reference::list_kind::matched ? s.partner->matched
                                                           : s.partner->timeout_steps;
    auto& cand = list[r.step].candidates[r.candidate];
    cand.animation = a;
    cand.animation_index = ai;
  }

  // 5. Preview lengths (formats.md §5.4).
  auto preview = [](const std::vector<step>& list, bool pose) {
    std::int64_t offset = 0;
    for (const auto& st : list) {
      if (st.kind == step_kind::wait) {
        offset = sat_add(offset, st.wait.count());
        continue;
      }
      const auto& first = st.candidates.front();
      if (first.kind != candidate_kind::animation) {
        continue;
      }
      const auto& a = *first.animation;
      const std::int64_t r = st.repeat;
      const std::int64_t d = a.duration.count();
      const std::int64_t t = st.transition.count();
      const std::int64_t l = a.settings.loop_delay.count();
      offset = sat_add(offset, sat_mul(r, d));
      offset = sat_add(offset, sat_mul(pose ? r : r - 1, t));
      if (a.settings.mode == playback_mode::loop) {
        offset = sat_add(offset, sat_mul(r - 1, l));
      }
      pose = true;
    }
    return std::max<std::int64_t>(offset, 1);
  };
  auto single = [](const std::vector<step>& list) {
    return std::all_of(list.begin(), list.end(), [](const step& st) {
      return st.kind == step_kind::wait ||
             (st.candidates.size() == 1 && st.candidates[0].kind == candidate_kind::animation);
    });
  };
  if (s.two_player()) {
    s.offer_length = s.partner->offer->duration.count();
    s.matched_length = preview(s.partner->matched, true);
    s.timeout_length = preview(s.partner->timeout_steps, true);
    if (s.offer_length > max_length || s.matched_length > max_length ||
        s.timeout_length > max_length) {
      return error_at("$.steps", f.steps_loc, "Compiled sequence is too long: " + s.id);
    }
    s.duration = s.offer_length + s.matched_length;
    s.fixed_duration = single(s.partner->matched) && single(s.partner->timeout_steps);
  } else {
    s.steps_length = preview(s.steps, false);
    if (s.steps_length > max_length) {
      return error_at("$.steps", f.steps_loc, "Compiled sequence is too long: " + s.id);
    }
    s.duration = s.steps_length;
    s.fixed_duration = single(s.steps);
  }
  return std::nullopt;
}

} // namespace emote::content::detail
