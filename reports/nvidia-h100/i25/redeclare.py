#!/usr/bin/env python3
"""Issue 25, item 7, offline: what the scenarios' declared work gives against the H100's
counters, before and after the re-declaration, without a GPU run.

Usage: python3 reports/nvidia-h100/i25/redeclare.py [RUN_DIR] [PEAKS_CSV]
(default: reports/nvidia-h100/i25/final/on and final/peak/peaks.csv, from the repo root).

- "before" is the declared work the committed run used (its results.csv columns);
- "after" evaluates the [measure] expressions of the scenario files in this tree for every
  warm row, keeping the row's median, occupancy, spills and workgroups;
- both go through a port of src/peaks/limiter.rs (`derive` for the declared verdict,
  `apply_counted`'s agreement rule and DRAM-bytes flag) against the run's peaks. The port is
  checked first: it must reproduce every warm row's declared_limiter and flags from the
  run's own columns.
- "traces" follows the shaders' shared-memory and L1 addresses (NVIDIA's rules: 32 banks of
  4 bytes, one 128-byte wavefront per bank round; 64-bit accesses per half warp; one L1
  wavefront per 128-byte line a warp touches) and compares the counts with the expressions.
Nothing here reads the counters into a declaration: the counted columns are only compared.
"""
import csv
import gzip
import itertools
import math
import os
import sys
import tomllib
from collections import defaultdict

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
RUN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "reports/nvidia-h100/i25/final/on")
PEAKS = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "reports/nvidia-h100/i25/final/peak/peaks.csv")
BUSY = 60.0
LOW_OCC = 50.0
DRAM_TOL = 15.0
WORK_KEYS = ["bytes_read", "bytes_written", "flops", "shared_bytes", "texels", "texels_linear",
             "atomics", "shared_atomics", "int_ops", "sfu_ops", "l1_bytes", "l2_bytes",
             "footprint_bytes"]


# ---- peaks and rows -----------------------------------------------------------------------
def load_peaks(path):
    values, cap = {}, None
    for r in csv.DictReader(open(path)):
        if not r["value"]:
            continue
        if r["unit"] == "l2_capacity":
            cap = float(r["value"])
        else:
            values[r["unit"]] = float(r["value"])
    return values, cap


def num(r, k):
    v = r.get(k, "")
    return None if v == "" else float(v)


def inum(r, k):
    v = r.get(k, "")
    return None if v == "" else int(float(v))


# ---- src/peaks/limiter.rs, ported -------------------------------------------------------------
def pct(work, median, peak):
    if work is not None and peak is not None and work > 0 and median > 0:
        return work / median / peak * 100.0
    return None


def derive(work, r, peaks, cap, warm=True):
    """The declared verdict: (limiter, {unit: pct}, memory_level)."""
    median = num(r, "median_ns")
    br, bw = work.get("bytes_read"), work.get("bytes_written")
    byts = None if br is None and bw is None else (br or 0) + (bw or 0)
    footprint = work.get("footprint_bytes") if work.get("footprint_bytes") is not None else byts
    fits = None if cap is None or footprint is None else (warm and footprint <= cap)
    dram_peak = max(peaks[u] for u in ("dram_read", "dram_write", "dram_copy") if u in peaks)
    u = {}
    level = ""
    if fits is True:
        level = "l2"
        l2w = work.get("l2_bytes") if work.get("l2_bytes") is not None else byts
        u["l2"] = pct(l2w, median, peaks.get("l2_read"))
    else:
        if fits is False:
            level = "dram"
        u["dram"] = pct(byts, median, dram_peak)
    if work.get("l2_bytes") is not None and fits is not True:
        u["l2"] = pct(work.get("l2_bytes"), median, peaks.get("l2_read"))
    u["fp32"] = pct(work.get("flops"), median, peaks.get("fp32"))
    u["shared"] = pct(work.get("shared_bytes"), median, peaks.get("shared"))
    tp = pct(work.get("texels"), median, peaks.get("texture_point"))
    tl = pct(work.get("texels_linear"), median, peaks.get("texture_bilinear"))
    u["texture"] = None if tp is None and tl is None else (tp or 0) + (tl or 0)
    u["atomic"] = pct(work.get("atomics"), median, peaks.get("atomic"))
    u["shared_atomic"] = pct(work.get("shared_atomics"), median, peaks.get("shared_atomic"))
    u["int32"] = pct(work.get("int_ops"), median, peaks.get("int32"))
    u["sfu"] = pct(work.get("sfu_ops"), median, peaks.get("sfu"))
    u["l1"] = pct(work.get("l1_bytes"), median, peaks.get("l1_read"))
    u["launch"] = pct(inum(r, "workgroups"), median, peaks.get("launch"))
    u = {k: v for k, v in u.items() if v is not None}
    busy = sorted(((k, v) for k, v in u.items() if v >= BUSY), key=lambda kv: -kv[1])
    if busy:
        return "+".join(k for k, _ in busy), u, level
    if median <= 2 * peaks["empty"]:
        return "latency", u, level
    if (inum(r, "spill_bytes_per_thread") or 0) > 0:
        return "latency", u, level
    a, t, p = inum(r, "achieved_waves_per_unit"), inum(r, "occupancy_waves_per_unit"), num(r, "occupancy_pct")
    occ = None
    if a is not None and t is not None and p is not None:
        occ = p * a / max(t, 1)
    elif p is not None:
        occ = p
    if occ is not None and occ < LOW_OCC:
        return "occupancy", u, level
    return ("latency" if u else "none"), u, level


