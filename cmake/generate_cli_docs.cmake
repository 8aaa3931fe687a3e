# Writes the shell completions and the man page that `emote-sim completion SHELL` and
# `emote-sim man` print (server/cli/cli_docs.hpp) under OUT (the build's share/ folder).
# cmake -DEMOTE_SIM=BIN -DOUT=DIR -P cmake/generate_cli_docs.cmake
cmake_minimum_required(VERSION 3.25)
function(emote_sim_write file)
  get_filename_component(dir "${OUT}/${file}" DIRECTORY)
  file(MAKE_DIRECTORY "${dir}")
  execute_process(COMMAND "${EMOTE_SIM}" ${ARGN} OUTPUT_FILE "${OUT}/${file}.tmp" RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "emote-sim ${ARGN} failed (${status})")
  endif()
  file(RENAME "${OUT}/${file}.tmp" "${OUT}/${file}")
endfunction()
emote_sim_write(bash-completion/completions/emote-sim completion bash)
emote_sim_write(zsh/vendor-completions/_emote-sim completion zsh)
emote_sim_write(fish/vendor_completions.d/emote-sim.fish completion fish)
emote_sim_write(man/man1/emote-sim.1 man)
