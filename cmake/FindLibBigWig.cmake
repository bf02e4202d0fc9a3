# FindLibBigWig: libBigWig (https://github.com/dpryan79/libBigWig; Debian libbigwig-dev), which
# ships neither a pkg-config file nor a CMake package.
#
# Defines the imported target LibBigWig::LibBigWig and LibBigWig_FOUND. Its header includes
# <curl/curl.h> (libcurl4-gnutls-dev, which libhts-dev already pulls in); the shared library
# links curl, zlib and libm itself. Hints: LibBigWig_ROOT or CMAKE_PREFIX_PATH.
find_path(LibBigWig_INCLUDE_DIR bigWig.h)
find_library(LibBigWig_LIBRARY BigWig)
mark_as_advanced(LibBigWig_INCLUDE_DIR LibBigWig_LIBRARY)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(LibBigWig
  REQUIRED_VARS LibBigWig_LIBRARY LibBigWig_INCLUDE_DIR
  REASON_FAILURE_MESSAGE "install libBigWig (Debian: apt-get install libbigwig-dev)")

if(LibBigWig_FOUND AND NOT TARGET LibBigWig::LibBigWig)
  add_library(LibBigWig::LibBigWig UNKNOWN IMPORTED)
  set_target_properties(LibBigWig::LibBigWig PROPERTIES
    IMPORTED_LOCATION "${LibBigWig_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${LibBigWig_INCLUDE_DIR}")
endif()