COUNTED_OF = {"dram": ["dram"], "l2": ["l2"], "atomic": ["l2"],
              "fp32": ["sm"], "fp16": ["sm"], "int32": ["sm"], "sfu": ["sm"],
              "shared": ["l1tex", "sm"], "shared_atomic": ["l1tex", "sm"], "l1": ["l1tex", "sm"],
              "texture": ["l1tex", "sm"], "tensor": ["tensor", "sm"]}


def counted(r):
    units = [(n, num(r, "hw_" + n + "_pct")) for n in ("sm", "dram", "l2", "l1tex", "tensor")]
    busy = sorted(((n, v) for n, v in units if v is not None and v >= BUSY), key=lambda kv: -kv[1])
    return busy


def judge(declared, level, work, r):
    """apply_counted's second opinion: (limiter flagged?, dram bytes flagged?, off %)."""
    busy = counted(r)
    dunits = [c for d in declared.split("+") for c in COUNTED_OF.get(d, [])]
    launch_only = all(d == "launch" for d in declared.split("+"))
    agree = (not dunits) if not busy else any(n in dunits for n, _ in busy)
    lim_flag = not agree and declared not in ("", "none") and not launch_only
    bytes_flag, off = False, None
    if level == "dram":
        d = (work.get("bytes_read") or 0) + (work.get("bytes_written") or 0)
        hr, hw = num(r, "hw_dram_read_bytes"), num(r, "hw_dram_write_bytes")
        if d >= 1 << 20 and hr is not None and hw is not None:
            off = ((hr + hw) / d - 1) * 100
            bytes_flag = abs(off) > DRAM_TOL
    return lim_flag, bytes_flag, off


# ---- scenario files: variants and [measure] expressions ------------------------------------------
def _round(x):
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


FUNCS = {"ceil": math.ceil, "floor": math.floor, "round": _round, "abs": abs, "sqrt": math.sqrt,
         "log2": math.log2, "min": min, "max": max, "pow": pow,
         "div_ceil": lambda a, b: math.ceil(a / b), "clamp": lambda x, lo, hi: min(max(x, lo), hi),
         "align": lambda x, a: math.ceil(x / a) * a}


def evaluate(expr, vars_):
    if isinstance(expr, (int, float)):
        return expr
    # p3lab's grammar is Python's for these files (+ - * / % ** and the functions above);
    # `^` is its other spelling of `**`. `%` differs only for negative operands (none here).
    v = eval(expr.replace("^", "**"), {"__builtins__": {}}, {**FUNCS, **vars_})
    if abs(v - round(v)) > 1e-6:
        raise ValueError(f"`{expr}` = {v}: not an integer")
    return int(round(v))


