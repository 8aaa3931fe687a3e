#include "engine/core/suggest.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace emote::core {

namespace {

char lower(char c) noexcept {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

std::size_t distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size();
  const std::size_t m = b.size();
  std::vector<std::size_t> d((n + 1) * (m + 1));
  auto at = [&](std::size_t i, std::size_t j) -> std::size_t& { return d[i * (m + 1) + j]; };
  for (std::size_t i = 0; i <= n; ++i) {
    at(i, 0) = i;
  }
  for (std::size_t j = 0; j <= m; ++j) {
    at(0, j) = j;
  }
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
          lower(a[i - 2]) == lower(b[j - 1])) {
        at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
      }
    }
  }
  return at(n, m);
}

} // namespace

std::string_view closest_word(std::string_view word, std::span<const std::string_view> candidates) {
  // Long inputs are not words anyone misspelt; bound the work.
  if (word.empty() || word.size() > 64) {
    return {};
  }
  const std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
  std::string_view best;
  std::size_t best_distance = limit + 1;
  for (const auto c : candidates) {
    if (c.size() > 64) {
      continue;
    }
    const std::size_t dist = distance(word, c);
    if (dist < best_distance && dist < word.size()) {
      best = c;
      best_distance = dist;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates) {
  const std::string_view c = closest_word(word, candidates);
  return c.empty() ? std::string() : "did you mean `" + std::string(c) + "`?";
}

} // namespace emote::core
