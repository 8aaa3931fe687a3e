// emote-sim: the command-line entry point.
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--version") == 0) {
    std::printf("emote-sim %s\n", EMOTE_SIM_VERSION);
    return 0;
  }
  std::fprintf(stderr, "usage: emote-sim --version\n");
  return 2;
}
