#!/usr/bin/env bash
# Issues 26 and 29 on the device machine: the full `p3lab peak` (FP16 at the packed rate, the
# new fma.comp), then coalescing and occupancy with those peaks (the summary's P3 view and
# honest "fastest"), and compare --p3 / the glob pairs on that run.
# usage (device call): for f in .gpu/*.deb; do dpkg -x $f /; done; ldconfig;
#                      bash reports/nvidia-h100/i29-gpu/run.sh /tmp/i29 && tar czf $OUT/i29.tgz -C /tmp i29
set -uo pipefail
out=${1:?OUT}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv > "$out/machine.txt" 2>&1
.gpu/p3lab devices > "$out/devices.txt" 2>&1
start=$(date +%s.%N)
.gpu/p3lab peak --out "$out/peak" > "$out/peak.out" 2>&1
echo "peak rc=$? wall_s=$(echo "$(date +%s.%N) - $start" | bc)" >> "$out/walls.txt"
start=$(date +%s.%N)
.gpu/p3lab run scenarios/coalescing.toml scenarios/occupancy.toml --peaks "$out/peak/peaks.csv" \
  --out "$out/run" > "$out/summary.txt" 2> "$out/run.log"
echo "run rc=$? wall_s=$(echo "$(date +%s.%N) - $start" | bc)" >> "$out/walls.txt"
.gpu/p3lab compare "$out/run" --pair 'coalescing/stride*=coalescing/stride1' --p3 \
  -o "$out/compare-stride" > "$out/compare-stride-p3.txt" 2>&1
.gpu/p3lab compare "$out/run" --pair 'coalescing/stride*=coalescing/stride1' \
  -o "$out/compare-stride" > "$out/compare-stride.txt" 2>&1
.gpu/p3lab report "$out/run" -o "$out/report" -q > /dev/null 2>&1
gzip -f "$out"/run/samples.csv "$out"/run/metrics.csv "$out"/peak/samples.csv "$out"/peak/metrics.csv 2>/dev/null
true
