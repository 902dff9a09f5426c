"""torch.matmul (cuBLAS) beside p3lab's GEMM scenarios: C = A @ B, n x n, at fp16, bf16
(fp32 accumulate on the tensor cores), int8 (torch._int_mm, int32 accumulate) and fp32 with
TF32 off (SIMT FFMA, p3lab's gemm.toml comparator). Median of 20 timed runs after 5 warm-up
runs, CUDA events. Prints CSV: dtype,n,median_ms,p10_ms,p90_ms,tflops."""
import sys
import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
print("dtype,n,median_ms,p10_ms,p90_ms,tflops")
for n in [int(x) for x in (sys.argv[1:] or ["4096", "8192"])]:
    for name, dt in [("float16", torch.float16), ("bfloat16", torch.bfloat16),
                     ("int8", torch.int8), ("float32", torch.float32)]:
        if dt == torch.int8:
            a = torch.randint(-4, 4, (n, n), device="cuda", dtype=dt)
            b = torch.randint(-4, 4, (n, n), device="cuda", dtype=dt)
            f = lambda: torch._int_mm(a, b)
        else:
            a = torch.rand(n, n, device="cuda", dtype=dt)
            b = torch.rand(n, n, device="cuda", dtype=dt)
            f = lambda: a @ b
        for _ in range(5):
            f()
        torch.cuda.synchronize()
        ts = []
        for _ in range(20):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record(); f(); e.record(); torch.cuda.synchronize()
            ts.append(s.elapsed_time(e))
        ts.sort()
        med = ts[len(ts) // 2]
        print(f"{name},{n},{med:.4f},{ts[2]:.4f},{ts[17]:.4f},{2 * n**3 / med / 1e9:.1f}")
        del a, b
        torch.cuda.empty_cache()
