// STRAND_MPI_CHECK: every MPI call goes through it, so a failure names the call, the source
// location and MPI's own description instead of an error code (communicators use
// MPI_ERRORS_RETURN, so codes come back rather than aborting inside MPI).
#pragma once

// The deprecated MPI C++ bindings are not used; skipping them keeps their warnings out.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#include <mpi.h>

namespace strand::dist {

/// Throws DistError "<call> failed at <file>:<line>: <MPI_Error_string>" unless code is
/// MPI_SUCCESS.
void check_mpi(int code, const char* call, const char* file, int line);

}  // namespace strand::dist

#define STRAND_MPI_CHECK(call) ::strand::dist::check_mpi((call), #call, __FILE__, __LINE__)
