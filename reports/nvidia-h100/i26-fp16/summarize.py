#!/usr/bin/env python3
"""Issue 26 FP16 / texture report: the README's tables from the raw outputs in this folder.
usage: python3 summarize.py [DIR]   (DIR: the run's outputs, default run/ here)"""
import csv, gzip, io, os, re, sys

D = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "run")
SMS, CLK = 132, 1.980  # SMs; SM clock in GHz under load (nvidia-smi clocks.csv, CUPTI gpc clock)

def rows(path):
    p = os.path.join(D, path)
    if os.path.exists(p + ".gz"):
        return list(csv.DictReader(io.TextIOWrapper(gzip.open(p + ".gz"), encoding="utf-8")))
    return list(csv.DictReader(open(p)))

def tf(x):
    return float(x["gflops_per_s"] or 0) / 1000

peak = {r["unit"]: float(r["value"]) / 1000 for r in rows("peak_new/peaks.csv")}
old = {r["unit"]: float(r["value"]) / 1000 for r in rows("peak_builtin/peaks.csv")}
cuda = {r["kernel"]: float(r["tflops"]) for r in rows("cuda.csv")}
tri26 = {r["dtype"]: float(r["tflops"]) for r in rows("tri26.csv")}
tri = rows("triton.csv")
FP32_THEORY = 128 * 2 * SMS * CLK / 1000
peer = {
    "fp16": (max(cuda.values() if False else [v for k, v in cuda.items() if k.startswith("hfma")]),
             max([tri26["float16"]] + [float(r["tflops"]) for r in tri if r["dtype"] == "float16"])),
    "fp32": (max(v for k, v in cuda.items() if k.startswith("ffma")),
             max([tri26["float32"]] + [float(r["tflops"]) for r in tri if r["dtype"] == "float32"])),
}
MC = {"0": "push constants, broadcast f16vec2(float16_t(x))", "1": "spec constants", "2": "literals",
      "3": "per thread (gid >> 30), broadcast", "4": "per thread from a float buffer, broadcast",
      "5": "per chain and thread from a float buffer, broadcast",
      "6": "per chain, packed from the data: fma(a_k, z, 0.5)", "7": "per thread, packed from the data: fma(a_0, z, 0.5)",
      "8": "per thread, packed from a uint buffer (unpackFloat2x16)", "9": "per chain, packed from a uint buffer",
      "10": "uniform, packed from a uint buffer"}
OP = {"0": "fma()", "1": "a*m+c", "2": "precise a*m+c", "3": "precise fma()"}
FC = {"0": "", "1": "RTE16", "2": "RTZ16", "3": "DenormPreserve16", "4": "FlushToZero16", "5": "SignedZeroInfNanPreserve16"}
TY = {("h", "1"): "float16_t", ("h", "2"): "f16vec2", ("h", "4"): "f16vec4", ("f", "1"): "float", ("f", "2"): "vec2", ("f", "4"): "vec4"}

def out(s=""):
    print(s)

out(f"Peaks (p3lab peak, same call): FP32 {old['fp32']:.2f} -> {peak['fp32']:.2f} TFLOP/s "
    f"({old['fp32'] / FP32_THEORY:.1%} -> {peak['fp32'] / FP32_THEORY:.1%} of 128 FFMA/clk/SM x {SMS} SMs x {CLK} GHz = {FP32_THEORY:.2f}); "
    f"FP16 {old['fp16']:.2f} -> {peak['fp16']:.2f} ({old['fp16'] / old['fp32']:.2f}x -> {peak['fp16'] / peak['fp32']:.2f}x FP32); "
    f"peers fp16 CUDA {peer['fp16'][0]:.2f}, Triton {peer['fp16'][1]:.2f}; fp32 CUDA {peer['fp32'][0]:.2f}, Triton {peer['fp32'][1]:.2f}")
