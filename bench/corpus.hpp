#pragma once
// Where the benchmarks find the real Emote corpus: $ESIM_CORPUS, else ../shared next to the
// repository. Benchmarks that need it skip with an error when it is absent.

#include <cstdlib>
#include <filesystem>

namespace emote::bench {

inline std::filesystem::path corpus_root() {
  if (const char* env = std::getenv("ESIM_CORPUS")) {
    return env;
  }
  return std::filesystem::path(EMOTE_SIM_SOURCE_DIR) / ".." / "shared" / "corpus" /
         "hanhy06-emote";
}

} // namespace emote::bench
