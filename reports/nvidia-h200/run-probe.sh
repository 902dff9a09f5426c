#!/usr/bin/env bash
# In-shader probes on the H200: the tiling scenario's 8x8-group variants at full size, once with
# --probe (per-workgroup start/end clocks, SM ids, launch-order pictures) and once without, for
# the probe's own overhead.
set -u
P=${P3LAB:-.gpu/p3lab}
O=${1:-/tmp/probe}
mkdir -p "$O"
F="--filter *-wg8x8 --profile auto --peaks reports/nvidia-h200/peak/peaks.csv"
$P -q run scenarios/tiling.toml $F --probe --out "$O/with-probe"
$P -q run scenarios/tiling.toml $F --out "$O/without-probe"
