#include "engine/molang/session.hpp"

namespace emote::molang {

session::session(const symbol_table& symbols) : symbols_(&symbols) {
  catalog_.resize(query_catalog().size());
  stack_.resize(256);
  fit();
  reset();
}

void session::fit() {
  const std::size_t n = symbols_->name_count();
  if (variables_.size() < n) {
    const std::size_t grown = n + n / 2 + 8;
    variables_.resize(grown);
    temps_.resize(grown);
    queries_.resize(grown);
  }
}

void session::reset() noexcept {
  session_gen_ = ++counter_;
  host_gen_ = session_gen_;
}

void session::reset(const symbol_table& symbols) {
  symbols_ = &symbols;
  fit();
  reset();
}

void session::begin_frame() noexcept {
  host_gen_ = ++counter_;
}

void session::set_query(name_id name, double v) {
  fit();
  if (name >= symbols_->name_count() || symbols_->query(name) >= 0) {
    return;
  }
  queries_[name] = {value::of(normalize(v)), counter_};
}

value session::variable(name_id name) const noexcept {
  if (name < variables_.size() && variables_[name].gen >= session_gen_) {
    return variables_[name].v;
  }
  return value::of(0.0);
}

} // namespace emote::molang
