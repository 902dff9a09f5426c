#!/usr/bin/env bash
# Issue 25 on the GPU machine (run from the repo root, the release binary in .gpu/ or $P3LAB):
# what CUPTI the machine has, `p3lab counters`, the peaks, then the whole suite alternately
# with the hardware counters off and on, each in its own process (off first: it fills the
# SPIR-V and driver caches both use). Everything lands in $1 (default /tmp/i25); each step
# goes on whatever the one before did.
set -u
D=${1:-/tmp/i25}
P=${P3LAB:-.gpu/p3lab}
ORDER=${ORDER-"off on off2 on2"}
PEAK=${PEAK:-1}
# Extra flags for the suite runs (e.g. RUN_ARGS="--peaks DIR/peaks.csv" to reuse a measured peak file).
read -r -a RUN_ARGS_A <<< "${RUN_ARGS:-}"
mkdir -p "$D"
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  ls -l /usr/local/cuda*/targets/x86_64-linux/lib/libcupti.so* 2>&1
} > "$D/machine.txt" 2>&1
"$P" counters --format csv > "$D/counters.csv" 2> "$D/counters.err"
[ "$PEAK" = 1 ] && timeout 150 "$P" -q peak --out "$D/peak" > "$D/peak.out" 2> "$D/peak.log"
# More PM-sampling metrics than one pass holds (--counters), on two scenarios.
timeout 120 "$P" run scenarios/divergence.toml scenarios/occupancy.toml --out "$D/extra" \
  --counters 'TPC.TriageCompute.sm__inst_executed_pipe_fma*' \
  --counters 'TPC.TriageCompute.sm__inst_executed_realtime' \
  --counters 'SM_A.TriageCompute.l1tex__data_pipe_lsu_wavefronts_mem_shared*' \
  > "$D/extra.out" 2> "$D/extra.log"
# As an ordinary user (nobody): what a lab user without the profiling privilege sees.
mkdir -p "$D/nobody" && chmod 777 "$D/nobody"
if command -v setpriv > /dev/null; then
  P3LAB_CACHE_DIR="$D/nobody/cache" timeout 120 setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$P" run scenarios/smoke.toml --out "$D/nobody/o" > "$D/nobody.out" 2> "$D/nobody.log"
  echo "nobody rc=$?" >> "$D/walls.txt"
fi
for m in $ORDER; do
  extra=()
  case "$m" in off*) extra=(--no-hw-counters) ;; esac
  s=$(date +%s.%N)
  timeout 200 "$P" run scenarios/ --out "$D/$m" --profile auto "${extra[@]}" "${RUN_ARGS_A[@]}" > "$D/$m.out" 2> "$D/$m.log"
  echo "$m rc=$? wall_s=$(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')" >> "$D/walls.txt"
done
cat "$D/walls.txt" >&2
