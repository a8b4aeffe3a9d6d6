# SPDX-License-Identifier: MIT
# tests/audit_cli.cmake — runs lwc-audit on one trace as a user would and checks its exit status and output.
#   cmake -DAUDIT=lwc-audit -DTRACE=file.jsonl -DEXPECT=status -DMIGRATE=out.jsonl [-DROWS=regex|...] -P audit_cli.cmake
# With status 1 the migration file must hold one line per "stored" record the report counts as migrated
# (and be empty for traces without stored records); with 0 the report must say "clean". Each regex of ROWS
# must match a line of the report (a clause's row: contract, id, records checked, violations).
file(REMOVE ${MIGRATE})
# Both spellings of the trace: positional, and `--trace TRACE` (as `./lwc audit --trace` passes it) for
# the traces with violations.
set(trace_args ${TRACE})
if(EXPECT EQUAL 1)
  set(trace_args --trace ${TRACE})
endif()
execute_process(COMMAND ${AUDIT} --migrate ${MIGRATE} ${trace_args}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL EXPECT)
  message(FATAL_ERROR "lwc-audit ${TRACE}: exit ${status}, expected ${EXPECT}\n${out}${err}")
endif()
if(EXPECT EQUAL 0 AND NOT out MATCHES "result: clean \\(exit 0\\)")
  message(FATAL_ERROR "no clean verdict:\n${out}")
endif()
if(EXPECT EQUAL 1)
  if(NOT out MATCHES "result: VIOLATIONS \\(exit 1\\)")
    message(FATAL_ERROR "no violation verdict:\n${out}")
  endif()
  string(REGEX MATCH "migration: ([0-9]+) lines written" line "${out}")
  set(reported "${CMAKE_MATCH_1}")
  file(STRINGS ${MIGRATE} written)
  list(LENGTH written count)
  if(NOT count EQUAL reported)
    message(FATAL_ERROR "the report counts ${reported} migrations but ${MIGRATE} holds ${count} lines")
  endif()
  foreach(m IN LISTS written)
    if(NOT m MATCHES "^{\"schema\":1,\"line\":[0-9]+,\"contract\":\"decompose\",\"op\":\"stored\",.*\"from\":.*\"to\":")
      message(FATAL_ERROR "not a migration line: ${m}")
    endif()
  endforeach()
endif()
if(EXPECT EQUAL 2 AND NOT err MATCHES "cannot open")
  message(FATAL_ERROR "no reason given for exit 2:\n${out}${err}")
endif()
string(REPLACE "|" ";" rows "${ROWS}")
foreach(row IN LISTS rows)
  if(NOT out MATCHES "${row}")
    message(FATAL_ERROR "no row matching '${row}' in the report:\n${out}")
  endif()
endforeach()
message(STATUS "lwc-audit ${TRACE}: exit ${status} as expected")
