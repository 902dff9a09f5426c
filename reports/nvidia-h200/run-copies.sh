#!/usr/bin/env bash
# Where does the run-to-run variation of issue 11's A/A pair live? Three copies of tiling,
# tiling_l2 and reduction (renamed scenarios, nothing else changed) run in one process. If
# copies inside one process differ as much as two processes do, the variation belongs to an
# instance (pipelines, buffers, images made anew), which a run can re-create and measure.
#   bash reports/nvidia-h200/run-copies.sh OUT
# RUNS names the processes (default p1 p2); a run named `fresh-MODE` passes `--fresh MODE`
# (what every round after the first makes anew: none, pipelines, resources, all). The runs
# of reports/nvidia-h200/copies were made before the placement check existed, so it is off.
# (fresh-* were made by a build that read the mode from $P3LAB_FRESH; same code path.)
set -u
P=${P3LAB:-.gpu/p3lab}
O=${1:-/tmp/copies}
mkdir -p "$O"
export P3LAB_CACHE_DIR=$O/spirv-cache
for s in tiling tiling_l2 reduction; do
  for c in 1 2 3; do
    sed "0,/^name = \"$s\"/s//name = \"${s}_c$c\"/" scenarios/$s.toml > scenarios/${s}_c$c.toml
  done
done
for r in ${RUNS:-p1 p2}; do
  extra=(--no-placement-check)
  case $r in fresh-*) extra+=(--fresh "${r#fresh-}") ;; esac
  s=$(date +%s%N)
  NO_COLOR=1 timeout -s INT 280 $P run scenarios/*_c[123].toml --profile auto "${extra[@]}" --out "$O/$r" > "$O/$r.out" 2> "$O/$r.log"
  echo "$r: exit $?, wall $(( ($(date +%s%N) - s) / 1000000 )) ms" | tee -a "$O/walls.txt"
  gzip -f "$O/$r/samples.csv"
done
rm -f scenarios/*_c[123].toml
