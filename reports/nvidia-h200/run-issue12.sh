#!/usr/bin/env bash
# The runs behind reports/nvidia-h200/i12/ (issue 12: derived numbers): from the repo root on
# the GPU machine, with the release binary at .gpu/p3lab and the Vulkan loader unpacked:
#   bash reports/nvidia-h200/run-issue12.sh /tmp/i12
# 1. peaks: every unit, self-checked (peaks/), cached for the runs below;
# 2. the whole suite at full size (%-of-peak, memory level, limiter from those peaks);
# 3. occupancy, tiling and reduction with per-subgroup probes (achieved vs theoretical);
# 4. tiling and reduction again with the old write eviction in cold mode, to compare with the
#    read eviction of step 2.
# Each step is stopped with SIGINT (rows kept, run.json written) if it runs long.
set -u
P=${P3LAB:-.gpu/p3lab}
O=${1:-/tmp/i12}
C=/tmp/p3c/spirv
mkdir -p "$O"
$P devices --format json > "$O/devices.json"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$O/nvidia-smi.csv"
timeout -s INT 240 $P -q peak --out "$O/peak" --cache-dir $C
timeout -s INT 150 $P -q run scenarios/ --profile auto --cache-dir $C --out "$O/suite"
timeout -s INT 90 $P -q run scenarios/occupancy.toml scenarios/tiling.toml scenarios/reduction.toml \
  --profile auto --probe --cache-dir $C --out "$O/probe"
timeout -s INT 90 $P -q run scenarios/tiling.toml scenarios/reduction.toml --profile auto \
  --evict write --cache-dir $C --out "$O/cold-write"
