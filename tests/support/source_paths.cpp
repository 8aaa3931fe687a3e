#include "support/source_paths.hpp"

// The one file compiled with the source tree's absolute path (tests/CMakeLists.txt).
namespace emote_sim_test {

std::string source_dir() {
  return EMOTE_SIM_SOURCE_PATH;
}

std::string test_data_dir() {
  return EMOTE_SIM_SOURCE_PATH "/tests/data";
}

} // namespace emote_sim_test
