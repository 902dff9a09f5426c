# Issue 26 peer: Triton FMA chains, fp32 and fp16, a <- a*m + c (m = c = 0.5, converges to 1.0,
# checked), E independent elements per thread (BLOCK / (32 * num_warps)); CUDA-event median.
# usage: python3 tri.py OUTDIR [ncu]   (ncu: one launch per config, no timing)
import sys, os, statistics, subprocess
import torch, triton, triton.language as tl

@triton.jit
def fma_chain(mc_ptr, out_ptr, ITERS: tl.constexpr, BLOCK: tl.constexpr, DT: tl.constexpr, DATA: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    base = 1.0 + ((offs % 64).to(tl.float32) / 8.0)
    a = base.to(DT)
    if DATA:
        # m and c per element, from the data (m = a * z + 0.5 with z = 0 loaded at run time)
        m = a * tl.load(mc_ptr + 2).to(DT) + 0.5
        c = 1.0 - m
    else:
        m = tl.load(mc_ptr).to(DT)
        c = tl.load(mc_ptr + 1).to(DT)
    for _ in range(ITERS):
        a = a * m + c
    tl.store(out_ptr + offs, a)

out = sys.argv[1]
ncu = len(sys.argv) > 2 and sys.argv[2] == "ncu"
os.makedirs(out, exist_ok=True)
threads = 132 * 2048 * 4
iters = 1024
mc = torch.tensor([0.5, 0.5, 0.0], device="cuda", dtype=torch.float32)
if not ncu:
    print("dtype,data,block,num_warps,elems_per_thread,n,iters,median_ns,tflops,ok", flush=True)
CONFIGS = [(torch.float32, tl.float32, 0, b, w) for b, w in ((1024, 4), (4096, 4), (8192, 8))]
CONFIGS += [(torch.float16, tl.float16, d, b, w) for d in (0, 1) for b, w in ((1024, 4), (2048, 4), (4096, 4), (8192, 8))]
for dt, tdt, data, block, nw in CONFIGS:
    if True:
        ept = block // (32 * nw)
        n = threads * ept
        y = torch.empty(n, device="cuda", dtype=dt)
        grid = (n // block,)
        k = fma_chain[grid](mc, y, ITERS=iters, BLOCK=block, DT=tdt, DATA=data, num_warps=nw)
        torch.cuda.synchronize()
        tag = f"{str(dt).split('.')[-1]}_d{data}_b{block}_w{nw}"
        if ncu:
            continue
        try:
            cub = k.asm["cubin"]
            p = os.path.join(out, f"tri_{tag}.cubin")
            open(p, "wb").write(cub)
            sass = subprocess.run(["cuobjdump", "-sass", p], capture_output=True, text=True).stdout
            open(os.path.join(out, f"tri_{tag}.sass"), "w").write(sass)
            os.remove(p)
        except Exception as e:
            print("sass:", tag, e, file=sys.stderr)
        ok = bool((y == 1).all().item())
        for _ in range(3):
            fma_chain[grid](mc, y, ITERS=iters, BLOCK=block, DT=tdt, DATA=data, num_warps=nw)
        ts = []
        for _ in range(20):
            s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
            s.record(); fma_chain[grid](mc, y, ITERS=iters, BLOCK=block, DT=tdt, DATA=data, num_warps=nw); e.record()
            torch.cuda.synchronize()
            ts.append(s.elapsed_time(e) * 1e6)
        med = statistics.median(ts)
        print(f"{str(dt).split('.')[-1]},{data},{block},{nw},{ept},{n},{iters},{med:.0f},{2 * n * iters / med / 1e3:.2f},{ok}", flush=True)
