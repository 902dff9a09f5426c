#!/usr/bin/env bash
# Run from the repo root on the GPU machine (.gpu/tile staged from the tiling-l2 worktree):
#   t1, t2: scenarios/tiling_l2.toml --profile full, twice (two processes: run-to-run spread)
#   t3: the same variants at width 16000 (row pitch 125 KiB, not a power of two)
set -u
cd .gpu/tile
for f in *.deb; do dpkg -x $f /; done; ldconfig
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $OUT/nvidia-smi.csv
./p3lab devices --format json > $OUT/devices.json 2>$OUT/devices.err || { cat $OUT/devices.err; exit 1; }
R=/tmp/runs; mkdir -p $R
for t in t1 t2; do
  timeout -s INT 150 ./p3lab run scenarios/tiling_l2.toml --profile full --peaks peaks.csv --cache-dir /tmp/p3c --out $R/$t 2>&1 | grep -E "p3lab:|WARN|ERROR|rowmajor-wg16x16|tilex4-wg16x16"
done
timeout -s INT 100 ./p3lab run scenarios/tiling_l2.toml --set width=16000 --set radius=8,64,128,512 --filter '*-wg16x16' --peaks peaks.csv --cache-dir /tmp/p3c --out $R/t3 2>&1 | grep -E "p3lab:|WARN|ERROR|-wg16x16"
tar czf $OUT/runs.tgz -C $R .
