#!/usr/bin/env bash
# Issue 5 on the H200: the whole suite at full size with per-workgroup probes on every shader
# (p3lab wraps each shader's main(); every row gets achieved occupancy beside the theoretical
# one), the same suite without probes (the probes' cost, same binary, same session), and the
# driver's internal representations of the smoke scenario's pipelines (--dump-ir).
#   bash reports/nvidia-h200/run-probe-all.sh with    /tmp/probe-all
#   bash reports/nvidia-h200/run-probe-all.sh without /tmp/probe-all
#   bash reports/nvidia-h200/run-probe-all.sh all     /tmp/probe-all   # peaks, then both
# Since issue 12 the %-of-peak columns come from peaks measured on the same GPU in the same
# command (`all`: `p3lab peak` first, cached for the runs); the first runs took the committed
# peak/peaks.csv of another H200, which p3lab now refuses (7 reduce_sum rows read 100.1-101.3 %).
# Each run is stopped with SIGINT (rows kept, run.json written) if it nears the device tool's
# 10-minute command limit.
set -u
P=${P3LAB:-.gpu/p3lab}
what=$1
O=${2:-/tmp/probe-all}
mkdir -p "$O"
C=/tmp/p3c/spirv
case "$what" in
  all)
    timeout -s INT 240 $P -q peak --out "$O/peak" --cache-dir $C
    timeout -s INT 200 $P -q run scenarios/ --profile auto --cache-dir $C --probe --out "$O/with-probe"
    timeout -s INT 120 $P -q run scenarios/ --profile auto --cache-dir $C --out "$O/without-probe"
    ;;
  with)
    timeout -s INT 560 $P -q run scenarios/ --profile auto --peaks "$PEAKS" --probe --out "$O/with-probe"
    ;;
  without)
    timeout -s INT 420 $P -q run scenarios/ --profile auto --peaks "$PEAKS" --out "$O/without-probe"
    timeout -s INT 60 $P -q run scenarios/smoke.toml --profile auto --dump-ir --out "$O/dump-ir"
    ;;
esac
