#!/usr/bin/env bash
# Run p3lab on a Slurm cluster: a job array (one task per host, or one per sweep slice), each
# task running `p3lab run` into a folder of its own, then a job that waits for the array
# (--dependency=afterany), merges every task's folder and compares.
#
# usage: scripts/fleet/slurm.sh [OPTIONS] RUNS SCENARIO... [-- extra `p3lab run` arguments]
#   e.g. scripts/fleet/slurm.sh --sbatch "--partition=gpu --gpus=1 --time=00:30:00" \
#            /shared/runs scenarios/ -- --profile auto
#        scripts/fleet/slurm.sh --slice "--filter wg64" --slice "--filter wg128" \
#            --compare "merged --pair wg64=wg128" /shared/runs scenarios/smoke.toml
# Options:
#   --tasks N        N tasks that all run the same command (default: one per node of the
#                    partition, as `sinfo` counts them). With --exclusive (the default) a node
#                    runs one task at a time; Slurm picks the nodes, so a node may run two
#                    tasks one after the other (runs.json records each run's host).
#   --slice 'ARGS'   One task per --slice, each adding ARGS (shell words, e.g. "--set n=1024"
#                    or "--filter 'wg*'") to its `p3lab run`. Replaces --tasks.
#   --compare 'ARGS' What `p3lab compare` gets, as paths inside the job folder (default, with
#                    two or more tasks: "task-0 task-1", first host against second).
#                    E.g. "merged --pair wg64=wg128" (variants of two slices). It runs in
#                    the job folder and writes JOB/compare/.
#   --no-compare     Merge only.
#   --sbatch 'ARGS'  Extra sbatch options for every job (partition, --gpus=1, --time, account).
#   --shared         Leave out --exclusive (tasks may share a node; timings then disturb
#                    each other).
#   --no-wait        Submit and print the job folder; do not wait for the jobs.
#   --wait-timeout S Give up waiting after S seconds (exit 1; the jobs keep going).
# Layout: RUNS/ARRAY_JOB_ID/ is the job folder, with task-N/ (task N's run folder), merged/,
# compare/, status/ (each job's exit code) and jobs.txt; Slurm's logs go to RUNS/logs/.
# RUNS and the binary must be on a file system that every node sees, at the same path; the
# scenarios are read from the current directory (run this from the bundle or checkout).
# Output: the job folder, on stdout. Exit code (when waiting): 0 when every task and the
# merge and compare succeeded; otherwise the worst task's exit code (3 = some rows failed, the
# run is still merged), or 1 (a task that did not finish, merge or compare failed, timeout).
# P3LAB is the binary (default ./target/release/p3lab), made absolute at submission.
set -euo pipefail

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}
die() {
  echo "slurm.sh: $*" >&2
  exit 1
}
[ $# -eq 0 ] && usage

P3LAB="${P3LAB:-./target/release/p3lab}"
tasks="" compare="" do_compare=1 sbatch_extra="" exclusive=1 wait=1 wait_timeout=0
slices=()
while [ $# -gt 0 ]; do
  case "$1" in
  --tasks) tasks=${2:?--tasks needs a number}; shift 2 ;;
  --slice) slices+=("${2?--slice needs arguments}"); shift 2 ;;
  --compare) compare=${2:?--compare needs arguments}; shift 2 ;;
  --no-compare) do_compare=0; shift ;;
  --sbatch) sbatch_extra=${2?--sbatch needs arguments}; shift 2 ;;
  --shared) exclusive=0; shift ;;
  --no-wait) wait=0; shift ;;
  --wait-timeout) wait_timeout=${2:?--wait-timeout needs seconds}; shift 2 ;;
  -h | --help) usage ;;
  --) break ;;
  -*) echo "slurm.sh: unknown option $1" >&2; usage ;;
  *) break ;;
  esac
