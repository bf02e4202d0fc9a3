#!/usr/bin/env bash
# Data-parallel `strand train` across two "hosts" on one machine: two network namespaces joined
# by a veth pair, Open MPI over TCP only (`--mca pml ob1 --mca btl tcp,self`, on the veth subnet),
# mpirun in namespace A starting rank 0 there and the orted of rank 1 in namespace B through an
# rsh agent that enters the namespace (netns_rsh_agent.sh) where a cluster would use ssh.
# Nothing crosses between the ranks but TCP over the veth: no shared memory, no loopback.
#
#  1. A long run; once epoch 1's checkpoint exists and a step of the next epoch is logged,
#     rank 1's strand process (in namespace B) gets SIGKILL. The job must end within 60 s,
#     non-zero, with mpirun naming the killed rank, and leave no process in either namespace.
#  2. `strand train --resume` of that run, under the same two-namespace mpirun, to E epochs
#     (2 past the checkpoint's), must finish.
#  3. An uninterrupted two-namespace run and a one-host run (`mpirun -np 2`, shared memory) of
#     E epochs. Both and the resumed run must log the same steps.csv byte for byte, and the
#     same metrics.csv (timing columns aside): the transport changes nothing, and a resumed
#     mirrored run repeats the uninterrupted steps (docs/data_parallel.md).
#  4. A network partition: namespace B's end of the veth goes down mid-run (no process dies,
#     no connection closes). Both ranks must end within 60 s, rank 0 through its collective
#     watchdog (STRAND_DIST_TIMEOUT_S=5).
#
# Skipped ("[strand-skip]") where namespaces cannot be made: not root, no `ip`, no
# CAP_NET_ADMIN or CAP_SYS_ADMIN (`ip netns exec` mounts /sys), or an MPI that is not Open MPI.
#
# Usage: run_cli_two_hosts.sh MPIEXEC STRAND_EXE   (registered in tests/CMakeLists.txt)
set -uo pipefail

mpiexec=${1:?usage: run_cli_two_hosts.sh MPIEXEC STRAND_EXE}
strand=${2:?usage: run_cli_two_hosts.sh MPIEXEC STRAND_EXE}
here=$(cd "$(dirname "$0")" && pwd)
export OMP_NUM_THREADS=1
kill_wait_s=60

skip() {
  echo "[strand-skip] $*"
  exit 0
}
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

[[ $(id -u) -eq 0 ]] || skip "not root: network namespaces need CAP_NET_ADMIN"
command -v ip >/dev/null || skip "no 'ip' command (iproute2)"
"$mpiexec" --version 2>&1 | grep -Eq "Open MPI|OpenRTE" ||
  skip "$mpiexec is not Open MPI's: the rsh agent and the btl options are Open MPI's"

work=$(mktemp -d "${TMPDIR:-/tmp}/strand_two_hosts.XXXXXX")
suffix="$$-$RANDOM"
ns_a="strand-a-$suffix"
ns_b="strand-b-$suffix"
# The subnet exists only inside the two new namespaces, so it cannot clash with the host's.
subnet=10.213.37.0/24
host_a=10.213.37.1
host_b=10.213.37.2

