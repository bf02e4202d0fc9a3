#!/bin/sh
# An rsh agent for Open MPI's launcher (`--mca plm_rsh_agent THIS`) that "logs in" to a host by
# entering its network namespace instead of opening an SSH session, so one machine can stand in
# for several hosts (tests/dist/mpi/run_cli_two_hosts.sh). mpirun calls it as it calls ssh:
#   netns_rsh_agent.sh HOST COMMAND...
# and COMMAND (the remote orted's command line) runs under `sh -c` in the namespace mapped to
# HOST by STRAND_NETNS_HOSTS, a space-separated list of HOST=NAMESPACE pairs
# (e.g. "10.213.37.2=strand-b-123"), which mpirun passes on in its environment.
set -u
host=${1:?usage: netns_rsh_agent.sh HOST COMMAND...}
shift
namespace=
for pair in ${STRAND_NETNS_HOSTS:-}; do
  if [ "${pair%%=*}" = "$host" ]; then
    namespace=${pair#*=}
  fi
done
if [ -z "$namespace" ]; then
  echo "netns_rsh_agent.sh: host '$host' has no namespace in STRAND_NETNS_HOSTS='${STRAND_NETNS_HOSTS:-}'" >&2
  exit 255
fi
exec ip netns exec "$namespace" sh -c "$*"
