# Install rules and the Debian package (CPack). `cmake --install BUILD --prefix P` gives:
#   P/bin/emote-sim
#   P/share/emote-sim/viewer/         the browser viewer bundle (scripts/build-viewer puts it in
#                                     BUILD/viewer; emote-sim finds it at ../share/emote-sim/viewer)
#   P/share/emote-sim/config/         the sample configuration and sample emotes (config/)
#   P/etc/emote-sim/                  the configuration (/etc/emote-sim for the prefix /usr): the
#                                     sample with the service's Unix socket added to `listen`
#   P/etc/default/emote-sim           the service's environment file
#   P/lib/systemd/system/emote-sim.service
#   P/share/emote-sim/schemas/        the JSON Schemas (schemas/)
#   P/share/man/man1/emote-sim.1, P/share/{bash-completion,zsh,fish}/...: generated from the CLI table
#   P/share/doc/emote-sim/            README, LICENSE, NOTICE, copyright, the guides and specs
# The Debian package (scripts/package; docs/guide/deployment.md) installs with the prefix /usr.
include(GNUInstallDirs)
# `cmake --install` and CPack do not build the whole tree (tests, benchmarks) first; scripts/package
# builds the executable.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

set(EMOTE_SIM_VIEWER_DIR "${CMAKE_BINARY_DIR}/viewer" CACHE PATH
    "The built browser viewer to install (scripts/build-viewer writes BUILD/viewer)")
option(EMOTE_SIM_REQUIRE_VIEWER "Fail the install when the viewer bundle is not built" OFF)

