#include "engine/molang/checks.hpp"

#include <algorithm>

namespace emote::molang {

bool is_member_of(const ast& tree, const symbol_table& symbols, std::int32_t n, root_kind r) {
  const node& x = tree.nodes[n];
  return x.kind == node_kind::path && x.count == 2 && symbols.root(tree.names[x.first]) == r;
}

namespace {

bool is_host_query(const std::vector<std::string>& host, std::string_view name) {
  return std::find(host.begin(), host.end(), name) != host.end();
}

} // namespace

std::string check_query_uses(const ast& tree, const symbol_table& symbols,
                             const std::vector<std::string>& host_queries) {
  const auto& catalog = query_catalog();
  const auto value_use = [&](name_id id) -> std::string {
    const std::string name(symbols.name(id));
    const int q = symbols.query(id);
    if (q < 0) {
      return is_host_query(host_queries, name) ? std::string()
                                               : "references unsupported query " + name;
    }
    if (!catalog[q].scalar) {
      return "must call query function " + name;
    }
    return {};
  };
  const auto call_use = [&](name_id id, std::uint32_t argc) -> std::string {
    const std::string name(symbols.name(id));
    const int q = symbols.query(id);
    if (q < 0) {
      return is_host_query(host_queries, name) ? "must not call query value " + name
                                               : "references unsupported query " + name;
    }
    if (!catalog[q].function) {
      return "must not call query value " + name;
    }
    const query_arity a = arity(*catalog[q].function);
    if (static_cast<int>(argc) < a.min || (a.max >= 0 && static_cast<int>(argc) > a.max)) {
      return "calls query " + name + " with " + std::to_string(argc) + " arguments; expected " +
             std::string(a.expected);
    }
    return {};
  };

  std::vector<std::int32_t> stack;
  std::vector<std::int32_t> children;
  for (std::uint32_t i = 0; i < tree.root_count; ++i) {
    stack.push_back(tree.items[tree.root_first + tree.root_count - 1 - i]);
  }
  while (!stack.empty()) {
    const std::int32_t n = stack.back();
    stack.pop_back();
    const node& x = tree.nodes[n];
    children.clear();
    if (x.kind == node_kind::call && is_member_of(tree, symbols, x.a, root_kind::query)) {
      const node& callee = tree.nodes[x.a];
      if (auto e = call_use(tree.names[callee.first + 1], x.count); !e.empty()) {
        return e;
      }
      for (std::uint32_t i = 0; i < x.count; ++i) {
        children.push_back(tree.items[x.first + i]);
      }
    } else if (x.kind == node_kind::assign && is_member_of(tree, symbols, x.a, root_kind::query)) {
      return "must not assign queries";
    } else if (x.kind == node_kind::path && x.count >= 2 &&
               symbols.root(tree.names[x.first]) == root_kind::query) {
      if (auto e = value_use(tree.names[x.first + 1]); !e.empty()) {
        return e;
      }
    } else {
      tree.for_each_child(n, [&](std::int32_t c) { children.push_back(c); });
    }
    for (auto it = children.rbegin(); it != children.rend(); ++it) {
      stack.push_back(*it);
    }
  }
  return {};
}

bool has_persistent_write(const ast& tree, const symbol_table& symbols) {
  // Every node of the normalised tree is reachable, and unreachable arena nodes were rewritten
  // in place, so walk from the roots.
  std::vector<std::int32_t> stack;
  for (std::uint32_t i = 0; i < tree.root_count; ++i) {
    stack.push_back(tree.items[tree.root_first + i]);
  }
  while (!stack.empty()) {
    const std::int32_t n = stack.back();
    stack.pop_back();
    const node& x = tree.nodes[n];
    if (x.kind == node_kind::assign && is_member_of(tree, symbols, x.a, root_kind::variable)) {
      return true;
    }
    tree.for_each_child(n, [&](std::int32_t c) { stack.push_back(c); });
  }
  return false;
}

} // namespace emote::molang
