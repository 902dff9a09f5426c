#!/usr/bin/env bash
# Issue 26, tensor units, on the device machine (see README.md here for the exact call).
# usage: bash reports/nvidia-h200/i26-tensor/run.sh OUT
set -euo pipefail
out=${1:?OUT}
mkdir -p "$out"
here=$(dirname "$0")
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv > "$out/machine.txt" || true
.gpu/p3lab devices > "$out/devices.txt"
.gpu/p3lab devices --format json > "$out/devices.json"
# The tensor peaks with the units the cross-unit rules compare them to (fp32, fp16) and the
# empty dispatch the rates are net of.
.gpu/p3lab peak --out "$out/peak" --filter 'tensor_*' --filter 'fp32-*' --filter 'fp16-*' \
  --filter 'empty-*' > "$out/peak.out" 2>&1
# The tensor-core GEMM at 1024..8192 with those peaks (counters on: hw_tensor_pct beside
# tensor_pct), and the SIMT family's register-blocked variants at 4096 and 8192.
.gpu/p3lab run scenarios/gemm_tensor.toml --set n=1024,2048,4096,8192 --peaks "$out/peak/peaks.csv" \
  --out "$out/gemm_tensor" > "$out/gemm_tensor.out" 2>&1
.gpu/p3lab run scenarios/gemm.toml --set n=4096,8192 --filter 'regblock*' --filter 'tiled32' \
  --peaks "$out/peak/peaks.csv" --out "$out/gemm_simt" > "$out/gemm_simt.out" 2>&1
# cuBLAS through torch in the same call.
python3 "$here/torch_mm.py" 4096 8192 > "$out/torch.csv" 2> "$out/torch.err"
