# Sets STRAND_SLP_MISCOMPILES when the compiler's SLP vectorizer miscompiles a plain
# initializer list under `flags` (GCC 12.2 with AVX-512: cmake/probes/slp_initializer_list.cpp,
# found when a test's {1, 1, 1, 0} label mask arrived as {1, 1, 1, 1}).
#
#   check_slp_vectorizer("-O2;-march=native")
function(check_slp_vectorizer flags)
  if(DEFINED STRAND_SLP_MISCOMPILES OR NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    return()
  endif()
  try_run(probe_exit probe_compiled ${CMAKE_BINARY_DIR}/slp_probe
          ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/probes/slp_initializer_list.cpp
          COMPILE_DEFINITIONS ${flags})
  if(probe_compiled AND NOT probe_exit EQUAL 0)
    set(miscompiles ON)
    message(STATUS "strand: this compiler's SLP vectorizer miscompiles initializer lists with "
                   "${flags}; building with -fno-tree-slp-vectorize")
  else()
    set(miscompiles OFF)
  endif()
  set(STRAND_SLP_MISCOMPILES ${miscompiles} CACHE INTERNAL "GCC SLP vectorizer wrong-code probe")
endfunction()
