# SPDX-License-Identifier: MIT
# File: cmake/lwcEvidence.cmake (included by the top-level CMakeLists.txt)
#
# The fixed layout of a contract's evidence across tests/, properties/, fuzz/, bench/ and proofs/, and the
# one line that adds a contract (lwc_add_contract). The functions take every path from PROJECT_SOURCE_DIR
# and put every program and test where the top-level directory did (build/<preset>/, run there), so they
# may be called from any directory: scripts run build/<preset>/<c>_test, build/<preset>/properties/... .

set(LWC_FUZZ_DIR ${PROJECT_SOURCE_DIR}/fuzz)

# The layout decides what is built (lwc_add_evidence tests EXISTS): re-run CMake whenever a file appears
# in, or leaves, one of the evidence folders, so a new test or property is never silently skipped.
file(GLOB lwc_layout CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/tests/*.cc ${PROJECT_SOURCE_DIR}/properties/*.cc
     ${PROJECT_SOURCE_DIR}/fuzz/*.cc ${PROJECT_SOURCE_DIR}/bench/*.cc)

# CTest labels, so that `ctest --preset dev -L property` (or -LE exhaustive) selects by kind:
#   unit        tests/<c>_test.cc (GoogleTest: examples and named regressions)
#   property    properties/<c>_props.cc and the in-process audit example (RapidCheck, LWC_RC_PARAMS)
#   exhaustive  the quick part of tests/<c>_exhaustive.cc (every input in the small scope)
#   replay      fuzz/<c>_fuzzer.cc replaying its committed corpus and past crashes
#   example     examples/: the open-world frame loop and the in-process engine audit
#   cli         the lwc-audit command line on the committed traces
#   engine      every test that needs neither exceptions nor RTTI: what the engine preset builds and runs
#               (all but RapidCheck's), so `ctest --preset dev -L engine` is that set under the sanitizers
#   threads     the tests and properties of LWC_THREADED_EVIDENCE, which run lwc on several threads (tsan)
set(LWC_RC_ENVIRONMENT "RC_PARAMS=string_prepend:${LWC_RC_PARAMS} ")
# gtest_discover_tests hands its PROPERTIES to set_tests_properties through a generated script, so a list
# value (two labels) has its ';' escaped there.

# lwc_add_evidence(NAME [LIBRARY...])
#
# The evidence of NAME from the fixed layout: whichever of tests/NAME_test.cc, properties/NAME_props.cc,
# fuzz/NAME_fuzzer.cc and bench/NAME_bench.cc exist, each linked with lwc, lwc_contracts and LIBRARY...
function(lwc_add_evidence name)
  set(src ${PROJECT_SOURCE_DIR})
  set(run ${CMAKE_BINARY_DIR})  # where the tests run and the test programs are, from any calling directory
  set(libs lwc lwc_contracts ${ARGN})
  if(LWC_EVIDENCE AND NOT name IN_LIST LWC_EVIDENCE)
    return()
  endif()
  # The evidence that runs lwc's code on several threads also carries the label `threads`.
  set(threads "")
  if(name IN_LIST LWC_THREADED_EVIDENCE)
    set(threads "\\;threads")
  endif()

  if(LWC_BUILD_TESTS AND EXISTS ${src}/tests/${name}_test.cc)
    add_executable(${name}_test ${src}/tests/${name}_test.cc)
    target_link_libraries(${name}_test PRIVATE ${libs} GTest::gtest_main GTest::gmock lwc_warnings)
    set_target_properties(${name}_test PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${run})
    gtest_discover_tests(${name}_test DISCOVERY_MODE PRE_TEST TEST_PREFIX "tests/" WORKING_DIRECTORY ${run}
                         PROPERTIES LABELS "unit\\;engine${threads}")
  endif()

  if(LWC_BUILD_EXHAUSTIVE AND EXISTS ${src}/tests/${name}_exhaustive.cc)
    # Every input in the small scope. CTest runs the quick part, the suites named *Int8* or *Quick* but
    # not *Slow* (seconds under ASan); `./lwc audit` runs the binary whole (optimised).
    add_executable(${name}_exhaustive ${src}/tests/${name}_exhaustive.cc)
    target_link_libraries(${name}_exhaustive PRIVATE ${libs} GTest::gtest_main lwc_warnings)
    set_target_properties(${name}_exhaustive PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/exhaustive)
    if(LWC_BUILD_TESTS)
      add_test(NAME exhaustive/${name}_quick COMMAND ${name}_exhaustive --gtest_filter=*Int8*:*Quick*-*Slow*
               WORKING_DIRECTORY ${run})
      set_tests_properties(exhaustive/${name}_quick PROPERTIES LABELS "exhaustive;engine")
    endif()
  endif()

  if(LWC_BUILD_PROPERTIES AND EXISTS ${src}/properties/${name}_props.cc)
    add_executable(${name}_props ${src}/properties/${name}_props.cc)
    target_link_libraries(${name}_props PRIVATE ${libs} lwc_property_support GTest::gtest_main lwc_warnings)
    set_target_properties(${name}_props PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/properties)
    gtest_discover_tests(${name}_props DISCOVERY_MODE PRE_TEST TEST_PREFIX "properties/" WORKING_DIRECTORY ${run}
                         PROPERTIES LABELS "property${threads}" ENVIRONMENT_MODIFICATION "${LWC_RC_ENVIRONMENT}")
  endif()

  if(EXISTS ${src}/fuzz/${name}_fuzzer.cc)
    if(LWC_BUILD_FUZZERS)
      add_executable(${name}_fuzzer ${src}/fuzz/${name}_fuzzer.cc)
      target_link_libraries(${name}_fuzzer PRIVATE ${libs} lwc_warnings)
      separate_arguments(engine UNIX_COMMAND "${LWC_FUZZ_ENGINE}")
      target_link_options(${name}_fuzzer PRIVATE ${engine})
      set_target_properties(${name}_fuzzer PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fuzz)
    elseif(LWC_BUILD_TESTS)
      # Without libFuzzer, the target replays its committed corpus (and every past crash) as a test.
      add_executable(${name}_fuzzer_replay ${src}/fuzz/${name}_fuzzer.cc ${src}/fuzz/replay_main.cc)
      target_link_libraries(${name}_fuzzer_replay PRIVATE ${libs} lwc_warnings)
      set_target_properties(${name}_fuzzer_replay PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${run})
      add_test(NAME fuzz/${name}_corpus_replay
               COMMAND ${name}_fuzzer_replay ${LWC_FUZZ_DIR}/corpus/${name}_fuzzer WORKING_DIRECTORY ${run})
      set_tests_properties(fuzz/${name}_corpus_replay PROPERTIES LABELS "replay;engine")
    endif()
  endif()

  if(LWC_BUILD_PROOFS AND EXISTS ${src}/proofs/${name}_proof.cc)
    # The proofs include the kernels' header only (no module import), so they need none of the tree's
    # language flags; sanitizers are off for them (the solver, not our code, is what runs).
    add_executable(${name}_proof ${src}/proofs/${name}_proof.cc)
    target_include_directories(${name}_proof PRIVATE ${src}/proofs ${src}/modules ${LWC_Z3_INCLUDE})
    target_link_libraries(${name}_proof PRIVATE ${LWC_Z3_LIBRARY} lwc_warnings)
    target_compile_options(${name}_proof PRIVATE -fno-sanitize=all -O1)
    target_link_options(${name}_proof PRIVATE -fno-sanitize=all)
    set_target_properties(${name}_proof PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/proofs)
    add_test(NAME proofs/${name} COMMAND ${name}_proof --json ${CMAKE_BINARY_DIR}/proofs/${name}.json
             WORKING_DIRECTORY ${run})
    set_tests_properties(proofs/${name} PROPERTIES LABELS proof TIMEOUT 600)
  endif()

  if(LWC_BUILD_BENCH AND EXISTS ${src}/bench/${name}_bench.cc)
    add_executable(${name}_bench ${src}/bench/${name}_bench.cc)
    target_link_libraries(${name}_bench PRIVATE ${libs} lwc_bench_main lwc_warnings)
    set_target_properties(${name}_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
  endif()
endfunction()

# lwc_add_contract(NAME)
#
# Adds contract NAME from the fixed layout: modules/NAME.cppm (+ partitions in modules/NAME/) to lwc
# (modules/CMakeLists.txt), contracts/NAME.cppm (+ partitions in contracts/NAME/) to lwc_contracts
# (contracts/CMakeLists.txt), and its evidence (lwc_add_evidence). A new contract is one call in the
# top-level CMakeLists.txt (scripts/mutants.py reads those lines: one contract per line).
function(lwc_add_contract name)
  set(src ${PROJECT_SOURCE_DIR})
  file(GLOB partitions CONFIGURE_DEPENDS ${src}/modules/${name}/*.cppm)
  target_sources(lwc PUBLIC FILE_SET CXX_MODULES FILES ${src}/modules/${name}.cppm ${partitions})
  file(GLOB contract_partitions CONFIGURE_DEPENDS ${src}/contracts/${name}/*.cppm)
  target_sources(lwc_contracts PUBLIC FILE_SET CXX_MODULES FILES ${src}/contracts/${name}.cppm ${contract_partitions})
  lwc_add_evidence(${name})
endfunction()
