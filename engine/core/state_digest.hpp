#pragma once
// The engine's state as one canonical traversal (protocol.md §8 "State digests"): the engine walks
// its players, sessions, cooldowns, handles, offers, generators and clock in a fixed order (maps
// by key, lists in their order; never pointer values or hash-table order) and reports every value
// to a `state_sink`. Two sinks share that one walk: `state_hasher`, a fast 64-bit digest written
// every tick, and the JSON dump (json/state_json.hpp) written every K ticks and diffed on a
// divergence. The same walk feeding both is what makes a dump explain its digest.

#include "engine/core/vec.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace emote::core {

/// One step of the word-at-a-time 64-bit mixer (also memo_hash's, core/memo.hpp).
[[nodiscard]] constexpr std::uint64_t mix64(std::uint64_t h, std::uint64_t x) noexcept {
  h = (h ^ x) * 0xBF58476D1CE4E5B9ULL;
  return h ^ (h >> 31);
}
inline constexpr std::uint64_t mix64_seed = 0x9E3779B97F4A7C15ULL;

/// Receives one traversal. Containers nest: an object is a record whose members the code names
/// (`key` is a fixed field name), a map's members are keyed by data (player ids, emote ids,
/// session ids), a list's members are in order (pass "" as their key). `begin_object_id` opens a
/// record that is a map member keyed by a number (a session or handle id). Every container ends
/// with its end call (end_object for objects and maps).
class state_sink {
public:
  virtual ~state_sink() = default;
  virtual void begin_object(std::string_view key) = 0;
  virtual void begin_object_id(std::int64_t id) = 0;
  virtual void begin_map(std::string_view key) = 0;
  virtual void end_object() = 0;
  virtual void begin_list(std::string_view key) = 0;
  virtual void end_list() = 0;
  virtual void i64(std::string_view key, std::int64_t v) = 0;
  virtual void u64(std::string_view key, std::uint64_t v) = 0;
  virtual void f32(std::string_view key, float v) = 0;
  virtual void f64(std::string_view key, double v) = 0;
  virtual void str(std::string_view key, std::string_view v) = 0;
  virtual void boolean(std::string_view key, bool v) = 0;
  virtual void null(std::string_view key) = 0;
};

/// A position or vector as a list of its three components.
template <class Sink>
void describe_vec3(Sink& s, std::string_view key, const dvec3& v) {
  s.begin_list(key);
  s.f64("", v.x);
  s.f64("", v.y);
  s.f64("", v.z);
  s.end_list();
}

/// The 64-bit digest of a traversal: one word per value (floats by their bits, so -0 and 0
/// differ, as they may in the output; strings by length and bytes), one at the start and end of
/// each map and list, and the keys of map members (data). A record's field names and layout are
/// fixed by the code that walks it, so they are not mixed. Map keys count down to a nesting
/// depth of 64.
///
/// Speed (the digest runs every tick of a recording server): the words are gathered in a small
/// buffer and mixed in four independent lanes (mix64), which the lanes' own order, the word
/// count and a final fold make one digest. The class is final: code that walks a `state_hasher&`
/// directly (templates over the sink) has every call inlined.
class state_hasher final : public state_sink {
public:
  void begin_object(std::string_view key) override {
    key_of(key);
    open(false);
  }
  void begin_object_id(std::int64_t id) override {
    word(static_cast<std::uint64_t>(id));
    open(false);
  }
  void begin_map(std::string_view key) override {
    key_of(key);
    word(1);
    open(true, true);
  }
  void end_object() override { close(); }
  void begin_list(std::string_view key) override {
    key_of(key);
    word(2);
    open(false, true);
  }
  void end_list() override { close(); }
  void i64(std::string_view key, std::int64_t v) override {
    key_of(key);
    word(static_cast<std::uint64_t>(v));
  }
  void u64(std::string_view key, std::uint64_t v) override {
    key_of(key);
    word(v);
  }
  void f32(std::string_view key, float v) override {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    key_of(key);
    word(bits);
  }
  void f64(std::string_view key, double v) override {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    key_of(key);
    word(bits);
  }
  void str(std::string_view key, std::string_view v) override {
    key_of(key);
    bytes(v);
  }
  void boolean(std::string_view key, bool v) override {
    key_of(key);
    word(v ? 1 : 0);
  }
  void null(std::string_view key) override {
    key_of(key);
    word(0x6E756C6C6E756C6CULL);
  }

