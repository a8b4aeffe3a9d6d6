# SPDX-License-Identifier: MIT
# The audit's page of one trace, written at build time: lwc-audit [OPTIONS] --html PAGE TRACE. The example
# traces violate clauses on purpose, so exit 1 (violations) is expected; 2 (unreadable) fails the build.
#   cmake -DAUDIT=lwc-audit -DTRACE=trace.jsonl -DPAGE=page.html [-DOPTIONS=--canonicalise] -P audit_page.cmake
execute_process(COMMAND ${AUDIT} ${OPTIONS} --html ${PAGE} ${TRACE} RESULT_VARIABLE status OUTPUT_QUIET)
if(NOT status EQUAL 0 AND NOT status EQUAL 1)
  message(FATAL_ERROR "lwc-audit --html ${PAGE} ${TRACE} exited with ${status}")
endif()