out()
out("| sweep | variant | type | op | m, c | float controls | chains x unroll | wg | regs | TFLOP/s | x FP32 peak | x CUDA | x Triton | note |")
out("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for sweep in ("fmax", "fmax2", "fmax3", "fmax_o0"):
    rs = rows(f"{sweep}/results.csv")
    rs.sort(key=lambda r: -tf(r))
    for r in rs:
        m = re.match(r"([hf])(\d)-op(\d)-mc(\d+)-d(\d)-x(\d)-fc(\d)-c(\d+)-u(\d+)-wg(\d+)", r["variant"])
        k, w, op, mc, dd, x, fc, ch, un, wg = m.groups()
        v = tf(r)
        prec = "fp16" if k == "h" else "fp32"
        note = []
        if dd == "1": note.append("m, c differ per chain")
        if x == "1": note.append("+ as many fp32 chains")
        if sweep == "fmax_o0": note.append("opt = zero (no spirv-opt)")
        if v > 2.05 * FP32_THEORY: note.append("**folded**: the driver merged unrolled steps (check passes)")
        if r["status"] != "ok": note.append(r["status"])
        mcd = MC[mc].replace(", broadcast f16vec2(float16_t(x))", "").replace(", broadcast", "") if k == "f" else MC[mc]
        out(f"| {sweep} | `{r['variant']}` | {TY[(k, w)]} | {OP[op]} | {mcd} | {FC[fc]} | {ch} x {un} | {wg} | "
            f"{r['registers_per_thread']} | {v:.2f} | {v / peak['fp32']:.2f} | {v / peer[prec][0]:.2f} | {v / peer[prec][1]:.2f} | {'; '.join(note)} |")
out()
out("| calibration | variant | TFLOP/s | x FP32 peak | x CUDA | x Triton | regs |")
out("|---|---|---|---|---|---|---|")
for name, path in (("built-in (main)", "peak_builtin"), ("new (this branch)", "peak_new")):
    for r in sorted(rows(f"{path}/results.csv"), key=lambda r: r["variant"]):
        if r["variant"].startswith("fp64"):
            continue
        v = tf(r); prec = r["variant"][:4]
        out(f"| {name} | `{r['variant']}` | {v:.2f} | {v / peak['fp32']:.2f} | {v / peer[prec][0]:.2f} | {v / peer[prec][1]:.2f} | {r['registers_per_thread']} |")
out()
# CUDA / Triton peers: time and ncu's instruction counts per kernel (same call).
def ncu(path):
    txt = (gzip.open(os.path.join(D, path + ".gz"), "rt") if os.path.exists(os.path.join(D, path + ".gz")) else open(os.path.join(D, path))).read()
    i = txt.find('"ID"')
    d = {}
    for r in csv.DictReader(io.StringIO(txt[i:])):
        d.setdefault((int(r["ID"]), r["Kernel Name"]), {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", "") or 0)
    return d
out("| peer | kernel | TFLOP/s | x FP32 peak | HFMA2 (FMA pipe) | HFMA2.MMA (tensor pipe) | FFMA warp instr. | FMA pipe busy % | tensor pipe busy % |")
out("|---|---|---|---|---|---|---|---|---|")
cu = rows("cuda.csv")
nc = sorted(ncu("ncu_cuda.csv").items())
for r, (key, m) in zip(cu, nc):
    out(f"| CUDA | `{r['kernel']}` | {float(r['tflops']):.2f} | {float(r['tflops']) / peak['fp32']:.2f} | {m.get('sm__inst_executed_pipe_fma_type_fp16.sum', 0) / 1e6:.0f} M | "
        f"{m.get('sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum', 0) / 1e6:.0f} M | {m.get('smsp__sass_thread_inst_executed_op_ffma_pred_on.sum', 0) / 32e6:.0f} M | "
        f"{m.get('sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active', 0):.1f} | {m.get('sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active', 0):.1f} |")
t26 = rows("tri26.csv")
nt = sorted(ncu("ncu_tri26.csv").items())
for r, (key, m) in zip(t26, nt):
    out(f"| Triton, issue 26's kernel | `{r['dtype']}` | {float(r['tflops']):.2f} | {float(r['tflops']) / peak['fp32']:.2f} | {m.get('sm__inst_executed_pipe_fma_type_fp16.sum', 0) / 1e6:.0f} M | "
        f"{m.get('sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum', 0) / 1e6:.0f} M | {m.get('smsp__sass_thread_inst_executed_op_ffma_pred_on.sum', 0) / 32e6:.0f} M | "
        f"{m.get('sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active', 0):.1f} | {m.get('sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active', 0):.1f} |")
for r in tri:
    out(f"| Triton, a*m+c on a block (m, c {'from the data' if r['data'] == '1' else 'loaded scalars'}) | `{r['dtype']} BLOCK {r['block']} warps {r['num_warps']}` | {float(r['tflops']):.2f} | {float(r['tflops']) / peak['fp32']:.2f} | | | | | |")
out()
TMU = 4 * SMS * CLK
out(f"| format | path | acc | Gtexel/s | texels/clk/SM | x texture units x clock ({4 * SMS} x {CLK} GHz = {TMU:.0f} G/s) | bytes/clk/SM | l1tex % (CUPTI) | SM clock (CUPTI, MHz) |")
out("|---|---|---|---|---|---|---|---|---|")
FMT = {"0": ("rgba8", 4), "1": ("rgba16f", 8), "2": ("rgba32f", 16)}
PATH = {"0": "texture()", "1": "texelFetch()", "2": "textureLod(, 0)"}
for r in sorted(rows("texx/results.csv"), key=lambda r: r["variant"]):
    f, p, a = re.match(r"fmt(\d)-path(\d)-acc(\d)", r["variant"]).groups()
    g = float(r["texels"]) / float(r["median_ns"])
    per = g / SMS / CLK
    l1 = r["hw_l1tex_pct"]
    out(f"| {FMT[f][0]} | {PATH[p]} | {a} | {g:.1f} | {per:.2f} | {g / TMU:.2f} | {per * FMT[f][1]:.1f} | "
        f"{float(l1):.1f} | {float(r['hw_sm_clock_mhz'] or 0):.0f} |" if l1 else
        f"| {FMT[f][0]} | {PATH[p]} | {a} | {g:.1f} | {per:.2f} | {g / TMU:.2f} | {per * FMT[f][1]:.1f} | | |")