  /// A hasher that recomputes the sub-digests walks keep between changes (playback's displays)
  /// instead of using the kept ones, leaving them alone: its digest must equal a normal one's.
  void set_fresh(bool fresh) noexcept { fresh_ = fresh; }
  [[nodiscard]] bool fresh() const noexcept { return fresh_; }

  /// The digest of everything so far (the hasher can go on afterwards).
  [[nodiscard]] std::uint64_t digest() const noexcept {
    std::array<std::uint64_t, 4> lanes = lanes_;
    std::size_t i = 0;
    for (; i + 4 <= n_; i += 4) {
      mix_block(lanes, &buf_[i]);
    }
    std::array<std::uint64_t, 4> tail{};
    for (std::size_t j = 0; i + j < n_; ++j) {
      tail[j] = buf_[i + j];
    }
    if (i < n_) {
      mix_block(lanes, tail.data());
    }
    std::uint64_t h = mix64(mix64_seed, count_ + n_);
    for (const std::uint64_t l : lanes) {
      h = mix64(h, l);
    }
    return h;
  }

private:
  static constexpr std::size_t buffer_words = 32;
  static void mix_block(std::array<std::uint64_t, 4>& lanes, const std::uint64_t* w) noexcept {
    lanes[0] = mix64(lanes[0], w[0]);
    lanes[1] = mix64(lanes[1], w[1]);
    lanes[2] = mix64(lanes[2], w[2]);
    lanes[3] = mix64(lanes[3], w[3]);
  }
  void word(std::uint64_t x) noexcept {
    buf_[n_++] = x;
    if (n_ == buffer_words) {
      for (std::size_t i = 0; i < buffer_words; i += 4) {
        mix_block(lanes_, &buf_[i]);
      }
      count_ += buffer_words;
      n_ = 0;
    }
  }
  // Maps and lists (variable length) are delimited by a start word and an end word; a record's
  // layout is the code's, and an absent optional member is a `null` word. Beyond a depth of 64
  // containers count as delimited records.
  void open(bool map, bool delimited = false) noexcept {
    if (depth_ < 64) {
      const std::uint64_t bit = std::uint64_t{1} << depth_;
      maps_ = map ? (maps_ | bit) : (maps_ & ~bit);
      delimited_ = delimited ? (delimited_ | bit) : (delimited_ & ~bit);
    }
    ++depth_;
    in_map_ = map;
  }
  void close() noexcept {
    if (depth_ == 0) {
      return;
    }
    --depth_;
    if (depth_ >= 64 || ((delimited_ >> depth_) & 1) != 0) {
      word(3);
    }
    in_map_ = depth_ > 0 && depth_ <= 64 && ((maps_ >> (depth_ - 1)) & 1) != 0;
  }
  void key_of(std::string_view key) noexcept {
    if (in_map_) {
      bytes(key);
    }
  }
  void bytes(std::string_view s) noexcept {
    word(s.size());
    std::size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
      std::uint64_t w = 0;
      std::memcpy(&w, s.data() + i, 8);
      word(w);
    }
    if (i < s.size()) {
      std::uint64_t w = 0;
      std::memcpy(&w, s.data() + i, s.size() - i);
      word(w);
    }
  }

  std::array<std::uint64_t, 4> lanes_{mix64_seed, mix64_seed + 1, mix64_seed + 2, mix64_seed + 3};
  std::array<std::uint64_t, buffer_words> buf_{};
  std::size_t n_ = 0;           ///< words in buf_
  std::uint64_t count_ = 0;     ///< words mixed into the lanes
  std::uint64_t maps_ = 0;      ///< bit d: the container at depth d is a map
  std::uint64_t delimited_ = 0; ///< bit d: it is a map or a list
  std::size_t depth_ = 0;
  bool in_map_ = false; ///< the innermost open container is a map
  bool fresh_ = false;
};

/// A digest as the recording writes it: 16 lower-case hex digits.
[[nodiscard]] inline std::string state_digest_hex(std::uint64_t d) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i) {
    s[static_cast<std::size_t>(i)] = digits[d & 15];
    d >>= 4;
  }
  return s;
}

} // namespace emote::core
