# cmake -DEMOTE_SIM=<exe> -DSCENARIO=<file.json> -DGOLDEN=<file.ndjson> -DOUT=<prefix>
#       -P check_golden.cmake
# Runs the scenario once, then twice in one process, and requires: every expectation met, the
# first output equal to the golden file byte for byte, the double run equal to the golden twice.
foreach(v EMOTE_SIM SCENARIO GOLDEN OUT)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "check_golden.cmake: -D${v}= is required")
  endif()
endforeach()
get_filename_component(out_dir "${OUT}" DIRECTORY)
file(MAKE_DIRECTORY "${out_dir}")

execute_process(COMMAND "${EMOTE_SIM}" run "${SCENARIO}" --out "${OUT}.ndjson"
                RESULT_VARIABLE rc OUTPUT_VARIABLE summary ERROR_VARIABLE summary)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "emote-sim run failed (exit ${rc}):\n${summary}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${OUT}.ndjson" "${GOLDEN}"
                RESULT_VARIABLE differs)
if(NOT differs EQUAL 0)
  message(FATAL_ERROR "output differs from the golden file:\n  ${OUT}.ndjson\n  ${GOLDEN}\n"
                      "compare them with diff; regenerate deliberately with scripts/regen-golden")
endif()

execute_process(COMMAND "${EMOTE_SIM}" run "${SCENARIO}" "${SCENARIO}" --out "${OUT}.twice.ndjson"
                RESULT_VARIABLE rc OUTPUT_VARIABLE summary ERROR_VARIABLE summary)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "second run failed (exit ${rc}):\n${summary}")
endif()
file(READ "${GOLDEN}" golden_hex HEX)
file(READ "${OUT}.twice.ndjson" twice_hex HEX)
if(NOT twice_hex STREQUAL "${golden_hex}${golden_hex}")
  message(FATAL_ERROR "running the scenario twice in one process did not repeat the golden "
                      "bytes: ${OUT}.twice.ndjson")
endif()
