#!/usr/bin/env bash
# The comparisons in reports/nvidia-h200/README.md, section i12/, from the committed runs (no GPU
# needed): samples.csv.gz are unpacked into a temporary copy, then `p3lab compare` writes
# compare.md/compare.csv next to the committed runs.
#   bash reports/nvidia-h200/i12-compare.sh [path/to/p3lab]
set -eu
P=${1:-target/release/p3lab}
R=reports/nvidia-h200/i12
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for run in suite cold-write; do
  mkdir -p "$T/$run"
  cp "$R/$run"/results.csv* "$R/$run"/run.json* "$T/$run/"   # committed gzipped since 2026-11-27
  gunzip -c "$R/$run/samples.csv.gz" > "$T/$run/samples.csv"
done
# The P3 before/after tables: row-major against tiles, for the memory-bound pass (tiling_l2)
# and the bundled texture-bound filter (tiling).
$P -q compare "$T/suite" --pair rowmajor-wg16x16=tilex4-wg16x16 --out "$R/compare-tiling-l2"
$P -q compare "$T/suite" --pair rowmajor-wg16x16=tilex16-wg16x16 --out "$R/compare-tiling"
# Cold mode: the read eviction (suite) against the write eviction (cold-write), same machine.
$P -q compare "$T/suite" "$T/cold-write" --out "$R/compare-cold-evict" || true
