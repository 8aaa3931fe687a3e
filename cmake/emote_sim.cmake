# Shared compile settings for every emote-sim target.
#
# Floating point: the specs fix results bit for bit (binary32/binary64, operations in the written
# order), so contraction into FMA and fast-math are off everywhere, and x86-64 uses SSE math.
add_library(emote_options INTERFACE)
target_compile_options(emote_options INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
  -Wno-unused-parameter
  -ffp-contract=off -fno-fast-math
  $<$<STREQUAL:${CMAKE_SYSTEM_PROCESSOR},x86_64>:-msse2 -mfpmath=sse>)
target_include_directories(emote_options INTERFACE ${PROJECT_SOURCE_DIR})
target_compile_features(emote_options INTERFACE cxx_std_20)
target_compile_definitions(emote_options INTERFACE EMOTE_SIM_VERSION="${PROJECT_VERSION}")
if(EMOTE_SIM_FUZZ)
  # Instrument every library for coverage (not only the fuzz targets' own files), so libFuzzer
  # can see into the code under test; the fuzz targets add the fuzzer runtime when linking.
  # pointer-overflow is off: RapidJSON 1.1.0 computes `null + n` before its first allocation.
  target_compile_options(emote_options INTERFACE -fsanitize=fuzzer-no-link,address,undefined
                                                 -fno-sanitize=pointer-overflow
                                                 -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  target_link_options(emote_options INTERFACE -fsanitize=address,undefined)
endif()
if(EMOTE_SIM_SANITIZE)
  target_compile_options(emote_options INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer
                                                 -fno-sanitize-recover=undefined)
  target_link_options(emote_options INTERFACE -fsanitize=address,undefined)
endif()

# emote_module(NAME DEPS...): a static library built from every .cpp under engine/NAME or the
# given folder. Sources are globbed so that modules can grow without touching CMake files.
function(emote_module name dir)
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${dir}/*.cpp)
  if(srcs)
    add_library(emote_${name} STATIC ${srcs})
    target_link_libraries(emote_${name} PUBLIC emote_options ${ARGN})
  else()
    add_library(emote_${name} INTERFACE)
    target_link_libraries(emote_${name} INTERFACE emote_options ${ARGN})
  endif()
endfunction()

# emote_test(NAME DIR LIBS...): one doctest executable per folder of tests, registered with CTest.
function(emote_test name dir)
  file(GLOB srcs CONFIGURE_DEPENDS ${dir}/*.cpp)
  if(NOT srcs)
    return()
  endif()
  add_executable(test_${name} ${srcs} ${PROJECT_SOURCE_DIR}/tests/support/doctest_main.cpp)
  target_link_libraries(test_${name} PRIVATE doctest::doctest emote_test_support ${ARGN})
  # EMOTE_SIM_SOURCE_DIR and EMOTE_SIM_TEST_DATA (std::string, read at run time so that no object
  # depends on the checkout's path: tests/support/source_paths.hpp).
  target_compile_options(test_${name} PRIVATE
    -include ${PROJECT_SOURCE_DIR}/tests/support/source_paths.hpp)
  add_test(NAME ${name} COMMAND test_${name} --no-version=true)
  set_tests_properties(${name} PROPERTIES TIMEOUT 600)
endfunction()
