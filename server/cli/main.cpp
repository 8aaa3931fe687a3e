// emote-sim: the command-line entry point; dispatches to the subcommands of
// server/cli/commands.hpp.
#include "server/cli/cli_args.hpp"
#include "server/cli/commands.hpp"
#include "server/host/build_info.hpp"

#include <cstdio>
#include <exception>
#include <new>
#include <string_view>
#include <vector>

namespace emote::server {
namespace {

void print_help(std::FILE* out) {
  std::fprintf(out, "emote-sim %s: a server-side playback simulator for the Emote mod\n\n",
               EMOTE_SIM_VERSION);
  std::fprintf(out, "usage: emote-sim COMMAND [ARGS...]\n\ncommands:\n");
  for (const auto& c : command_table()) {
    std::fprintf(out, "  %s\n", cli_synopsis(c.cli()).c_str());
  }
  std::fprintf(out, "  --version | --help | COMMAND --help\n");
}

int run(std::span<const std::string_view> args) {
  if (args.empty()) {
    print_help(stderr);
    return 2;
  }
  if (args[0] == "--version") {
    const std::string_view build = emote::server::build_id();
    std::printf("emote-sim %s (build %.*s)\n", EMOTE_SIM_VERSION, static_cast<int>(build.size()),
                build.data());
    return 0;
  }
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_help(stdout);
    return 0;
  }
  for (const auto& c : command_table()) {
    if (c.cli().name == args[0]) {
      return c.run(args.subspan(1));
    }
  }
  std::fprintf(stderr, "emote-sim: unknown command '%.*s' (see emote-sim --help)\n",
               static_cast<int>(args[0].size()), args[0].data());
  return 2;
}

} // namespace
} // namespace emote::server

int main(int argc, char** argv) {
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  // Whatever escapes a command (out of memory, a filesystem error, a bug) ends the process with a
  // message and a failure status instead of std::terminate's abort.
  try {
    return emote::server::run(args);
  } catch (const std::bad_alloc&) {
    std::fputs("emote-sim: out of memory\n", stderr);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "emote-sim: internal error: %s\n", e.what());
  } catch (...) {
    std::fputs("emote-sim: internal error: unknown exception\n", stderr);
  }
  return 70; // EX_SOFTWARE
}