# Every process left in a namespace is one of this script's jobs: end them, then the
# namespaces (the veth pair goes with them).
cleanup() {
  local ns pid
  for ns in "$ns_a" "$ns_b"; do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
    ip netns del "$ns" 2>/dev/null
  done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ip netns add "$ns_a" 2>"$work/netns.err" ||
  skip "cannot create a network namespace: $(cat "$work/netns.err")"
ip netns add "$ns_b" 2>"$work/netns.err" || fail "ip netns add $ns_b: $(cat "$work/netns.err")"
ip netns exec "$ns_a" true 2>"$work/netns.err" ||
  skip "cannot enter a network namespace (ip netns exec): $(cat "$work/netns.err")"
ip -n "$ns_a" link add veth0 type veth peer name veth1 netns "$ns_b" 2>"$work/netns.err" ||
  skip "cannot create a veth pair: $(cat "$work/netns.err")"
ip -n "$ns_a" link set lo up && ip -n "$ns_b" link set lo up &&
  ip -n "$ns_a" addr add "$host_a/24" dev veth0 && ip -n "$ns_b" addr add "$host_b/24" dev veth1 &&
  ip -n "$ns_a" link set veth0 up && ip -n "$ns_b" link set veth1 up ||
  fail "could not configure the veth pair"

# mpirun runs the agent as it would run ssh; a copy, so that its mode bit is certain.
cp "$here/netns_rsh_agent.sh" "$work/rsh_agent" && chmod +x "$work/rsh_agent"
export STRAND_NETNS_HOSTS="$host_a=$ns_a $host_b=$ns_b"
printf '%s slots=1\n%s slots=1\n' "$host_a" "$host_b" >"$work/hosts"

# `strand train ARGS` on rank 0 in namespace A and rank 1 in namespace B. pml ob1 makes MPI's
# point-to-point layer use the BTLs named (UCX or libfabric, where built in, would pick their
# own transports, shared memory included). The two "hosts" share this machine's cores, so no
# binding (each would bind its rank to its own core 0).
two_hosts() {
  ip netns exec "$ns_a" "$mpiexec" --allow-run-as-root -np 2 --hostfile "$work/hosts" \
    --map-by node --bind-to none --display-map \
    --mca plm_rsh_agent "$work/rsh_agent" \
    --mca pml ob1 --mca btl tcp,self \
    --mca btl_tcp_if_include "$subnet" --mca oob_tcp_if_include "$subnet" \
    -x OMP_NUM_THREADS "${forward[@]}" "$strand" train "$@"
}
forward=()  # more -x VARIABLE options
one_host() {
  "$mpiexec" --allow-run-as-root --oversubscribe -np 2 "$strand" train "$@"
}
tiny=(--n-pos 300 --n-neg 300 --length 100 --validation 100 --test 100 --no-early-stopping
      --threads 1 --batch-size 32 --tensorboard-every 0 --run-name dp)

# The strand processes of namespace $1, one PID a line.
ranks_in() {
  local pid
  for pid in $(ip netns pids "$1" 2>/dev/null); do
    [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == strand ]] && echo "$pid"
  done
}
lines() { if [[ -f "$1" ]]; then grep -c . "$1"; else echo 0; fi; }
# Polls `$2...` every 50 ms until it succeeds; fails naming $1 when job $job (logging to
# $job_log) has ended or 60 s have passed first.
await() {
  local what=$1 deadline=$((SECONDS + 60))
  shift
  until "$@"; do
    kill -0 "$job" 2>/dev/null || { cat "$job_log"; fail "the job ended before $what"; }
    ((SECONDS < deadline)) || fail "no $what within 60 s"
    sleep 0.05
  done
}

# 1. Kill rank 1 in namespace B mid-run. Far more epochs than the test waits for.
killed="$work/killed/dp"
job_log="$work/killed.log"
two_hosts "${tiny[@]}" --epochs 100000 --output-dir "$work/killed" >"$job_log" 2>&1 &
job=$!
await "checkpoint after epoch 1" test -s "$killed/checkpoints/last.safetensors"
logged=$(lines "$killed/steps.csv")
steps_past() { (($(lines "$killed/steps.csv") > logged)); }
await "step after the checkpoint" steps_past
rank_a=$(ranks_in "$ns_a")
rank_b=$(ranks_in "$ns_b")
[[ "$rank_a" =~ ^[0-9]+$ ]] || fail "expected one strand process in namespace A, found '$rank_a'"
[[ "$rank_b" =~ ^[0-9]+$ ]] || fail "expected one strand process in namespace B, found '$rank_b'"
kill -KILL "$rank_b"
killed_at=$SECONDS
deadline=$((SECONDS + kill_wait_s))
while kill -0 "$job" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
kill -0 "$job" 2>/dev/null && { cat "$work/killed.log"; fail "the job still runs ${kill_wait_s} s after rank 1 was killed"; }
ended_after=$((SECONDS - killed_at))
wait "$job"
rc=$?
[[ $rc -ne 0 ]] || fail "killed: mpirun exited 0 after a rank was killed"
grep -q "rank 1 with PID $rank_b on node $host_b exited on signal 9" "$work/killed.log" ||
  { cat "$work/killed.log"; fail "killed: mpirun did not report rank 1's SIGKILL on $host_b"; }
no_processes() { [[ -z "$(ip netns pids "$ns_a")$(ip netns pids "$ns_b")" ]]; }
deadline=$((SECONDS + 10))
until no_processes || ((SECONDS >= deadline)); do sleep 0.1; done
no_processes || fail "killed: processes left in the namespaces: $(ip netns pids "$ns_a") $(ip netns pids "$ns_b")"
completed=$(grep -a -o '"epochs_completed": *"[0-9]*"' "$killed/checkpoints/last.safetensors" |
  grep -o '[0-9]*"$' | tr -d '"')
