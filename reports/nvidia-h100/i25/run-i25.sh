#!/usr/bin/env bash
# Issue 25 on the GPU machine (run from the repo root, the release binary in .gpu/ or $P3LAB):
# what CUPTI the machine has, `p3lab counters`, the peaks, then the whole suite alternately
# with the hardware counters off and on, each in its own process (off first: it fills the
# SPIR-V and driver caches both use). Everything lands in $1 (default /tmp/i25); each step
# goes on whatever the one before did.
set -u
D=${1:-/tmp/i25}
P=${P3LAB:-.gpu/p3lab}
ORDER=${ORDER:-"off on off2 on2"}
mkdir -p "$D"
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  ls -l /usr/local/cuda*/targets/x86_64-linux/lib/libcupti.so* 2>&1
} > "$D/machine.txt" 2>&1
"$P" counters --format csv > "$D/counters.csv" 2> "$D/counters.err"
timeout 150 "$P" -q peak --out "$D/peak" > "$D/peak.out" 2> "$D/peak.log"
for m in $ORDER; do
  extra=()
  case "$m" in off*) extra=(--no-hw-counters) ;; esac
  s=$(date +%s.%N)
  timeout 200 "$P" run scenarios/ --out "$D/$m" --profile auto "${extra[@]}" > "$D/$m.out" 2> "$D/$m.log"
  echo "$m rc=$? wall_s=$(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')" >> "$D/walls.txt"
done
cat "$D/walls.txt" >&2
