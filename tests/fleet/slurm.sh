#!/usr/bin/env bash
# End-to-end test of scripts/fleet/slurm.sh on a real single-node Slurm started here: munged,
# slurmctld and slurmd (Debian's munge and slurm-wlm) run as root from a temporary folder with
# their own key, config, ports, state and logs; a 2-task array on lavapipe (two slices of
# scenarios/smoke.toml), then the dependent merge-and-compare job. Fails if any step does; stops
# every daemon it started and removes its folder on exit.
#
# usage: P3LAB=target/debug/p3lab bash tests/fleet/slurm.sh    (as root, from the repo root)
# KEEP=1 keeps the temporary folder (config, logs, runs) for a look after a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."

say() { echo "slurm test: $*" >&2; }
fail() {
  say "FAIL: $*"
  exit 1
}
[ "$(id -u)" = 0 ] || fail "must run as root (it starts slurmd, which runs jobs as their user)"
for c in munged munge unmunge slurmctld slurmd sbatch squeue sinfo scontrol scancel; do
  command -v "$c" > /dev/null || fail "$c not found: apt-get install slurm-wlm munge (P3LAB_SETUP=test scripts/setup.sh)"
done
P3LAB="${P3LAB:-./target/debug/p3lab}"
case "$P3LAB" in /*) ;; *) P3LAB="$PWD/$P3LAB" ;; esac
[ -x "$P3LAB" ] || fail "P3LAB=$P3LAB is not an executable file"
export P3LAB

tmp=$(mktemp -d /tmp/p3lab-slurm-test.XXXXXX)
chmod 755 "$tmp" # munged refuses folders writable by others; jobs need to read the config
pids=()           # daemons to stop, in start order
# Each daemon runs in the foreground under `timeout`, so even if this script is killed with
# SIGKILL (no trap), nothing outlives it by more than the bound.
daemon_limit=700

# children PID: the processes whose parent is PID (from /proc: procps may be missing).
children() {
  local f line
  for f in /proc/[0-9]*/stat; do
    read -r line < "$f" 2> /dev/null || continue
    line=${line##*) } # after "PID (COMM) ": "STATE PPID ..."
    line=${line#* }
    [ "${line%% *}" = "$1" ] && { f=${f#/proc/}; echo "${f%/stat}"; }
  done
  return 0
}

cleanup() {
  local rc=$?
  set +e
  trap - EXIT INT TERM
  if [ -n "${SLURM_CONF:-}" ] && [ -f "$SLURM_CONF" ] && [ ${#pids[@]} -ge 2 ]; then
    # Jobs first, so slurmd leaves no slurmstepd behind.
    scancel --quiet --full -u root 2> /dev/null
    for _ in $(seq 20); do
      [ -z "$(squeue -h -o %i 2> /dev/null)" ] && break
      sleep 0.5
    done
  fi
  # Stop in reverse order: slurmd, slurmctld, munged.
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill -TERM "${pids[$i]}" 2> /dev/null # timeout passes it on to the daemon
    for _ in $(seq 50); do
      kill -0 "${pids[$i]}" 2> /dev/null || break
      sleep 0.2
    done
    if kill -0 "${pids[$i]}" 2> /dev/null; then
      say "a daemon ignored SIGTERM for 10 s: SIGKILL"
      # shellcheck disable=SC2046
      kill -KILL $(children "${pids[$i]}") "${pids[$i]}" 2> /dev/null
    fi
    wait "${pids[$i]}" 2> /dev/null
  done
  # A slurmstepd that slurmd started and did not end (it daemonizes, so it is not a child of
  # this script): found by the spool folder it holds open, which is ours alone.
  for p in /proc/[0-9]*; do
    [ "$(cat "$p/comm" 2> /dev/null)" = slurmstepd ] || continue
    for f in "$p/cwd" "$p"/fd/*; do
      if [[ "$(readlink "$f" 2> /dev/null)" == "$tmp"/* ]]; then
        say "killing a leftover slurmstepd, pid ${p#/proc/}"
        kill -KILL "${p#/proc/}" 2> /dev/null
        break
      fi
    done
  done
  # slurmstepd double-forks, so once finished it waits as a zombie for PID 1 to reap it (in a
  # container, lazily): give that a moment, so that nothing shows up after the test.
  for _ in $(seq 20); do
    grep -qs '^[0-9]* (slurmstepd) Z' /proc/[0-9]*/stat || break
    sleep 0.5
  done
  if [ "$rc" -ne 0 ]; then
    # The daemons' own output (in the foreground it holds all of their log) and the jobs'.
    for f in "$tmp"/log/*.out.log "$tmp"/log/failing-case.log "$tmp"/runs/logs/*.log; do
      [ -f "$f" ] || continue
      echo "---- $f (last 30 lines)" >&2
      tail -n 30 "$f" >&2
    done
  fi
  if [ -n "${KEEP:-}" ]; then
    say "kept $tmp"
  else
    rm -rf "$tmp"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# wait_for SECONDS WHAT COMMAND...: poll COMMAND every 0.5 s until it succeeds.
wait_for() {
  local limit=$1 what=$2
  shift 2
  local end=$((SECONDS + limit))
  until "$@" > /dev/null 2>&1; do
    [ "$SECONDS" -lt "$end" ] || fail "$what: not after ${limit}s"
    for p in "${pids[@]}"; do
      kill -0 "$p" 2> /dev/null || fail "$what: a daemon exited (see the logs below)"
    done
    sleep 0.5
  done
}
# A TCP port that nothing listens on (bash's /dev/tcp connects when something does).
free_port() {
  local p
  for _ in $(seq 100); do
    p=$((20000 + RANDOM % 20000))
    (: < "/dev/tcp/127.0.0.1/$p") 2> /dev/null || { echo "$p"; return; }
  done
  fail "no free port"
}

mkdir -p "$tmp"/{munge,log,state,spool,runs}
# A shader cache of our own (the jobs inherit the environment): every shader compiles, as on
# a fresh machine, and the user's cache is left alone.
export P3LAB_CACHE_DIR="$tmp/cache"

# munge: a key of our own, a socket of our own (slurm finds it through AuthInfo).
sock="$tmp/munge/munge.socket"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
timeout -k 5 "$daemon_limit" munged --foreground \
  --key-file="$tmp/munge/munge.key" --socket="$sock" --pid-file="$tmp/munge/munged.pid" \
  --seed-file="$tmp/munge/munged.seed" --log-file="$tmp/log/munged.log" \
  > "$tmp/log/munged.out.log" 2>&1 &
pids+=($!)
munge_ok() { munge -n -S "$sock" | unmunge -S "$sock"; }
wait_for 20 "munged answering on $sock" munge_ok
say "munged up"

# slurm.conf: this machine as the controller and the one node, with its real CPUs and memory
# (slurmd -C), no cgroups (containers rarely allow them), no accounting database.
host=$(uname -n) && host=${host%%.*} # the short name, as slurmctld compares it
ctld_port=$(free_port)
slurmd_port=$(free_port)
while [ "$slurmd_port" = "$ctld_port" ]; do slurmd_port=$(free_port); done
node=$(slurmd -C | head -1 | sed "s/^NodeName=[^ ]*/NodeName=$host/")
export SLURM_CONF="$tmp/slurm.conf"
cat > "$SLURM_CONF" << EOF
ClusterName=p3lab-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$tmp/log/jobcomp.txt
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmdTimeout=60
MinJobAge=600
MailProg=/bin/true
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

timeout -k 5 "$daemon_limit" slurmctld -D -i -f "$SLURM_CONF" > "$tmp/log/slurmctld.out.log" 2>&1 &
pids+=($!)
wait_for 30 "slurmctld answering on port $ctld_port" scontrol ping
timeout -k 5 "$daemon_limit" slurmd -D -f "$SLURM_CONF" -N "$host" > "$tmp/log/slurmd.out.log" 2>&1 &
pids+=($!)
node_idle() { [ "$(sinfo -h -n "$host" -o %T)" = idle ]; }
wait_for 60 "node $host idle (sinfo)" node_idle
say "slurmctld (port $ctld_port) and slurmd (port $slurmd_port) up, node $host idle"

# The test itself: two slices of the smoke scenario, one variant each at a small size,
# merged, and one slice's variant compared with the other's inside the merged folder.
start=$SECONDS
job=$(scripts/fleet/slurm.sh --shared --wait-timeout 240 \
  --slice "--filter wg64" --slice "--filter wg128" --compare "merged --pair wg64=wg128" \
  "$tmp/runs" scenarios/smoke.toml -- --set n=1024 -q) ||
  fail "scripts/fleet/slurm.sh exited $?"
say "jobs finished in $((SECONDS - start))s: $job"

# Checks: both tasks' rows in the merged results.csv, compare.csv written, every job
# COMPLETED with exit code 0 as the controller and the job completion log saw them.
[ -d "$job" ] || fail "no job folder $job"
read -r array_id merge_id < <(sed 's/.*array=\([0-9]*\).* merge=\([0-9]*\).*/\1 \2/' "$job/jobs.txt")
for i in 0 1; do
  [ "$(cat "$job/status/task-$i.rc")" = 0 ] || fail "task $i exit code $(cat "$job/status/task-$i.rc")"
  [ -f "$job/task-$i/results.csv" ] || fail "task $i wrote no results.csv"
done
[ "$(cat "$job/status/merge.rc")" = 0 ] || fail "merge job exit code $(cat "$job/status/merge.rc")"
merged="$job/merged/results.csv"
[ -f "$merged" ] || fail "no $merged"
for i in 0 1; do
  while IFS= read -r row; do
    grep -qxF -- "$row" "$merged" || fail "task $i's row missing from $merged: $row"
  done < <(tail -n +2 "$job/task-$i/results.csv")
done
rows=$(($(wc -l < "$merged") - 1))
want=$(($(wc -l < "$job/task-0/results.csv") + $(wc -l < "$job/task-1/results.csv") - 2))
if [ "$rows" -ne "$want" ] || [ "$rows" -lt 2 ]; then fail "$merged has $rows rows, the tasks $want"; fi
# run_id is column 2: two runs, and the variants of both slices, status ok.
[ "$(tail -n +2 "$merged" | cut -d, -f2 | sort -u | wc -l)" -eq 2 ] || fail "$merged: not two run_ids"
for v in wg64 wg128; do
  grep -q "^[^,]*,[^,]*,smoke,$v,ok," "$merged" || fail "$merged has no ok row of $v"
done
cmp="$job/compare/compare.csv"
[ -f "$cmp" ] || fail "no $cmp"
grep -q '^smoke,wg64,wg128,[^,]*,warm,time_ns,' "$cmp" || fail "$cmp has no wg64 -> wg128 time_ns row"
state() { scontrol show job "$1" | tr ' ' '\n' | grep -E '^(JobState|ExitCode)=' | xargs; }
for id in "${array_id}_0" "${array_id}_1" "$merge_id"; do
  [ "$(state "$id")" = "JobState=COMPLETED ExitCode=0:0" ] || fail "job $id: $(state "$id") (scontrol show job)"
done
# slurmctld's job completion log (jobcomp/filetxt; sacct needs slurmdbd, not started here).
done_ok() { grep -E "$1" "$tmp/log/jobcomp.txt" | grep -c 'JobState=COMPLETED .*ExitCode=0:0'; }
if [ "$(done_ok " ArrayJobId=$array_id ")" -ne 2 ] || [ "$(done_ok "^JobId=$merge_id ")" -ne 1 ]; then
  fail "the job completion log does not list the 3 jobs as completed: $(cat "$tmp/log/jobcomp.txt")"
fi
[ -z "$(squeue -h -o %i)" ] || fail "jobs left in the queue: $(squeue)"
say "ok: array $array_id (2 tasks) and merge job $merge_id COMPLETED, $rows rows merged, compare.csv written"

# A task that fails fails the whole: slice 1 names a param the scenario lacks (p3lab exits 2).
# The merge job still merges task 0, its compare finds no wg128, and the script exits 2.
set +e
bad=$(scripts/fleet/slurm.sh --shared --wait-timeout 120 \
  --slice "--filter wg64" --slice "--filter wg128 --set nosuch=1" --compare "merged --pair wg64=wg128" \
  "$tmp/runs" scenarios/smoke.toml -- --set n=1024 -q 2> "$tmp/log/failing-case.log")
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "with a failing task, scripts/fleet/slurm.sh exited $rc, not 2: $(cat "$tmp/log/failing-case.log")"
read -r array_id merge_id < <(sed 's/.*array=\([0-9]*\).* merge=\([0-9]*\).*/\1 \2/' "$bad/jobs.txt")
[ "$(cat "$bad/status/task-0.rc"),$(cat "$bad/status/task-1.rc")" = 0,2 ] || fail "$bad: task exit codes not 0 and 2"
[ "$(($(wc -l < "$bad/merged/results.csv") - 1))" -eq 1 ] || fail "$bad/merged: not task 0's one row"
[ "$(state "${array_id}_1")" = "JobState=FAILED ExitCode=2:0" ] || fail "failing task: $(state "${array_id}_1")"
[ "$(state "$merge_id")" = "JobState=FAILED ExitCode=2:0" ] || fail "its merge job: $(state "$merge_id")"
say "ok: a failing task fails its merge job and the script (exit 2), task 0's rows still merged"
