# Issue 26's Triton FMA-chain kernel exactly as reports/nvidia-h200/i26/run-peaks.sh ran it
# (4 chains a..d, m = a*0 + 0.999, k = a*0 + 0.001, BLOCK 1024, default num_warps), plus its SASS.
# usage: python3 tri26.py OUTDIR [ncu]
import sys, os, statistics, subprocess
import torch, triton, triton.language as tl
@triton.jit
def fma_chain(x_ptr, out_ptr, ITERS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(x_ptr + offs)
    b = a * 0.5
    c = a * 0.25
    d = a * 0.125
    m = a * 0 + 0.999
    k = a * 0 + 0.001
    for _ in range(ITERS):
        a = a * m + k
        b = b * m + k
        c = c * m + k
        d = d * m + k
    tl.store(out_ptr + offs, a + b + c + d)
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
ncu = len(sys.argv) > 2 and sys.argv[2] == "ncu"
if not ncu:
    print("dtype,n,iters,median_ns,tflops,out_mean", flush=True)
n = 132 * 2048 * 64
for dt in (torch.float32, torch.float16):
    torch.manual_seed(0)
    x = torch.rand(n, device="cuda", dtype=dt); y = torch.empty_like(x)
    iters = 4096
    grid = (n // 1024,)
    kern = fma_chain[grid](x, y, ITERS=iters, BLOCK=1024)
    torch.cuda.synchronize()
    if ncu:
        continue
    tag = str(dt).split('.')[-1]
    try:
        p = os.path.join(out, f"tri26_{tag}.cubin"); open(p, "wb").write(kern.asm["cubin"])
        open(os.path.join(out, f"tri26_{tag}.sass"), "w").write(
            subprocess.run(["cuobjdump", "-sass", p], capture_output=True, text=True).stdout)
        open(os.path.join(out, f"tri26_{tag}.ptx"), "w").write(kern.asm["ptx"])
        os.remove(p)
    except Exception as e:
        print("sass:", tag, e, file=sys.stderr)
    for _ in range(3): fma_chain[grid](x, y, ITERS=iters, BLOCK=1024)
    ts = []
    for _ in range(20):
        s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
        s.record(); fma_chain[grid](x, y, ITERS=iters, BLOCK=1024); e.record(); torch.cuda.synchronize()
        ts.append(s.elapsed_time(e) * 1e6)
    m = statistics.median(ts)
    flops = n * iters * 4 * 2
    print(f"{str(dt).split('.')[-1]},{n},{iters},{m:.0f},{flops / m / 1e3:.2f},{y.float().mean().item():.4f}", flush=True)
