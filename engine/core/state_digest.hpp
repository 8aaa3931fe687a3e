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

/// Receives one traversal. `key` names a member of the current object; inside a list it is
/// ignored (pass ""). Objects and lists nest.
class state_sink {
public:
  virtual ~state_sink() = default;
  virtual void begin_object(std::string_view key) = 0;
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
inline void describe_vec3(state_sink& s, std::string_view key, const dvec3& v) {
  s.begin_list(key);
  s.f64("", v.x);
  s.f64("", v.y);
  s.f64("", v.z);
  s.end_list();
}

/// The 64-bit digest of a traversal: keys, values and the structure (a tag per call) mixed in
/// order. Floats by their bits, so -0 and 0 differ, as they may in the output.
class state_hasher final : public state_sink {
public:
  void begin_object(std::string_view key) override { tagged(1, key); }
  void end_object() override { h_ = mix64(h_, 2); }
  void begin_list(std::string_view key) override { tagged(3, key); }
  void end_list() override { h_ = mix64(h_, 4); }
  void i64(std::string_view key, std::int64_t v) override {
    tagged(5, key);
    h_ = mix64(h_, static_cast<std::uint64_t>(v));
  }
  void u64(std::string_view key, std::uint64_t v) override {
    tagged(5, key);
    h_ = mix64(h_, v);
  }
  void f32(std::string_view key, float v) override {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    tagged(6, key);
    h_ = mix64(h_, bits);
  }
  void f64(std::string_view key, double v) override {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    tagged(7, key);
    h_ = mix64(h_, bits);
  }
  void str(std::string_view key, std::string_view v) override {
    tagged(8, key);
    bytes(v);
  }
  void boolean(std::string_view key, bool v) override {
    tagged(9, key);
    h_ = mix64(h_, v ? 1 : 0);
  }
  void null(std::string_view key) override { tagged(10, key); }

  [[nodiscard]] std::uint64_t digest() const noexcept { return h_; }

private:
  void tagged(std::uint64_t tag, std::string_view key) noexcept {
    h_ = mix64(h_, tag);
    bytes(key);
  }
  void bytes(std::string_view s) noexcept {
    h_ = mix64(h_, s.size());
    std::size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
      std::uint64_t w = 0;
      std::memcpy(&w, s.data() + i, 8);
      h_ = mix64(h_, w);
    }
    if (i < s.size()) {
      std::uint64_t w = 0;
      std::memcpy(&w, s.data() + i, s.size() - i);
      h_ = mix64(h_, w);
    }
  }

  std::uint64_t h_ = mix64_seed;
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
