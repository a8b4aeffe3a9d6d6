# SPDX-License-Identifier: MIT
# File: cmake/lwcPackage.cmake (included at the end of the top-level CMakeLists.txt)
#
# Install: a relocatable CMake package. Each folder installs its own targets into an export set beside
# them (modules/, contracts/, capi/, draw/ into lwc-targets; audit/ and engines/bullet/ into their own,
# which lwcConfig loads when their dependencies are found); this file writes the package's own files.
# The module interface units are installed as sources (FILE_SET CXX_MODULES), so every consumer compiles
# its own BMIs with its own flags (-fno-exceptions included):
#   find_package(lwc CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE lwc::lwc)      # and lwc::contracts for the checkers
#   import lwc.decompose;
include(CMakePackageConfigHelpers)
install(EXPORT lwc-targets NAMESPACE lwc:: DESTINATION ${LWC_CMAKE_DIR}
        CXX_MODULES_DIRECTORY modules)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/lwcConfig.cmake.in ${PROJECT_BINARY_DIR}/lwcConfig.cmake
                              INSTALL_DESTINATION ${LWC_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/lwcConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/lwcConfig.cmake ${PROJECT_BINARY_DIR}/lwcConfigVersion.cmake
        DESTINATION ${LWC_CMAKE_DIR})
# pkg-config files for every other build system (Make, Meson, by hand): lwc.pc, the header build, and
# lwc-c.pc, the C API (the static archive, the C++ runtime, abseil). Relocatable: the prefix is found
# from the .pc file's own directory (${pcfiledir}, which pkgconf and pkg-config both define).
string(REGEX REPLACE "[^/]+" ".." LWC_PC_TO_PREFIX "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
list(TRANSFORM LWC_ABSL REPLACE "^absl::" "absl_" OUTPUT_VARIABLE LWC_PC_ABSL)
string(JOIN " " LWC_PC_ABSL ${LWC_PC_ABSL})
list(TRANSFORM lwc_cxx_runtime PREPEND "-l" OUTPUT_VARIABLE LWC_PC_CXX_RUNTIME)
string(JOIN " " LWC_PC_CXX_RUNTIME ${LWC_PC_CXX_RUNTIME})
foreach(pc lwc lwc-c)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
