#pragma once
// The source tree's paths for the tests, read at run time from one compiled file
// (source_paths.cpp) rather than spelled into every test: no test's object then depends on where
// the tree is checked out, so a compiler cache shares them between checkouts (CMakeLists.txt).
// Every test file gets this header through the compiler's -include (cmake/emote_sim.cmake).
#include <string>

namespace emote_sim_test {
std::string source_dir();    // the repository's root
std::string test_data_dir(); // tests/data
} // namespace emote_sim_test

#define EMOTE_SIM_SOURCE_DIR (::emote_sim_test::source_dir())
#define EMOTE_SIM_TEST_DATA (::emote_sim_test::test_data_dir())
