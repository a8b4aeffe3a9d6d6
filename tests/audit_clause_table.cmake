# SPDX-License-Identifier: MIT
# tests/audit_clause_table.cmake — the clause-table generator (audit/clause_table.cmake) on small specs:
#   cmake -DGENERATOR=audit/clause_table.cmake -DWORK=<dir> -P tests/audit_clause_table.cmake
# A spec's "### X<n> — <statement>" headings become the rows exactly (quotes and backslashes escaped,
# other prefixes, brackets and ';' in the text ignored); a gap in the numbering, a heading without the
# em dash and a spec without clauses fail with a message naming the spec.
file(MAKE_DIRECTORY ${WORK})

function(generate name spec expect_ok)
  file(WRITE ${WORK}/${name}.md "${spec}")
  execute_process(COMMAND ${CMAKE_COMMAND} -DSPEC=${WORK}/${name}.md -DPREFIX=X -DOUT=${WORK}/${name}.inc
                          -P ${GENERATOR}
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(expect_ok AND NOT status EQUAL 0)
    message(FATAL_ERROR "${name}: the generator failed:\n${err}")
  endif()
  if(NOT expect_ok)
    if(status EQUAL 0)
      message(FATAL_ERROR "${name}: a malformed spec was accepted")
    endif()
    if(NOT err MATCHES "${name}.md")
      message(FATAL_ERROR "${name}: the failure does not name the spec:\n${err}")
    endif()
  endif()
endfunction()

generate(good "# Title\n\nText with [brackets]; and a list: a;b.\n\n### X1 — First: a \"quoted\" word\n\nBody.\n\n### Y1 — Another contract's clause\n\n### X2 — Second: a back\\\\slash\n" TRUE)
file(READ ${WORK}/good.inc got)
string(REGEX REPLACE "^//[^\n]*\n" "" got "${got}")
set(want "    {\"X1\", \"First: a \\\"quoted\\\" word\"},\n    {\"X2\", \"Second: a back\\\\\\\\slash\"},\n")
if(NOT got STREQUAL want)
  message(FATAL_ERROR "good: generated\n${got}\nexpected\n${want}")
endif()
generate(gap "### X1 — One\n### X3 — Three\n" FALSE)
generate(dash "### X1 - One, with a hyphen\n" FALSE)
generate(empty "# No clauses here\n" FALSE)
message(STATUS "clause-table generator: right rows for a good spec, refused three malformed ones")
