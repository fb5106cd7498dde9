# Runs CMD (a ;-list) and fails unless it exits with EXPECTED: for exit codes other than 0 and
# "non-zero", which ctest alone can tell apart. With FILE and TEXTS (a ;-list), FILE must then
# hold every one of TEXTS.
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc STREQUAL "${EXPECTED}")
  message(FATAL_ERROR "expected exit code ${EXPECTED}, got ${rc}\n${out}\n${err}")
endif()
if(FILE)
  file(READ "${FILE}" content)
  foreach(text IN LISTS TEXTS)
    string(FIND "${content}" "${text}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${FILE} does not hold '${text}'")
    endif()
  endforeach()
endif()
message(STATUS "exit code ${rc} as expected\n${err}")
