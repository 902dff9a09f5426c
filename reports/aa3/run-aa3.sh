#!/usr/bin/env bash
# Issue 27's benchmarks, from the repo root on the GPU machine, with the release binary at
# .gpu/p3lab and the Vulkan loader unpacked (see the project README):
#   bash reports/aa3/run-aa3.sh /tmp/aa3
# a, b, c: the whole suite three times at full size, in separate processes, placements on
# `auto` (the default); each run is stopped with SIGINT (rows kept) if it nears 170 s.
# wp1..wp6: write_pattern alone at full size in six more processes, each measured over 8
# placements (`--placements 8`), for what makes a placement slow (the counters run in each
# process's first placement). Extra arguments go to every `p3lab run`.
set -u
P=${P3LAB:-.gpu/p3lab}
O=${1:-/tmp/aa3}
mkdir -p "$O"
export P3LAB_CACHE_DIR=$O/spirv-cache
$P devices > "$O/devices.txt" 2>&1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.max.mem,temperature.gpu,power.draw \
  --format=csv > "$O/nvidia-smi.csv" 2>&1
for r in ${RUNS:-a b c}; do
  s=$(date +%s%N)
  NO_COLOR=1 timeout -s INT 170 $P run scenarios/ --profile auto "${@:2}" --out "$O/$r" > "$O/$r.out" 2> "$O/$r.log"
  code=$?
  echo "$r: exit $code, wall $(( ($(date +%s%N) - s) / 1000000 )) ms" | tee -a "$O/walls.txt"
done
for k in ${WP:-1 2 3 4 5 6}; do
  s=$(date +%s%N)
  NO_COLOR=1 timeout -s INT 100 $P run scenarios/write_pattern.toml --profile auto --placements 8 "${@:2}" \
    --out "$O/wp$k" > "$O/wp$k.out" 2> "$O/wp$k.log"
  echo "wp$k: exit $?, wall $(( ($(date +%s%N) - s) / 1000000 )) ms" | tee -a "$O/walls.txt"
done
rm -rf "$O/spirv-cache"
for f in "$O"/*/samples.csv "$O"/*/metrics.csv; do gzip -f "$f"; done
