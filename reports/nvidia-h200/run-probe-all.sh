#!/usr/bin/env bash
# Issue 5 on the H200: the whole suite at full size with per-workgroup probes on every shader
# (p3lab wraps each shader's main(); every row gets achieved occupancy beside the theoretical
# one), the same suite without probes (the probes' cost, same binary, same session), and the
# driver's internal representations of the smoke scenario's pipelines (--dump-ir).
#   bash reports/nvidia-h200/run-probe-all.sh with    /tmp/probe-all
#   bash reports/nvidia-h200/run-probe-all.sh without /tmp/probe-all
# Each run is stopped with SIGINT (rows kept, run.json written) if it nears the device tool's
# 10-minute command limit.
set -u
P=${P3LAB:-.gpu/p3lab}
what=$1
O=${2:-/tmp/probe-all}
mkdir -p "$O"
PEAKS=reports/nvidia-h200/peak/peaks.csv
case "$what" in
  with)
    timeout -s INT 560 $P -q run scenarios/ --profile auto --peaks "$PEAKS" --probe --out "$O/with-probe"
    ;;
  without)
    timeout -s INT 420 $P -q run scenarios/ --profile auto --peaks "$PEAKS" --out "$O/without-probe"
    timeout -s INT 60 $P -q run scenarios/smoke.toml --profile auto --dump-ir --out "$O/dump-ir"
    ;;
esac
