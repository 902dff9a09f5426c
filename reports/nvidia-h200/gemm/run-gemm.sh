#!/usr/bin/env bash
# Issue 26's GEMM family on the GPU machine (run from the repo root, the release binary in
# .gpu/ or $P3LAB): the SIMT variants at --profile full (512..4096), then torch.matmul in
# fp32 (TF32 off: the same arithmetic as the SIMT kernels) and fp16 at the same sizes, timed
# with CUDA events (median of 50 after 10 warm-up), in the same call. Output in $1.
set -u
D=${1:-/tmp/gemm}
P=${P3LAB:-.gpu/p3lab}
mkdir -p "$D"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$D/machine.txt" 2>&1
timeout 400 "$P" run scenarios/gemm.toml --profile full --out "$D/run" > "$D/run.out" 2> "$D/run.log"
echo "p3lab rc=$?" >> "$D/walls.txt"
timeout 120 python3 - > "$D/torch.csv" 2> "$D/torch.log" <<'PY'
import torch, statistics
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
print("dtype,n,median_ns,tflops")
for dt in (torch.float32, torch.float16):
    for n in (512, 1024, 2048, 4096):
        a = torch.rand(n, n, device="cuda", dtype=dt); b = torch.rand(n, n, device="cuda", dtype=dt)
        for _ in range(10): torch.matmul(a, b)
        ts = []
        for _ in range(50):
            s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
            s.record(); torch.matmul(a, b); e.record(); torch.cuda.synchronize()
            ts.append(s.elapsed_time(e) * 1e6)
        m = statistics.median(ts)
        print(f"{str(dt).split('.')[-1]},{n},{m:.0f},{2*n**3/m/1e3:.2f}")
PY
echo "torch rc=$?" >> "$D/walls.txt"