done
[ $# -ge 2 ] || usage
runs=$1
shift
scenarios=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do scenarios+=("$1"); shift; done
[ $# -gt 0 ] && shift # the --
run_extra=("$@")
[ ${#scenarios[@]} -gt 0 ] || usage

for c in sbatch squeue sinfo; do
  command -v "$c" > /dev/null || die "$c not found (is this a Slurm login node?)"
done
case "$P3LAB" in /*) ;; *) P3LAB="$PWD/$P3LAB" ;; esac
[ -x "$P3LAB" ] || die "P3LAB=$P3LAB is not an executable file"
"$P3LAB" --version > /dev/null || die "$P3LAB --version failed"
[[ "$wait_timeout" =~ ^[0-9]+$ ]] || die "--wait-timeout takes seconds, not $wait_timeout"

# The slices, split here into words once (globs are not expanded), and written into the job
# script quoted, so every task sees exactly the words given.
if [ ${#slices[@]} -gt 0 ]; then
  [ -z "$tasks" ] || die "give --tasks or --slice, not both"
  tasks=${#slices[@]}
elif [ -z "$tasks" ]; then
  # The partition, if --sbatch names one.
  part="" prev=""
  for w in $sbatch_extra; do
    case "$prev,$w" in
    --partition,* | -p,*) part=$w ;;
    *,--partition=*) part=${w#--partition=} ;;
    *,-p?*) part=${w#-p} ;;
    esac
    prev=$w
  done
  tasks=$(sinfo -h ${part:+--partition="$part"} -N -o '%N' | sort -u | wc -l)
  [ "$tasks" -gt 0 ] || die "sinfo lists no node${part:+ in partition $part}; give --tasks N"
fi
[[ "$tasks" =~ ^[1-9][0-9]*$ ]] || die "--tasks takes a positive number, not $tasks"
if [ "$do_compare" = 1 ] && [ -z "$compare" ]; then
  if [ "$tasks" -ge 2 ]; then compare="task-0 task-1"; else do_compare=0; fi
fi

mkdir -p "$runs/logs"
runs=$(cd "$runs" && pwd)
q() { # shell-quoted words, for the job scripts
  [ $# -eq 0 ] || printf '%q' "$1"
  [ $# -le 1 ] || printf ' %q' "${@:2}"
}
slice_cases=""
for i in "${!slices[@]}"; do
  words=()
  set -f
  # shellcheck disable=SC2206 # split into shell words, quotes honoured, on purpose
  eval "words=(${slices[$i]})"
  set +f
  slice_cases+="  $i) slice=($(q "${words[@]}")) ;;"$'\n'
done

sbatch_args=(--parsable --chdir="$PWD" --nodes=1 --ntasks=1)
# shellcheck disable=SC2206 # word-split on purpose: the user's sbatch options
sbatch_args+=($sbatch_extra)
task_args=("${sbatch_args[@]}" --job-name=p3lab --array="0-$((tasks - 1))"
  --output="$runs/logs/%A_%a.log")
[ "$exclusive" = 1 ] && task_args+=(--exclusive)

# One task: run into JOB/task-N/, record the exit code in JOB/status/task-N.rc.
array_id=$(sbatch "${task_args[@]}" << EOF
#!/usr/bin/env bash
set -uo pipefail
job=$(q "$runs")/\$SLURM_ARRAY_JOB_ID
i=\$SLURM_ARRAY_TASK_ID
mkdir -p "\$job/status"
slice=()
case \$i in
$slice_cases esac
echo "p3lab task \$i on \$(hostname): \$(date -u +%FT%TZ)"
$(q "$P3LAB") run $(q "${scenarios[@]}") "\${slice[@]}" --out "\$job/task-\$i" $(q "${run_extra[@]}")
rc=\$?
echo "\$rc" > "\$job/status/task-\$i.rc"
echo "p3lab task \$i: exit \$rc"
exit "\$rc"
EOF
) || die "sbatch (the array) failed"
array_id=${array_id%%;*} # --parsable prints ID or ID;CLUSTER
job="$runs/$array_id"
mkdir -p "$job/status"
echo "slurm.sh: array job $array_id, $tasks task(s), into $job" >&2

# The merge: every task folder that has a run.json (a task that failed partway still has rows
# worth keeping), then the comparison; its exit code sums up the tasks' (see the usage).
merge_id=$(sbatch "${sbatch_args[@]}" --job-name=p3lab-merge --dependency="afterany:$array_id" \
  --output="$runs/logs/%j-merge.log" << EOF
#!/usr/bin/env bash
set -uo pipefail
job=$(q "$job")
P3LAB=$(q "$P3LAB")
worst=0
dirs=()
for ((i = 0; i < $tasks; i++)); do
  rc=\$(cat "\$job/status/task-\$i.rc" 2> /dev/null) || rc=""
  if [ -z "\$rc" ]; then
    echo "task \$i: no exit code (cancelled, timed out, killed or never started)" >&2
    rc=1
  else
    echo "task \$i: exit \$rc"
  fi
  [ "\$rc" -gt "\$worst" ] && worst=\$rc
  [ -f "\$job/task-\$i/run.json" ] && dirs+=("\$job/task-\$i")
done
finish() { echo "\$1" > "\$job/status/merge.rc"; echo "merge job: exit \$1"; exit "\$1"; }
failed=\$((worst > 1 ? worst : 1)) # a failed merge or compare: 1, or a task's worse code
[ \${#dirs[@]} -gt 0 ] || { echo "no task wrote a run folder" >&2; finish "\$failed"; }
rm -rf "\$job/merged"
"\$P3LAB" merge "\${dirs[@]}" --out "\$job/merged" || finish "\$failed"
if [ $do_compare = 1 ]; then
  (cd "\$job" && "\$P3LAB" compare $compare --out "\$job/compare") || finish "\$failed"
fi
finish "\$worst"
EOF
) || die "sbatch (the merge) failed; the array $array_id is queued (scancel $array_id)"
merge_id=${merge_id%%;*}
printf 'array=%s tasks=%s merge=%s\n' "$array_id" "$tasks" "$merge_id" > "$job/jobs.txt"
echo "slurm.sh: merge job $merge_id (after the array), into $job/merged" >&2
echo "$job"
[ "$wait" = 1 ] || exit 0

# Wait for the merge job to leave the queue, then read the exit code it left. (Accounting,
# sacct, is not needed.) A file written on another node may take a moment to show over NFS.
start=$SECONDS
while [ -n "$(squeue -h -j "$merge_id" -o %T 2> /dev/null)" ]; do
  if [ "$wait_timeout" -gt 0 ] && [ $((SECONDS - start)) -ge "$wait_timeout" ]; then
    die "still queued or running after ${wait_timeout}s: jobs $array_id and $merge_id (squeue -j $array_id,$merge_id)"
  fi
  sleep 2
done
for _ in $(seq 30); do
  [ -s "$job/status/merge.rc" ] && break
  sleep 1
done
[ -s "$job/status/merge.rc" ] || die "merge job $merge_id left no exit code; see $runs/logs/$merge_id-merge.log"
rc=$(cat "$job/status/merge.rc")
echo "slurm.sh: done, exit $rc (logs: $runs/logs/${array_id}_*.log, $runs/logs/$merge_id-merge.log)" >&2
exit "$rc"
