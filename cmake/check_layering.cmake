# Fails the build when a library file includes a header of a folder above its own, or a front
# end includes the other front end.
#
#   cmake -DSOURCE_DIR=<repo> -DSTAMP=<file> -P cmake/check_layering.cmake
#
# The layers, bottom up (docs/design.md): a folder may include its own headers and those of
# the folders listed for it, nothing else. Sub-folders (kernels/cpu, tensor/cuda) belong to
# their top folder. Above the library sits the application layer (app/), and above it its two
# front ends: the program (cli/) and the Python package (python/), which may include app/ and
# the library but never each other. Every spelling of an include is read: quotes or angle brackets, spaces
# after the '#' or before "include", and the umbrella headers of include/strand/ (an include of
# "strand/train.h" or <strand/train/fit.h> is an include of train/). Other top-level names
# (fmt/, nlohmann/, htslib/) are not checked here.
set(allowed_core core)
set(allowed_kernels core kernels)
set(allowed_io core io)
set(allowed_tensor core kernels tensor)
set(allowed_autograd core kernels tensor autograd)
set(allowed_ops core kernels tensor autograd ops)
set(allowed_data core io data)
set(allowed_layers core kernels tensor autograd ops layers)
set(allowed_optim core kernels tensor autograd ops optim)
set(allowed_dist core kernels tensor autograd ops optim dist)
set(allowed_train core kernels io tensor autograd ops data layers optim dist train)
# The one engine for alternate sequences (ISM's mutants, variants' alt alleles): a model's layers
# and ops only, no training or explanation.
set(allowed_alternates core kernels io tensor autograd ops data layers alternates)
set(allowed_variants core kernels io tensor autograd ops data layers optim dist train alternates
    explain variants)
set(allowed_explain core kernels io tensor autograd ops data layers optim dist train alternates
    explain)
set(allowed_motifs core kernels io tensor autograd ops data layers optim dist train alternates
    explain motifs)
set(allowed_app core kernels io tensor autograd ops data layers optim dist train alternates explain
    variants app)
set(allowed_cli core kernels io tensor autograd ops data layers optim dist train alternates explain
    variants motifs app cli)
set(allowed_python core kernels io tensor autograd ops data layers optim dist train alternates
    explain variants motifs app python)
set(layers core kernels io tensor autograd ops data layers optim dist train alternates explain
    variants motifs app cli python)

# An include line, however spaced; group 1 is the path between its quotes or brackets.
set(include_pattern "^[ \t]*#[ \t]*include[ \t]*[\"<]([^\">]+)[\">]")

set(violations "")
foreach(layer IN LISTS layers)
  file(GLOB_RECURSE files RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/${layer}/*.h
       ${SOURCE_DIR}/${layer}/*.cpp ${SOURCE_DIR}/${layer}/*.cu ${SOURCE_DIR}/${layer}/*.cuh)
  foreach(file IN LISTS files)
    file(STRINGS ${SOURCE_DIR}/${file} includes REGEX "${include_pattern}")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "${include_pattern}.*" "\\1" path "${line}")
      # strand/<folder>.h (an umbrella) and strand/<folder>/... name <folder>.
      string(REGEX REPLACE "^strand/" "" path "${path}")
      string(REGEX REPLACE "^([a-z_]+)(/.*|\\.h)$" "\\1" target "${path}")
      list(FIND layers "${target}" is_layer)
      list(FIND allowed_${layer} "${target}" is_allowed)
      if(is_layer GREATER_EQUAL 0 AND is_allowed LESS 0)
        string(STRIP "${line}" shown)
        string(APPEND violations "\n  ${file}: ${shown} (${layer}/ may include only: "
               "${allowed_${layer}})")
      endif()
    endforeach()
  endforeach()
endforeach()

if(violations)
  message(FATAL_ERROR "upward includes break the layering of docs/design.md:${violations}")
endif()
file(WRITE ${STAMP} "layering ok\n")
