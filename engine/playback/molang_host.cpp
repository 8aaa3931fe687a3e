#include "engine/playback/molang_host.hpp"

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
                      const molang::player_view* player, core::java_random& rng, double& out) {
  const molang::eval_result r = molang::evaluate(program, *session_, queries, player, rng);
  if (r.status != molang::eval_status::ok) {
    return false;
  }
  out = r.value;
  return true;
}

} // namespace emote::playback
