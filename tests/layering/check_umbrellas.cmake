# Fails unless every umbrella header include/strand/<folder>.h includes every public header of
# <folder>/, sub-folders included (data/simulation/...), so that `#include <strand/ops.h>`
# really gives every op family. The backend folders (cpu/, cuda/) hold kernels and runtime
# pieces that only strand's own sources include, and are not public.
#
#   cmake -DPROJECT_DIR=<repo> -P tests/layering/check_umbrellas.cmake
file(GLOB umbrellas ${PROJECT_DIR}/include/strand/*.h)
set(missing "")
set(checked 0)
foreach(umbrella IN LISTS umbrellas)
  get_filename_component(folder ${umbrella} NAME_WE)
  file(READ ${umbrella} umbrella_text)
  file(GLOB_RECURSE headers RELATIVE ${PROJECT_DIR} ${PROJECT_DIR}/${folder}/*.h)
  foreach(header IN LISTS headers)
    if(header MATCHES "/(cpu|cuda)/")
      continue()
    endif()
    math(EXPR checked "${checked} + 1")
    string(FIND "${umbrella_text}" "#include \"${header}\"" at)
    if(at EQUAL -1)
      string(APPEND missing "\n  include/strand/${folder}.h lacks #include \"${header}\"")
    endif()
  endforeach()
endforeach()
if(missing)
  message(FATAL_ERROR "umbrella headers miss public headers of their folders:${missing}")
endif()
message(STATUS "every umbrella includes its folder's ${checked} public headers")
