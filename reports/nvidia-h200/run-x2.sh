#!/usr/bin/env bash
# The runs behind reports/nvidia-h200/x2/: on a host with two H200s. `--device all` runs one
# p3lab worker per GPU in parallel and merges them; then the copy peak is measured again next to
# PyTorch's copy, on GPU 0 while GPU 1 is idle.
set -u
P=${P3LAB:-.gpu/p3lab}
O=${1:-/tmp/x2}
mkdir -p "$O"
nvidia-smi --query-gpu=index,name,driver_version --format=csv > "$O/nvidia-smi.csv"
$P devices --format csv > "$O/devices.csv"
/usr/bin/time -v $P -q run scenarios/smoke.toml scenarios/coalescing.toml --device all --profile auto --out "$O/all" 2> "$O/time.txt"
$P -q peak --device 0 --filter 'dram_copy*' --out "$O/peak-copy" --cache-dir /tmp/p3cache/spirv
CUDA_VISIBLE_DEVICES=0 python3 scripts/torch_copy.py > "$O/torch_copy.csv"