install(TARGETS emote-sim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

if(EMOTE_SIM_REQUIRE_VIEWER)
  install(CODE "
    if(NOT EXISTS \"${EMOTE_SIM_VIEWER_DIR}/index.html\")
      message(FATAL_ERROR \"the viewer bundle is not built: ${EMOTE_SIM_VIEWER_DIR}/index.html is missing (scripts/build-viewer)\")
    endif()")
endif()
install(DIRECTORY "${EMOTE_SIM_VIEWER_DIR}/" DESTINATION ${CMAKE_INSTALL_DATADIR}/emote-sim/viewer
        OPTIONAL)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/config/ DESTINATION ${CMAKE_INSTALL_DATADIR}/emote-sim/config)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/schemas/ DESTINATION ${CMAKE_INSTALL_DATADIR}/emote-sim/schemas
        FILES_MATCHING PATTERN "*.json")

# Shell completions and the man page, generated from the CLI table by the built executable
# (server/cli/cli_docs.hpp) into BUILD/share; scripts/check-completions (CTest `completions`) checks them.
set(EMOTE_SIM_CLI_DOCS_DIR ${CMAKE_BINARY_DIR}/share)
set(emote_sim_cli_docs
    ${EMOTE_SIM_CLI_DOCS_DIR}/bash-completion/completions/emote-sim
    ${EMOTE_SIM_CLI_DOCS_DIR}/zsh/vendor-completions/_emote-sim
    ${EMOTE_SIM_CLI_DOCS_DIR}/fish/vendor_completions.d/emote-sim.fish
    ${EMOTE_SIM_CLI_DOCS_DIR}/man/man1/emote-sim.1)
add_custom_command(OUTPUT ${emote_sim_cli_docs}
                   COMMAND ${CMAKE_COMMAND} -DEMOTE_SIM=$<TARGET_FILE:emote-sim>
                           -DOUT=${EMOTE_SIM_CLI_DOCS_DIR} -P ${PROJECT_SOURCE_DIR}/cmake/generate_cli_docs.cmake
                   DEPENDS emote-sim ${PROJECT_SOURCE_DIR}/cmake/generate_cli_docs.cmake
                   COMMENT "Generating the shell completions and the man page")
add_custom_target(emote-sim-cli-docs ALL DEPENDS ${emote_sim_cli_docs})
list(GET emote_sim_cli_docs 0 f)
install(FILES ${f} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
list(GET emote_sim_cli_docs 1 f)
install(FILES ${f} DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
list(GET emote_sim_cli_docs 2 f)
install(FILES ${f} DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)
list(GET emote_sim_cli_docs 3 f)
install(FILES ${f} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# The installed configuration: the sample file with the service's Unix socket (the unit's
# RuntimeDirectory) after the loopback TCP address. The first address stays the one `health` uses.
file(READ ${PROJECT_SOURCE_DIR}/config/emote-sim.json emote_sim_sample_config)
set(emote_sim_listen_sample "\"listen\": [\"127.0.0.1:25580\"]")
string(FIND "${emote_sim_sample_config}" "${emote_sim_listen_sample}" emote_sim_listen_at)
if(emote_sim_listen_at EQUAL -1)
  message(FATAL_ERROR "config/emote-sim.json: no `${emote_sim_listen_sample}` to add the service's "
                      "Unix socket to (cmake/install.cmake)")
endif()
string(REPLACE "${emote_sim_listen_sample}"
       "\"listen\": [\"127.0.0.1:25580\", \"unix:/run/emote-sim/emote-sim.sock\"]"
       emote_sim_installed_config "${emote_sim_sample_config}")
file(WRITE ${CMAKE_BINARY_DIR}/packaging/emote-sim.json "${emote_sim_installed_config}")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/config/emote-sim.json)
# The configuration folder is decided when installing, not when configuring: /etc for the prefix
# /usr (the package), else PREFIX/etc (`cmake --install BUILD --prefix DIR`). file(INSTALL) adds
# DESTDIR to it, as CPack's staging uses.
install(CODE "
  if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
    set(emote_sim_etc /etc)
  else()
    set(emote_sim_etc \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_SYSCONFDIR}\")
  endif()
  file(INSTALL \"${CMAKE_BINARY_DIR}/packaging/emote-sim.json\" \"${PROJECT_SOURCE_DIR}/config/emotes\"
       DESTINATION \"\${emote_sim_etc}/emote-sim\")
  file(INSTALL \"${PROJECT_SOURCE_DIR}/packaging/default\" DESTINATION \"\${emote_sim_etc}/default\"
       RENAME emote-sim)")
install(FILES ${PROJECT_SOURCE_DIR}/packaging/emote-sim.service DESTINATION lib/systemd/system)

# Documentation; `copyright` is Debian's machine-readable form of LICENSE.
file(READ ${PROJECT_SOURCE_DIR}/LICENSE emote_sim_license)
string(REGEX REPLACE "\n\n" "\n.\n" emote_sim_license "${emote_sim_license}")
string(REGEX REPLACE "\n([^\n])" "\n \\1" emote_sim_license "${emote_sim_license}")
file(WRITE ${CMAKE_BINARY_DIR}/packaging/copyright
"Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: emote-sim

Files: *
Copyright: 2026 the emote-sim authors
License: Expat
 ${emote_sim_license}
Comment: the third-party components that the package carries (three.js in the viewer bundle,
 the header-only libraries compiled into the executable) and their licences are listed in
 /usr/share/doc/emote-sim/NOTICE.
")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/LICENSE)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/NOTICE
              ${CMAKE_BINARY_DIR}/packaging/copyright ${PROJECT_SOURCE_DIR}/docs/architecture.md
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/emote-sim)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/guide ${PROJECT_SOURCE_DIR}/docs/spec
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/emote-sim)

# ---- the Debian package: emote-sim_<version>_amd64.deb -----------------------------------------
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME emote-sim)
set(CPACK_PACKAGE_VENDOR "the emote-sim authors")
set(CPACK_PACKAGE_CONTACT "emote-sim maintainers <maintainers@emote-sim.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "server-side playback simulator for the Emote mod")
set(CPACK_PACKAGE_DESCRIPTION
    "emote-sim loads the Emote mod's schema-4 Animation and Sequence files, runs a deterministic
tick engine at 20 TPS and speaks an NDJSON socket protocol. It runs as a service next to a
Minecraft server (emote-sim.service), and checks, replays and stress-tests emote content.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Install into the staging folder as DESTDIR with the prefix /usr (whatever the build's
# CMAKE_INSTALL_PREFIX), so /etc lands in /etc.
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION games)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Shared-library dependencies from dpkg-shlibdeps; passwd for useradd in postinst.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "passwd")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "systemd")
# Every file under /etc is a conffile (dpkg keeps an administrator's edits on upgrade).
set(emote_sim_conffiles "/etc/emote-sim/emote-sim.json\n/etc/default/emote-sim\n")
file(GLOB emote_sim_sample_emotes RELATIVE ${PROJECT_SOURCE_DIR}/config
     ${PROJECT_SOURCE_DIR}/config/emotes/*/*.json ${PROJECT_SOURCE_DIR}/config/emotes/*.json)
list(SORT emote_sim_sample_emotes)
foreach(f IN LISTS emote_sim_sample_emotes)
  string(APPEND emote_sim_conffiles "/etc/emote-sim/${f}\n")
endforeach()
file(WRITE ${CMAKE_BINARY_DIR}/packaging/conffiles "${emote_sim_conffiles}")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${CMAKE_BINARY_DIR}/packaging/conffiles ${PROJECT_SOURCE_DIR}/packaging/postinst
    ${PROJECT_SOURCE_DIR}/packaging/prerm ${PROJECT_SOURCE_DIR}/packaging/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_OUTPUT_FILE_PREFIX ${CMAKE_BINARY_DIR}/packages)
include(CPack)
