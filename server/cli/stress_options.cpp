#include "server/cli/stress_options.hpp"

#include "server/stress/stress_common.hpp"

#include <cmath>
#include <string_view>

namespace emote::server {

namespace {

constexpr cli_option populated_options_list[] = {
    value_option("players", "N",
                 "populated server: N viewers (protocol 775, view distance 10) walking and\n"
                 "playing Animations, the Engine and the renderer stepped on one thread as\n"
                 "serve steps them (1..100000; docs/guide/performance.md \"Populated server\")"),
    value_option("area", "S",
                 "populated server: the players' square is S x S blocks (default 2000)"),
    value_option("seed", "N", "populated server: the seed of positions, walks and Animations (0)"),
    flag_option("pipelined",
                "populated server: render each tick on a second thread while the Engine runs\n"
                "the next (serve does not; the same packets, one tick later)"),
    flag_option("unread", "populated server: nobody receives packets; the renderer tracks\n"
                          "without building them, as serve does with no packets subscriber"),
};

} // namespace

std::span<const cli_option> populated_cli_options() {
  return populated_options_list;
}

bool populated_selected(const cli_args& args) {
  return args.has("players");
}

std::string parse_populated_options(const cli_args& args, populated_options& o) {
  // The populated mode has its own viewers and packets (render.md §6 entries, one recipient).
  for (const std::string_view other :
       {"instances", "recipients", "wire-protocol", "compression-threshold", "over", "reference",
        "state-digests"}) {
    if (args.has(other)) {
      return "--players cannot be combined with --" + std::string(other);
    }
  }
  if (auto v = args.value("players");
      v && (!stress_common::parse_number(*v, o.players) || o.players < 1 || o.players > 100000)) {
    return "--players must be an integer 1..100000";
  }
  if (auto v = args.value("area"); v && (!stress_common::parse_number(*v, o.area) ||
                                         !std::isfinite(o.area) || o.area < 1 || o.area > 1e6)) {
    return "--area must be a number of blocks 1..1000000";
  }
  if (auto v = args.value("seed"); v && !stress_common::parse_number(*v, o.seed)) {
    return "--seed must be a 64-bit integer";
  }
  o.pipelined = args.has("pipelined"); // render on a second thread, one tick behind
  o.unread = args.has("unread");
  return {};
}

} // namespace emote::server
