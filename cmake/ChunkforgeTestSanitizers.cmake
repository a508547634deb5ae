# Included at the end of tests/CMakeLists.txt: what the sanitizer runs of
# scripts/check-sanitizers need from the test definitions.
#
# 1. The label `server` on every test of an executable that talks to the server or the SDK:
#    one linking chunkforge::server or chunkforge::client, or starting the server binary
#    (CHUNKFORGE_SERVER). The TSan run selects them with `ctest -L server`. It is derived from
#    the targets rather than listed, so a new server test executable is in the TSan run without
#    anyone remembering to label it. gtest_discover_tests adds its tests only when ctest runs,
#    so the labels are set by an include file that ctest reads after the discovered lists.
#    The target server_test_executables builds exactly those executables (and, through their
#    dependencies, the binaries they start): the TSan run builds nothing else.
get_property(chunkforge_test_targets DIRECTORY PROPERTY BUILDSYSTEM_TARGETS)
set(chunkforge_labels_script "")
add_custom_target(server_test_executables)
foreach(target IN LISTS chunkforge_test_targets)
  get_target_property(type ${target} TYPE)
  get_target_property(libs ${target} LINK_LIBRARIES)
  get_target_property(defs ${target} COMPILE_DEFINITIONS)
  if(type STREQUAL "EXECUTABLE" AND ("${libs}" MATCHES "chunkforge::(server|client)"
                                     OR "${defs}" MATCHES "CHUNKFORGE_SERVER="))
    string(APPEND chunkforge_labels_script
      "foreach(t IN LISTS ${target}_TESTS)\n  set_tests_properties(\"\${t}\" PROPERTIES LABELS server)\nendforeach()\n")
    add_dependencies(server_test_executables ${target})
  endif()
endforeach()
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/chunkforge_test_labels.cmake "${chunkforge_labels_script}")
set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${CMAKE_CURRENT_BINARY_DIR}/chunkforge_test_labels.cmake)

# 2. The installed-package tests build an out-of-tree project against our instrumented static
#    libraries, so that project must compile and link with the same sanitizers (CMake takes
#    CXXFLAGS and LDFLAGS from the environment on a first configure).
foreach(consumer IN ITEMS lib.installed_package_consumer client_sdk.installed_package_consumer)
  if(CHUNKFORGE_SANITIZE AND TEST ${consumer})
    set_tests_properties(${consumer} PROPERTIES ENVIRONMENT
      "CXXFLAGS=-fsanitize=${CHUNKFORGE_SANITIZE} -fno-omit-frame-pointer;LDFLAGS=-fsanitize=${CHUNKFORGE_SANITIZE}")
  endif()
endforeach()
