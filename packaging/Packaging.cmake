# Installation layout and the Debian package (CPack). Included last by the top-level
# CMakeLists.txt, when every target exists.
#
#   bin/terrabit, bin/terrabit-cli
#   share/terrabit/resources/     maps, rules, assets, projects, icons (found relative to the
#                                 executables: core/io/resource_paths.h)
#   share/applications, share/metainfo, share/icons, share/mime/packages: desktop integration
#   share/man/man1/terrabit-cli.1.gz, share/doc/terrabit/copyright
include(GNUInstallDirs)

set(TERRABIT_APP_ID io.github.terrabit.Terrabit)
set(TERRABIT_LINUX_DIR ${CMAKE_CURRENT_LIST_DIR}/linux)

install(TARGETS terrabit-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET terrabit)
  install(TARGETS terrabit RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/resources/ DESTINATION ${CMAKE_INSTALL_DATADIR}/terrabit/resources)
install(FILES ${TERRABIT_LINUX_DIR}/${TERRABIT_APP_ID}.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${TERRABIT_LINUX_DIR}/${TERRABIT_APP_ID}.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
install(FILES ${TERRABIT_LINUX_DIR}/${TERRABIT_APP_ID}.mime.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages
        RENAME ${TERRABIT_APP_ID}.xml)
install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/terrabit.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps RENAME ${TERRABIT_APP_ID}.svg)
install(FILES ${TERRABIT_LINUX_DIR}/copyright DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/terrabit)

# The man page of terrabit-cli, made by help2man from the tool's own --help and every
# subcommand's, so it never drifts from the code.
find_program(TERRABIT_HELP2MAN help2man REQUIRED)
set(TERRABIT_MAN_PAGE ${CMAKE_BINARY_DIR}/man/terrabit-cli.1.gz)
add_custom_command(
  OUTPUT ${TERRABIT_MAN_PAGE}
  COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:terrabit-cli> -DHELP2MAN=${TERRABIT_HELP2MAN}
          -DVERSION=${PROJECT_VERSION} -DOUT=${TERRABIT_MAN_PAGE} -P ${CMAKE_CURRENT_LIST_DIR}/make-man-page.cmake
  DEPENDS terrabit-cli ${CMAKE_CURRENT_LIST_DIR}/make-man-page.cmake
  COMMENT "Writing the terrabit-cli man page")
add_custom_target(terrabit_man_page ALL DEPENDS ${TERRABIT_MAN_PAGE})
install(FILES ${TERRABIT_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME terrabit)
set(CPACK_PACKAGE_VENDOR "The Terrabit team")
set(CPACK_PACKAGE_CONTACT "The Terrabit team <team@terrabit.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "turn real map data into game scenes")
set(CPACK_PACKAGE_DESCRIPTION
    "Terrabit reads OpenStreetMap extracts, GeoPackages, Shapefiles, GeoJSON and vector tiles, \
cuts them into quadkey tiles and scan-converts each tile into bit layers. Prefab buildings are \
fitted to real footprints, vegetation is scattered by seeded rules, collision probes answer \
against the same bits, and scenes export to glTF, 3D Tiles, OSG and a runtime collision grid. \
The package holds the desktop app (terrabit) and the batch tool (terrabit-cli).")
set(CPACK_PACKAGE_HOMEPAGE_URL "https://github.com/terrabit/terrabit")
set(CPACK_PACKAGE_INSTALL_DIRECTORY terrabit)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION graphics)
# Shared-library dependencies come from dpkg-shlibdeps; the run-time plugins it cannot see are
# listed by hand: Qt's xcb platform plugin and SVG icon engine, and osgDB's writers.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins, libqt6svg6, gdal-data")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "openscenegraph")
include(CPack)
