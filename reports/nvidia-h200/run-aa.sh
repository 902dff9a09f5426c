#!/usr/bin/env bash
# Issue 11's benchmarks, from the repo root on the GPU machine, with the release binary at
# .gpu/p3lab (built on Debian 12) and the Vulkan loader unpacked:
#   bash reports/nvidia-h200/run-aa.sh /tmp/aa
# `cache`: the suite once at full size, filling a fresh SPIR-V cache (its rows are kept too);
# `a`, `b`: the suite twice more, in separate processes, with the warm cache: the A/A pair.
# Each run is stopped with SIGINT (rows kept, run.json written) if it nears 170 s; its log is
# $O/RUN.log. Extra arguments go to every `p3lab run` (e.g. --fresh resources).
set -u
P=${P3LAB:-.gpu/p3lab}
O=${1:-/tmp/aa}
mkdir -p "$O"
export P3LAB_CACHE_DIR=$O/spirv-cache
$P devices > "$O/devices.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,temperature.gpu,power.draw \
  --format=csv > "$O/nvidia-smi.csv" 2>&1
for r in ${RUNS:-cache a b}; do
  s=$(date +%s%N)
  NO_COLOR=1 timeout -s INT 170 $P run scenarios/ --profile auto "${@:2}" --out "$O/$r" > "$O/$r.out" 2> "$O/$r.log"
  code=$?
  gzip -f "$O/$r/samples.csv"
  echo "$r: exit $code, wall $(( ($(date +%s%N) - s) / 1000000 )) ms" | tee -a "$O/walls.txt"
done
