#!/usr/bin/env bash
# The runs behind reports/nvidia-h200/{peak,suite}: from the repo root on the GPU machine, with
# the release binary at .gpu/p3lab (built on Debian 12) and the Vulkan loader unpacked.
#   bash reports/nvidia-h200/run-suite.sh peak  /tmp/full   # peaks + PyTorch references
#   bash reports/nvidia-h200/run-suite.sh suite /tmp/full   # scenarios/ at full sizes
# Each p3lab run is stopped with SIGINT (rows kept, run.json written) if it nears the device
# tool's 10-minute command limit.
set -u
P=${P3LAB:-.gpu/p3lab}
what=$1
O=${2:-/tmp/full}
mkdir -p "$O"
case "$what" in
  peak)
    $P devices --format json > "$O/devices.json"
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$O/nvidia-smi.csv"
    timeout -s INT 300 $P -q peak --out "$O/peak" --cache-dir /tmp/p3cache/spirv
    python3 scripts/torch_copy.py > "$O/torch_copy.csv"
    python3 scripts/torch_sum.py > "$O/torch_sum.csv"
    ;;
  suite)
    # %-of-peak columns from the peaks the `peak` step measured on this machine (the copy of
    # them committed in reports/nvidia-h200/peak/ otherwise).
    PEAKS=$O/peak/peaks.csv
    [ -f "$PEAKS" ] || PEAKS=reports/nvidia-h200/peak/peaks.csv
    timeout -s INT 540 $P -q run scenarios/ --profile auto --peaks "$PEAKS" --out "$O/suite"
    ;;
esac