[[ "$completed" =~ ^[1-9][0-9]*$ ]] || fail "killed: last.safetensors has epochs_completed '$completed'"
epochs=$((completed + 2))
echo "ok: killed rank 1 (PID $rank_b, namespace B) at step $(($(lines "$killed/steps.csv") - 1))," \
  "the job ended ${ended_after} s later: mpirun exited $rc, no process left;" \
  "checkpoint after epoch $completed"

# 2. Resume under the same two-namespace launch.
two_hosts --resume "$killed" --epochs "$epochs" >"$work/resumed.log" 2>&1 ||
  { cat "$work/resumed.log"; fail "resumed: the resume under the two-namespace mpirun failed"; }
echo "ok: resumed to $epochs epochs"

# 3. Uninterrupted runs of the same epochs: two namespaces, then one host.
two_hosts "${tiny[@]}" --epochs "$epochs" --output-dir "$work/two_hosts" >"$work/two_hosts.log" 2>&1 ||
  { cat "$work/two_hosts.log"; fail "two hosts: mpirun exited non-zero"; }
grep -A1 "Data for node: $host_b" "$work/two_hosts.log" | grep -q "Process rank: 1" ||
  { cat "$work/two_hosts.log"; fail "two hosts: rank 1 was not mapped to $host_b"; }
grep -q "data-parallel: 2 ranks" "$work/two_hosts.log" || fail "two hosts: not run data-parallel"
one_host "${tiny[@]}" --epochs "$epochs" --output-dir "$work/one_host" >"$work/one_host.log" 2>&1 ||
  { cat "$work/one_host.log"; fail "one host: mpirun exited non-zero"; }

reference="$work/one_host/dp"
[[ $(lines "$reference/steps.csv") -gt $((epochs * 2)) ]] || fail "one host: steps.csv is too short"
cmp "$work/two_hosts/dp/steps.csv" "$reference/steps.csv" ||
  fail "two hosts: steps.csv differs from the one-host run's"
cmp "$killed/steps.csv" "$reference/steps.csv" ||
  fail "resumed: steps.csv differs from the uninterrupted one-host run's"
# metrics.csv without samples_per_second and epoch_seconds (columns 5 and 6).
deterministic() { cut -d, -f1-4,7- "$1"; }
for run in two_hosts/dp killed/dp; do
  cmp <(deterministic "$work/$run/metrics.csv") <(deterministic "$reference/metrics.csv") ||
    fail "$run: metrics.csv differs from the one-host run's"
done
echo "ok: $(($(lines "$reference/steps.csv") - 1)) steps over $epochs epochs: two namespaces," \
  "resumed and one host log identical steps.csv and metrics.csv"
echo "veth bytes received in namespace B: $(ip netns exec "$ns_b" cat /sys/class/net/veth1/statistics/rx_bytes)"

# 4. A network partition: the link goes down mid-run, so no rank dies and no connection closes.
# Every rank's watchdog must end it within the collective timeout (5 s here).
partition_timeout_s=5
export STRAND_DIST_TIMEOUT_S=$partition_timeout_s
job_log="$work/partition.log"
forward=(-x STRAND_DIST_TIMEOUT_S)
two_hosts "${tiny[@]}" --epochs 100000 --output-dir "$work/partition" \
  >"$job_log" 2>&1 &
job=$!
await "checkpoint after epoch 1 (partition run)" test -s "$work/partition/dp/checkpoints/last.safetensors"
ip -n "$ns_b" link set veth1 down || fail "partition: could not take the veth link down"
no_ranks() { [[ -z "$(ranks_in "$ns_a")$(ranks_in "$ns_b")" ]]; }
deadline=$((SECONDS + kill_wait_s))
until no_ranks || ((SECONDS >= deadline)); do sleep 0.1; done
no_ranks || { cat "$job_log"; fail "partition: strand still runs ${kill_wait_s} s after the link went down"; }
grep -q "\[rank 0/2\] timed out after $partition_timeout_s.0 s waiting for" "$job_log" ||
  { cat "$job_log"; fail "partition: rank 0 did not report its watchdog's timeout"; }
# mpirun itself waits for the unreachable orted until TCP gives up (Open MPI 4.1: many
# minutes); cleanup ends it and the orted, as a scheduler's time limit would.
mpirun_state=$(kill -0 "$job" 2>/dev/null && echo "still waits for the unreachable orted" || echo "has exited")
echo "ok: partition: both ranks ended by their watchdog (timeout ${partition_timeout_s} s); mpirun $mpirun_state"
echo "PASS ($SECONDS s)"
