# Writes the shell completions and the man page that `emote-sim completion SHELL` and
# `emote-sim man` print (server/cli_docs.hpp) under OUT (the build's share/ folder).
# cmake -DEMOTE_SIM=BIN -DOUT=DIR -P cmake/generate_cli_docs.cmake
foreach(item IN ITEMS "completion;bash;bash-completion/completions/emote-sim"
                      "completion;zsh;zsh/vendor-completions/_emote-sim"
                      "completion;fish;fish/vendor_completions.d/emote-sim.fish"
                      "man;;man/man1/emote-sim.1")
  list(GET item 0 command)
  list(GET item 1 argument)
  list(GET item 2 file)
  get_filename_component(dir "${OUT}/${file}" DIRECTORY)
  file(MAKE_DIRECTORY "${dir}")
  execute_process(COMMAND "${EMOTE_SIM}" ${command} ${argument} OUTPUT_FILE "${OUT}/${file}.tmp"
                  RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "emote-sim ${command} ${argument} failed (${status})")
  endif()
  file(RENAME "${OUT}/${file}.tmp" "${OUT}/${file}")
endforeach()
