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
S="scenarios/smoke.toml scenarios/coalescing.toml"
t0=$(date +%s.%N); $P -q run $S --device 0 --profile auto --out "$O/one"; t1=$(date +%s.%N)
$P -q run $S --device all --profile auto --out "$O/all"; t2=$(date +%s.%N)
echo "one_device_s,all_devices_s" > "$O/wall.csv"
python3 -c "print(f\"{$t1 - $t0:.2f},{$t2 - $t1:.2f}\")" >> "$O/wall.csv"
$P -q peak --device 0 --filter 'dram_copy*' --out "$O/peak-copy" --cache-dir /tmp/p3cache/spirv
CUDA_VISIBLE_DEVICES=0 python3 scripts/torch_copy.py > "$O/torch_copy.csv"
