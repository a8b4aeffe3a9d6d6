# SPDX-License-Identifier: MIT
# cmake -DBUILD=<build tree> -DSTAGE=<dir> -P install.cmake: install BUILD into STAGE/install, then move it
# to STAGE/moved, where the package tests consume it (a relocatable package works wherever it is unpacked).
file(REMOVE_RECURSE ${STAGE}/install ${STAGE}/moved)
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${STAGE}/install
                OUTPUT_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install ${BUILD} failed (${rc})")
endif()
file(RENAME ${STAGE}/install ${STAGE}/moved)
message(STATUS "installed ${BUILD} and moved it to ${STAGE}/moved")
