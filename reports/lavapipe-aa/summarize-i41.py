#!/usr/bin/env python3
"""Summarize bench-i41.sh's comparisons (OUT/compare.tar.xz, or OUT/compare/*.json, plain or
gzipped) as Markdown on stdout.

Per scenario and SD source (measured / conservative): the pairs compared, how many read
anything other than "no change" (improved or regressed claims; unstable and
placement-dependent counted apart), and in how many comparisons the geometric mean's
interval holds 1. For the change made on purpose: how many comparisons found slow10
"regressed", and the ratios.
usage: summarize-i41.py OUT
"""
import fnmatch
import glob
import gzip
import json
import os
import re
import sys
import tarfile


def load(out, pattern, exact=None):
    """The comparisons whose file name matches `pattern` (and `exact`, a regex), in name order:
    from OUT/compare.tar.xz (bench-i41.sh packs them so: one file compresses the similar JSONs
    much better than one gzip each), else from OUT/compare/*.json or *.json.gz."""
    texts = {}
    packed = os.path.join(out, "compare.tar.xz")
    if os.path.exists(packed):
        with tarfile.open(packed) as tar:
            for m in tar.getmembers():
                name = os.path.basename(m.name)
                if m.isfile() and fnmatch.fnmatch(name, pattern):
                    texts[name] = (packed + ":" + m.name, tar.extractfile(m).read())
    paths = glob.glob(os.path.join(out, "compare", pattern))
    paths += glob.glob(os.path.join(out, "compare", pattern + ".gz"))
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        try:
            with opener(path, "rb") as f:
                texts[os.path.basename(path).removesuffix(".gz")] = (path, f.read())
        except OSError:
            texts[os.path.basename(path).removesuffix(".gz")] = (path, b"")
    found = []
    for name in sorted(texts):
        if exact and not re.fullmatch(exact, name):
            continue
        where, text = texts[name]
        try:
            found.append(json.loads(text))
        except ValueError:
            print(f"warning: {where} is not a comparison", file=sys.stderr)
    return found


def main():
    out = sys.argv[1]
    print("# Issue 41 on lavapipe: A/A pairs of processes and a 10 % change\n")
    env = os.path.join(out, "env.txt")
    if os.path.exists(env):
        print("```\n" + open(env).read().strip() + "\n```\n")
    cal = os.path.join(out, "calibration.txt")
    if os.path.exists(cal):
        print("Calibration (`p3lab calibrate-process -n 6`):\n\n```\n" + open(cal).read().strip() + "\n```\n")
    print("| scenario | process SD | comparisons | pairs | improved or regressed | unstable | placement-dependent | geomean CI holds 1 | headline claims a change |")
    print("|---|---|--:|--:|--:|--:|--:|--:|--:|")
    for s in ["bank_conflicts", "smoke", "reduction", "slow10"]:
        for source in ["measured", "conservative"]:
            cs = load(out, f"{s}-*-{source}.json", rf"{s}-[0-9]+-{source}\.json")
            cs = [c for c in cs if c]
            pairs = sum(c["counts"]["pairs"] for c in cs)
            changed = sum(c["counts"]["improved"] + c["counts"]["regressed"] for c in cs)
            unstable = sum(c["counts"].get("unstable", 0) for c in cs)
            placed = sum(c["counts"]["placement_dependent"] for c in cs)
            holds = sum(
                1
                for c in cs
                if c.get("geomean") and c["geomean"]["ci_low"] is not None
                and c["geomean"]["ci_low"] <= 1 <= c["geomean"]["ci_high"]
            )
            # compare's headline words a change only where the interval excludes 1 and some
            # pair is improved or regressed (src/p3/compare/brief.rs).
            claims = sum(
                1
                for c in cs
                if c.get("geomean") and c["geomean"]["ci_low"] is not None
                and not c["geomean"]["ci_low"] <= 1 <= c["geomean"]["ci_high"]
                and c["counts"]["improved"] + c["counts"]["regressed"] > 0
            )
            print(f"| {s} | {source} | {len(cs)} | {pairs} | {changed} | {unstable} | {placed} | {holds} of {len(cs)} | {claims} of {len(cs)} |")
    print("\nThe 10 % change (`compare A B --pair base=slow10`: base of one process, slow10 of the next):\n")
    print("| how | comparisons | regressed | ratios |")
    print("|---|--:|--:|---|")
    for how in ["measured", "conservative", "one-run"]:
        cs = load(out, f"slow10-*-change-{how}.json")
        rows = [p for c in cs for p in c["pairs"]]
        regressed = sum(1 for p in rows if p["verdict"] == "regressed")
        ratios = ", ".join(
            f"{p['ratio']:.3f} [{p['ci_low']:.3f}, {p['ci_high']:.3f}]" if p["ratio"] else "-"
            for p in rows
        )
        label = {"measured": "two runs, measured SD", "conservative": "two runs, conservative SD", "one-run": "one run (paired rounds)"}[how]
        print(f"| {label} | {len(rows)} | {regressed} | {ratios} |")
    for c in load(out, "bank_conflicts-1-measured.json")[:1]:
        if c.get("process_level"):
            print("\nWhat compare said (bank_conflicts, pair 1): `process level: " + c["process_level"][0] + "`")


if __name__ == "__main__":
    main()
