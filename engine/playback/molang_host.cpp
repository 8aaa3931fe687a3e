#include "engine/playback/molang_host.hpp"

#include <algorithm>

namespace emote::playback {
namespace {

const molang::symbol_table& symbols_of(const content::animation& a) {
  if (a.symbols) {
    return *a.symbols;
  }
  // An Animation without Molang may come without a table; programs never run against it.
  static const molang::symbol_table empty;
  return empty;
}

} // namespace

molang_host::molang_host(const content::animation& animation)
    : session_(std::make_unique<molang::session>(symbols_of(animation))) {}

molang_host::~molang_host() = default;
molang_host::molang_host(molang_host&&) noexcept = default;
molang_host& molang_host::operator=(molang_host&&) noexcept = default;

void molang_host::new_session() {
  session_->reset();
}

void molang_host::begin_frame() {
  session_->begin_frame();
}

bool molang_host::run(const molang::program& program, const molang::frame_queries& queries,
                      const molang::player_view* player, core::java_random& rng, double& out,
                      op_budget* budget) {
  std::uint64_t limit = molang::unlimited_ops;
  if (budget != nullptr) {
    limit = budget->session_left;
    if (budget->server_left != nullptr) {
      limit = std::min(limit, *budget->server_left);
    }
  }
  const molang::eval_result r = molang::evaluate(program, *session_, queries, player, rng, limit);
  if (budget != nullptr) {
    const std::uint64_t used = std::min(r.ops, limit);
    if (r.status == molang::eval_status::budget_exceeded) {
      budget->evaluation_failed = true;
    }
    if (r.status == molang::eval_status::op_limit_exceeded) {
      budget->exhausted = true;
      budget->by_server =
          budget->server_left != nullptr && *budget->server_left < budget->session_left;
    }
    budget->session_left -= std::min(used, budget->session_left);
    if (budget->server_left != nullptr) {
      *budget->server_left -= std::min(used, *budget->server_left);
    }
  }
  if (r.status != molang::eval_status::ok) {
    return false;
  }
  out = r.value;
  return true;
}

} // namespace emote::playback
