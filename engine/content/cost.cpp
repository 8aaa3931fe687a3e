#include "engine/content/cost.hpp"

#include "engine/molang/cost.hpp"
#include "engine/molang/program.hpp"

namespace emote::content {
namespace {

std::uint64_t of(const program_ptr& p) {
  return p ? p->op_bound() : 0;
}

std::uint64_t of(const std::vector<vector_keyframe>& keys) {
  std::uint64_t sum = 0;
  for (const vector_keyframe& k : keys) {
    for (std::size_t i = 0; i < 3; ++i) {
      sum = molang::add_ops(sum, of(k.post[i].expression));
      if (k.pre[i].expression != k.post[i].expression) { // one program when pre equals post
        sum = molang::add_ops(sum, of(k.pre[i].expression));
      }
    }
  }
  return sum;
}

} // namespace

std::uint64_t tick_op_bound(const animation& a) {
  std::uint64_t sum = molang::add_ops(of(a.initialize), of(a.tick));
  for (const node_tracks& t : a.tracks) {
    sum = molang::add_ops(sum, of(t.position));
    sum = molang::add_ops(sum, of(t.rotation));
    sum = molang::add_ops(sum, of(t.scale));
    for (const visible_keyframe& k : t.visible) {
      sum = molang::add_ops(sum, of(k.expression));
    }
    for (const nbt_keyframe& k : t.nbt) {
      sum = molang::add_ops(sum, of(k.select));
    }
  }
  return molang::mul_ops(2, sum);
}

std::uint64_t tick_op_bound(const sequence& s) {
  std::uint64_t sum = 0;
  for (const sequence_animation& a : s.animations) {
    if (a.animation) {
      sum = molang::add_ops(sum, tick_op_bound(*a.animation));
    }
  }
  return sum;
}

std::uint64_t tick_op_bound(const catalog_entry& e) {
  if (e.animation) {
    return tick_op_bound(*e.animation);
  }
  return e.sequence ? tick_op_bound(*e.sequence) : 0;
}

} // namespace emote::content
