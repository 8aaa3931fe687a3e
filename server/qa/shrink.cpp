#include "server/qa/shrink.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace emote::server {

namespace {

// The script entries of `c` grouped by the recorded line they come from, in recorded order.
std::vector<std::vector<std::size_t>> units_of(const protocol::converted_recording& c) {
  std::vector<std::vector<std::size_t>> units;
  std::map<std::size_t, std::size_t> by_source;
  for (std::size_t i = 0; i < c.origins.size(); ++i) {
    const auto [it, added] = by_source.try_emplace(c.origins[i].source, units.size());
    if (added) {
      units.emplace_back();
    }
    units[it->second].push_back(i);
  }
  return units;
}

class shrinker {
public:
  shrinker(const protocol::converted_recording& c, const protocol::scenario& base,
           const protocol::host_factory& make_host)
      : c_(c), base_(base), make_host_(make_host), units_(units_of(c)) {}

  [[nodiscard]] std::size_t unit_count() const noexcept { return units_.size(); }
  [[nodiscard]] std::size_t runs() const noexcept { return runs_; }

  // The script of the kept units (ascending unit numbers): their entries in recorded order,
  // without the disconnect leaves of players no kept entry joined before.
  [[nodiscard]] std::vector<protocol::script_entry>
  script(const std::vector<std::size_t>& kept) const {
    std::vector<std::size_t> entries;
    for (const std::size_t u : kept) {
      entries.insert(entries.end(), units_[u].begin(), units_[u].end());
    }
    std::sort(entries.begin(), entries.end());
    std::set<std::string> joined;
    std::vector<protocol::script_entry> out;
    for (const std::size_t i : entries) {
      const auto& origin = c_.origins[i];
      if (!origin.leaves.empty() && !joined.contains(origin.leaves)) {
        continue;
      }
      if (!origin.joins.empty()) {
        joined.insert(origin.joins);
      }
      out.push_back(c_.text.script[i]);
      out.back().index = out.size() - 1;
    }
    return out;
  }

  // Whether the kept units meet the expectations (each distinct candidate runs once).
  bool meets(const std::vector<std::size_t>& kept) {
    if (const auto it = seen_.find(kept); it != seen_.end()) {
      return it->second;
    }
    const bool ok = run(kept).passed;
    seen_.emplace(kept, ok);
    return ok;
  }

  protocol::run_result run(const std::vector<std::size_t>& kept) {
    protocol::scenario s = base_;
    s.script = script(kept);
    ++runs_;
    return protocol::run_scenario(s, make_host_);
  }

  // The same script `offset` ticks earlier, with the total shortened to match.
  protocol::run_result run_moved(std::vector<protocol::script_entry> moved, std::int64_t ticks) {
    protocol::scenario s = base_;
    s.script = std::move(moved);
    s.ticks = ticks;
    ++runs_;
    return protocol::run_scenario(s, make_host_);
  }

  // ddmin: split into n parts; keep a part that alone meets the expectations, else a complement
  // that does, else split finer, until every single unit is needed (1-minimal).
  std::vector<std::size_t> minimise() {
    std::vector<std::size_t> current(units_.size());
    for (std::size_t i = 0; i < current.size(); ++i) {
      current[i] = i;
    }
    if (meets({})) {
      return {};
    }
    std::size_t n = 2;
    while (current.size() >= 2) {
      n = std::min(n, current.size());
      std::vector<std::vector<std::size_t>> parts(n);
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t from = k * current.size() / n;
        const std::size_t to = (k + 1) * current.size() / n;
        parts[k].assign(current.begin() + static_cast<std::ptrdiff_t>(from),
                        current.begin() + static_cast<std::ptrdiff_t>(to));
      }
      bool reduced = false;
      for (const auto& part : parts) {
        if (meets(part)) {
          current = part;
          n = 2;
          reduced = true;
          break;
        }
      }
      if (!reduced && n > 2) {
        for (std::size_t k = 0; k < n && !reduced; ++k) {
          std::vector<std::size_t> complement;
          for (std::size_t j = 0; j < n; ++j) {
            if (j != k) {
              complement.insert(complement.end(), parts[j].begin(), parts[j].end());
            }
          }
          if (meets(complement)) {
            current = std::move(complement);
            n = std::max<std::size_t>(n - 1, 2);
            reduced = true;
          }
        }
      }
      if (!reduced) {
        if (n >= current.size()) {
          break;
        }
        n = std::min(n * 2, current.size());
      }
    }
    return current;
  }

private:
  const protocol::converted_recording& c_;
  const protocol::scenario& base_;
  const protocol::host_factory& make_host_;
  std::vector<std::vector<std::size_t>> units_;
  std::map<std::vector<std::size_t>, bool> seen_;
  std::size_t runs_ = 0;
};

} // namespace

core::result<shrink_result, std::string> shrink_script(const protocol::converted_recording& c,
                                                       const protocol::scenario& base,
                                                       const protocol::host_factory& make_host) {
  if (c.origins.size() != c.text.script.size()) {
    return core::failure{"the converted script and its origins disagree"};
  }
  shrinker s(c, base, make_host);
  std::vector<std::size_t> all(s.unit_count());
  for (std::size_t i = 0; i < all.size(); ++i) {
    all[i] = i;
  }
  const auto whole = s.run(all);
  if (!whole.started) {
    return core::failure{whole.failure};
  }
  if (!whole.passed) {
    return core::failure{"the whole recording does not meet the expectations: " + whole.failure};
  }
  shrink_result out;
  out.units_before = s.unit_count();
  const auto kept = s.minimise();
  out.units_after = kept.size();
  out.script = s.script(kept);
  out.ticks = base.ticks;
  // Move the script to start near tick 0, keeping each tick's phase modulo 20 (the idle pass
  // runs on ticks divisible by 10, players.md §6.5). Expectations that name ticks would need
  // moving too, so then nothing moves; and the moved scenario must still meet them.
  const std::int64_t first = out.script.empty() ? 0 : out.script.front().tick;
  const std::int64_t offset = first - first % 20;
  if (offset > 0) {
    const bool names_ticks =
        std::any_of(base.expect.items().begin(), base.expect.items().end(), [](const auto& e) {
          return e.text.find(R"("tick")") != std::string::npos ||
                 e.text.find(R"("by")") != std::string::npos ||
                 e.text.find(R"("after")") != std::string::npos;
        });
    std::vector<protocol::script_entry> moved = out.script;
    for (auto& entry : moved) {
      entry.tick -= offset;
    }
    if (names_ticks) {
      out.not_rebased = "the expectations name ticks";
    } else if (s.run_moved(moved, base.ticks - offset).passed) {
      out.script = std::move(moved);
      out.tick_offset = offset;
      out.ticks = base.ticks - offset;
    } else {
      out.not_rebased = "the scenario moved " + std::to_string(offset) +
                        " ticks earlier no longer meets the expectations";
    }
  }
  out.runs = s.runs();
  return out;
}

std::string expect_array_text(const protocol::expectation_set& set) {
  if (set.empty()) {
    return "[]";
  }
  std::string out = "[";
  for (std::size_t i = 0; i < set.items().size(); ++i) {
    out += i == 0 ? "\n    " : ",\n    ";
    out += set.items()[i].text;
  }
  out += "\n  ]";
  return out;
}

} // namespace emote::server
