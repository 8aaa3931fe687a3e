#pragma once
// "Did you mean ...?": the candidate closest to a misspelt word, for diagnostics (an unknown key,
// a value outside its set). Closeness is the optimal string alignment distance (insertions,
// deletions, substitutions and swaps of adjacent characters, ASCII case ignored); a candidate
// qualifies within max(1, length / 3) edits of the word and with fewer edits than the word's
// length.

#include <span>
#include <string>
#include <string_view>

namespace emote::core {

/// The closest candidate (the first of equally close ones), or empty when none qualifies.
std::string_view closest_word(std::string_view word, std::span<const std::string_view> candidates);

/// "did you mean `X`?" for the closest candidate, or empty.
std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates);

} // namespace emote::core