def label(v):
    if isinstance(v, list):
        return "x".join(str(x) for x in v)
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def scenario_variants(path):
    """{variant name: numeric matrix vars} and the [measure] table of one scenario file."""
    doc = tomllib.load(open(path, "rb"))
    out = {}
    for v in doc.get("variants", []):
        m = v.get("matrix", {})
        keys = sorted(m)
        for combo in itertools.product(*(m[k] for k in keys)):
            kv = dict(zip(keys, combo))
            name = v["name"]
            for k, val in kv.items():
                name = name.replace("{" + k + "}", label(val))
            out[name] = {k: val for k, val in kv.items() if isinstance(val, (int, float))
                         and k not in ("subgroup_size",)}
    return out, doc.get("measure", {})


def params_of(r):
    return {k: float(v) for k, v in (kv.split("=") for kv in r["params"].split(";") if kv)}


# ---- address traces ---------------------------------------------------------------------------
def wavefronts(addrs, size=4):
    """Shared-memory wavefronts of one warp access: per group of lanes the hardware serves
    together (the warp; half warps for 8-byte accesses), the most distinct 4-byte words any
    of the 32 banks holds."""
    groups = {4: [addrs], 8: [addrs[:16], addrs[16:]]}[size]
    total = 0
    for g in groups:
        banks = defaultdict(set)
        for a in g:
            if a is None:
                continue
            for w in range(size // 4):
                banks[(a // 4 + w) % 32].add(a // 4 + w)
        if banks:
            total += max(len(s) for s in banks.values())
    return total


def lines(addrs, size=4):
    s = set()
    for a in addrs:
        if a is not None:
            s.update({a // 128, (a + size - 1) // 128})
    return len(s)


def trace_occupancy_pass(wg=1024, warp=0):
    lids = [warp * 32 + i for i in range(32)]
    t = 0
    for colour in (0, 1):
        act = [lid if (lid & 1) == colour and lid + 1 < wg else None for lid in lids]
        t += 2 * wavefronts([None if x is None else 8 * x for x in act], 8)
        t += 2 * wavefronts([None if x is None else 8 * (x + 1) for x in act], 8)
    return t + 2 * wavefronts([8 * x for x in lids], 8)


def trace_reduction(kind, n):
    def acc(fn):
        t = 0
        for w in range((n + 31) // 32):
            a = [fn(g) if g < n else None for g in range(32 * w, 32 * w + 32)]
            if any(x is not None for x in a):
                t += wavefronts(a)
        return t
    t = acc(lambda g: 4 * g)
    if kind == "interleaved":
        s = 1
        while s < n:
            t += 2 * acc(lambda g, s=s: 8 * s * g if 2 * s * g < n else None)
            t += acc(lambda g, s=s: 4 * (2 * s * g + s) if 2 * s * g < n else None)
            s *= 2
    else:
        s = n // 2
        while s:
            t += 2 * acc(lambda g, s=s: 4 * g if g < s else None)
            t += acc(lambda g, s=s: 4 * (g + s) if g < s else None)
            s //= 2
    return t + 1


def trace_neighborhood(t_, lds, width=8192):
    """(L1 lines, shared wavefronts) per 32 pixels, interior groups of one group row."""
    s_ = t_ + 2
    l1 = sh = npx = 0
    for gx in range(1, width // t_ - 1):
        x0, y0 = gx * t_, 5 * t_
        for w in range(max(t_ * t_ // 32, 1)):
            idx = [w * 32 + i if w * 32 + i < t_ * t_ else None for i in range(32)]
            lx = [None if i is None else i % t_ for i in idx]
            ly = [None if i is None else i // t_ for i in idx]
            l1 += 3
            if lds:
                k = 0
                while k * t_ * t_ < s_ * s_:
                    ii = [None if i is None or i + k * t_ * t_ >= s_ * s_ else i + k * t_ * t_ for i in idx]
                    if any(i is not None for i in ii):
                        l1 += lines([None if i is None else 4 * ((y0 - 1 + i // s_) * width + x0 - 1 + i % s_) for i in ii])
                        sh += wavefronts([None if i is None else 4 * i for i in ii])
                    k += 1
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    if lds:
                        sh += wavefronts([None if a is None else 4 * ((b + 1 + dy) * s_ + a + 1 + dx) for a, b in zip(lx, ly)])
                    else:
                        l1 += lines([None if a is None else 4 * ((y0 + b + dy) * width + x0 + a + dx) for a, b in zip(lx, ly)])
            l1 += lines([None if a is None else 4 * ((y0 + b) * width + x0 + a) for a, b in zip(lx, ly)])
            npx += sum(a is not None for a in lx)
    return l1 / npx * 32, sh / npx * 32


def traces():
    print("## address traces vs the expressions (per the unit each comment uses)")
    occ = trace_occupancy_pass()
    print(f"  occupancy: shared wavefronts per warp and pass {occ} (expression: 80 B x 32 / 128 = 20)")
    _, m = scenario_variants(os.path.join(ROOT, "scenarios/reduction.toml"))
    for kind, tx in (("interleaved", 16), ("sequential", 16), ("unrolled", 16), ("unrolled", 8), ("unrolled", 4)):
        v = {"TX": tx, "ILV": int(kind == "interleaved"), "WG": 0, "SG": 0,
             "w0": 32, "h0": 32, "scale": 1, "tile": 32}          # one group
        e = evaluate(m["shared_bytes"], v) // 128
        print(f"  reduction {kind}-{tx}x{tx}: traced {trace_reduction(kind, tx * tx)} wavefronts per group, expression {e}")
    _, m = scenario_variants(os.path.join(ROOT, "scenarios/neighborhood.toml"))
    for t_ in (8, 16, 32):
        for lds in (0, 1):
            l1, sh = trace_neighborhood(t_, lds)
            v = {"T": t_, "USE_LDS": lds, "width": 8192, "height": 8192}
            px = 8192 * 8192
            el1 = evaluate(m["l1_bytes"], v) / px / 128 * 32
            esh = evaluate(m["shared_bytes"], v) / px / 128 * 32
            print(f"  neighborhood {'lds' if lds else 'global'}-{t_}x{t_}: per 32 pixels L1 lines traced {l1:.2f} "
                  f"expression {el1:.2f}; shared wavefronts traced {sh:.2f} expression {esh:.2f}")
    print()


# ---- the comparison ---------------------------------------------------------------------------
def main():
    peaks, cap = load_peaks(PEAKS)
    rows = list(csv.DictReader(gzip.open(os.path.join(RUN, "results.csv.gz"), "rt")))
    warm = [r for r in rows if r["mode"] == "warm" and r["limiter_source"] == "counted"]
    # 1. The port against the run itself.
    bad = 0
    for r in warm:
        before = {k: inum(r, k) for k in WORK_KEYS}
        lim, _, level = derive(before, r, peaks, cap)
        lf, bf, _ = judge(lim, level, before, r)
        ok = (lim == r["declared_limiter"] and lf == ("limiter: counted" in r["flags"])
              and bf == ("dram bytes:" in r["flags"]))
        bad += not ok
    print(f"## port of src/peaks/limiter.rs against the run's own columns: {len(warm) - bad} of "
          f"{len(warm)} warm counted rows reproduced (declared limiter, limiter flag, DRAM-bytes flag)\n")
    traces()
    # 2. Before and after.
    cache = {}
    table = defaultdict(lambda: defaultdict(int))
    changed_rows = defaultdict(list)
    for r in warm:
        sc = r["scenario"]
        if sc not in cache:
            cache[sc] = scenario_variants(os.path.join(ROOT, "scenarios", sc + ".toml"))
        variants, measure = cache[sc]
        before = {k: inum(r, k) for k in WORK_KEYS}
        vars_ = {**params_of(r), **variants[r["variant"]]}
        after = {k: (evaluate(measure[k], vars_) if k in measure else None) for k in WORK_KEYS}
        lb, ub, levb = derive(before, r, peaks, cap)
        la, ua, leva = derive(after, r, peaks, cap)
        fb = judge(lb, levb, before, r)
        fa = judge(la, leva, after, r)
        t = table[sc]
        t["rows"] += 1
        t["agree_b"] += not fb[0]
        t["agree_a"] += not fa[0]
        t["bytes_b"] += fb[1]
        t["bytes_a"] += fa[1]
        t["changed"] += before != after
        t.setdefault("lim_a", defaultdict(int))
        t["lim_a"][la] += 1
        if before != after:
            changed_rows[sc].append((r, before, after, lb, ub, la, ua, fb, fa))
    print("## declared vs counted, warm rows of the H100 run (final/on), before -> after")
    print("| scenario | warm rows | declared work changed | agree (limiter not flagged) | flagged: DRAM bytes +-15 % | declared limiters after |")
    print("|---|---|---|---|---|---|")
    tot = defaultdict(int)
    for sc in sorted(table):
        t = table[sc]
        lims = ", ".join(f"{k} {v}" for k, v in sorted(t["lim_a"].items(), key=lambda kv: -kv[1]))
        print(f"| {sc} | {t['rows']} | {t['changed']} | {t['agree_b']} -> {t['agree_a']} | "
              f"{t['bytes_b']} -> {t['bytes_a']} | {lims} |")
        for k in ("rows", "changed", "agree_b", "agree_a", "bytes_b", "bytes_a"):
            tot[k] += t[k]
    print(f"| all | {tot['rows']} | {tot['changed']} | {tot['agree_b']} -> {tot['agree_a']} | "
          f"{tot['bytes_b']} -> {tot['bytes_a']} | |")
    print()
    # 3. Row by row, the scenarios whose declarations changed.
    show = ("dram", "l2", "fp32", "shared", "l1", "int32", "launch")
    for sc, items in sorted(changed_rows.items()):
        print(f"## {sc}: rows whose declared work changed")
        print("  counted: hw sm / l1tex / dram / l2 %  -> hw_limiter | declared before -> after "
              "(after: %-of-peak of the declared units)  [x = still flagged]")
        for r, b, a, lb, ub, la, ua, fb, fa in items:
            hw = "/".join(f"{num(r, 'hw_' + n + '_pct'):.0f}" for n in ("sm", "l1tex", "dram", "l2"))
            us = " ".join(f"{k} {ua[k]:.0f}" for k in show if k in ua)
            mark = "x" if fa[0] else " "
            sl1 = (ua.get("shared", 0) + ua.get("l1", 0))
            print(f"  {mark} {r['variant']:<18} {r['params']:<44} {hw:<14} -> {r['hw_limiter']:<12} | "
                  f"{lb:<10} -> {la:<10} ({us}; shared+l1 {sl1:.0f} vs counted l1tex {num(r, 'hw_l1tex_pct'):.0f})")
        print()
    # 3b. Interleaved vs sequential addressing: L1TEX cycles per group (1 wavefront a cycle,
    # the H100's 132 SMs).
    print("## reduction: counted L1TEX busy cycles per group, interleaved-16x16 minus sequential-16x16 "
          "(declared: 105 wavefronts)")
    busy = {}
    for r in warm:
        if r["scenario"] == "reduction" and r["variant"] in ("interleaved-16x16", "sequential-16x16"):
            cycles = num(r, "median_ns") * num(r, "hw_sm_clock_mhz") / 1000.0
            busy[(r["variant"], r["params"])] = num(r, "hw_l1tex_pct") / 100 * cycles * 132 / inum(r, "workgroups")
    for p in sorted({k[1] for k in busy}):
        print(f"  {p}: {busy[('interleaved-16x16', p)] - busy[('sequential-16x16', p)]:.0f}")
    print()
    # 4. What stays flagged, everywhere.
    print("## still flagged after (limiter), all scenarios")
    for r in warm:
        sc = r["scenario"]
        variants, measure = cache[sc]
        vars_ = {**params_of(r), **variants[r["variant"]]}
        after = {k: (evaluate(measure[k], vars_) if k in measure else None) for k in WORK_KEYS}
        la, ua, leva = derive(after, r, peaks, cap)
        fa = judge(la, leva, after, r)
        if fa[0]:
            top = max(ua.items(), key=lambda kv: kv[1]) if ua else ("-", 0)
            busy = "+".join(f"{n} {v:.0f}" for n, v in counted(r)) or \
                f"none (max {max(num(r, 'hw_' + n + '_pct') for n in ('sm', 'dram', 'l2', 'l1tex')):.0f})"
            print(f"  {sc:<10} {r['variant']:<18} {r['params']:<44} counted {busy:<22} declared {la} "
                  f"(top {top[0]} {top[1]:.0f} %)")


if __name__ == "__main__":
    main()
