# Runs cmake/check_layering.cmake on the fixture tree tests/layering/ and fails unless it refuses
# every upward include of core/upward_include.h, in each spelling, the front ends that
# app/upward_include.h and python/src/front_end.cpp include, explain/ and train/ from
# alternates/upward_include.h, and nothing else.
#
#   cmake -DPROJECT_DIR=<repo> -DSTAMP=<file> -P tests/layering/expect_refusals.cmake
execute_process(
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_DIR}/tests/layering -DSTAMP=${STAMP}
          -P ${PROJECT_DIR}/cmake/check_layering.cmake
  RESULT_VARIABLE result ERROR_VARIABLE output OUTPUT_VARIABLE output)
if(result EQUAL 0)
  message(FATAL_ERROR "the layering check accepted core/upward_include.h")
endif()
set(expected
    "#include \"train/fit.h\""
    "#  include \"layers/dense.h\""
    "# include <optim/adam.h>"
    "#include \"strand/train.h\""
    "#include <strand/data.h>"
    "#include <strand/layers/sequential.h>")
foreach(line IN LISTS expected)
  string(FIND "${output}" "core/upward_include.h: ${line} (core/ may include only: core)" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the layering check did not refuse '${line}':\n${output}")
  endif()
endforeach()
set(front_ends
    "app/upward_include.h: #include \"cli/command_flags.h\" (app/ may include only"
    "app/upward_include.h: #include <python/src/bindings.h> (app/ may include only"
    "python/src/front_end.cpp: #include \"cli/program.h\" (python/ may include only"
    "alternates/upward_include.h: #include \"explain/fast_ism.h\" (alternates/ may include only"
    "alternates/upward_include.h: #include \"train/fit.h\" (alternates/ may include only")
foreach(refusal IN LISTS front_ends)
  string(FIND "${output}" "${refusal}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the layering check did not refuse '${refusal}':\n${output}")
  endif()
endforeach()
foreach(allowed "<vector>" "\"core/error.h\"" "<fmt/format.h>" "\"app/trained_model.h\""
        "\"train/fit.h\" (python" "\"variants/variant_scorer.h\"" "\"arrays.h\""
        "\"layers/graph.h\"")
  string(FIND "${output}" "${allowed}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "the layering check refused the allowed include ${allowed}:\n${output}")
  endif()
endforeach()
message(STATUS "the layering check refused all 11 upward includes and nothing else")
