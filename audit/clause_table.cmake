# SPDX-License-Identifier: MIT
# audit/clause_table.cmake — one contract's clause table, generated from its spec at build time:
#   cmake -DSPEC=docs/<c>.md -DPREFIX=D -DOUT=<dir>/<c>.inc -P audit/clause_table.cmake
# Every heading "### <PREFIX><n> — <statement>" of SPEC becomes the row {"<PREFIX><n>", "<statement>"},
# in order; audit/contracts/<c>.cc includes the rows into its kClauses. Fails, and so fails the build,
# when SPEC has no such heading, a heading is not of that form, or the ids are not 1, 2, 3, ... in order.
if(NOT DEFINED SPEC OR NOT DEFINED PREFIX OR NOT DEFINED OUT)
  message(FATAL_ERROR "usage: cmake -DSPEC=docs/<c>.md -DPREFIX=<letter> -DOUT=<file> -P clause_table.cmake")
endif()
# Only the heading lines are read: a list of whole lines (brackets or ';' elsewhere in the spec would
# otherwise split or join list elements).
file(STRINGS ${SPEC} lines REGEX "^### ${PREFIX}[0-9]" ENCODING UTF-8)
set(out "// Generated from ${SPEC} by audit/clause_table.cmake at build time: edit the spec, not this file.\n")
set(n 0)
foreach(line IN LISTS lines)
  if(line MATCHES "[][;]")
    message(FATAL_ERROR "${SPEC}: a clause heading holds '[', ']' or ';', which the generator cannot carry: ${line}")
  endif()
  if(NOT line MATCHES "^### (${PREFIX}([0-9]+)) — (.+)$")
    message(FATAL_ERROR "${SPEC}: a clause heading is not '### ${PREFIX}<n> — <statement>': ${line}")
  endif()
  set(id "${CMAKE_MATCH_1}")
  set(number "${CMAKE_MATCH_2}")
  set(statement "${CMAKE_MATCH_3}")
  math(EXPR n "${n} + 1")
  if(NOT number EQUAL n)
    message(FATAL_ERROR "${SPEC}: clause ${id} where ${PREFIX}${n} is due (clauses are numbered 1, 2, 3, ... in order)")
  endif()
  string(REPLACE "\\" "\\\\" statement "${statement}")
  string(REPLACE "\"" "\\\"" statement "${statement}")
  string(APPEND out "    {\"${id}\", \"${statement}\"},\n")
endforeach()
if(n EQUAL 0)
  message(FATAL_ERROR "${SPEC}: no clause heading '### ${PREFIX}1 — ...'")
endif()
file(WRITE ${OUT}.new "${out}")
file(COPY_FILE ${OUT}.new ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.new)
