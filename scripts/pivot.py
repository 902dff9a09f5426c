#!/usr/bin/env python3
"""Pivot p3lab results: median time per variant, one table per scenario.

usage: scripts/pivot.py RESULTS_CSV|RUN_DIR|MERGED_DIR [--by params|device] [--value COLUMN]
                        [--status ok] [--csv DIR]

  RUN_DIR      a `p3lab run --out` folder: rows = variant, columns = params case
  MERGED_DIR   a `p3lab merge` folder (runs.json) or any results.csv with several devices:
               rows = variant x params, columns = device (device_name, plus the host where two
               hosts have the same GPU)
  --by         force the layout (default: device when there is more than one device or the
               folder is a merge, else params)
  --value      the column to pivot, any column of results.csv (default median_ns; e.g.
               gbytes_per_s, cv_pct, limiter); values ending in _ns are printed in
               microseconds; text columns show the cell's value (several: joined by " / ")
  --csv DIR    also write one pivot_<scenario>.csv per scenario into DIR (for spreadsheets)

Rows and columns sort naturally: numbers inside names and params compare as numbers
(stride1, stride2, stride16; radius=32 before radius=128). Python's standard library only:
a gzipped results.csv.gz (as under reports/) reads too.
"""
import argparse
import csv
import gzip
import io
import os
import re
import signal
import statistics
import sys

# `scripts/pivot.py fleet | head` ends quietly instead of with a BrokenPipeError.
signal.signal(signal.SIGPIPE, signal.SIG_DFL)


def natural(text):
    """A sort key where runs of digits compare as numbers: stride2 < stride16."""
    parts = re.split(r"(\d+(?:\.\d+)?)", str(text))
    return [(0, float(p), "") if i % 2 else (1, 0.0, p) for i, p in enumerate(parts)]


def load(path):
    """results.csv rows as dicts, and whether they came from a merged folder."""
    merged = False
    if os.path.isdir(path):
        merged = os.path.isfile(os.path.join(path, "runs.json"))
        plain = os.path.join(path, "results.csv")
        path = plain if os.path.isfile(plain) else plain + ".gz"
    if not os.path.isfile(path):
        sys.exit(f"{path}: no such file")
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    versions = sorted({r.get("schema_version", "") for r in rows})
    if len(versions) > 1:
        sys.exit(f"{path}: several schema_versions {versions}; pivot each separately")
    return rows, merged


def device_labels(rows):
    """device_name, with the host added where one device name appears on several hosts."""
    hosts = {}
    for r in rows:
        hosts.setdefault(r.get("device_name", ""), set()).add(r.get("host", ""))
    for r in rows:
        name = r.get("device_name", "")
        r["device"] = f"{name} @ {r.get('host', '')}" if len(hosts[name]) > 1 else name


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def cell(values, scale):
    """The median of numeric values (scaled), else the distinct texts joined."""
    nums = [number(v) for v in values if v != ""]
    if nums and all(n is not None for n in nums):
        return statistics.median(nums) / scale
    texts = sorted({v for v in values if v != ""}, key=natural)
    return " / ".join(texts)


def fmt(v):
    if isinstance(v, float):
        return f"{v:.3f}".rstrip("0").rstrip(".") if abs(v) < 1e15 else f"{v:.4g}"
    return v if v != "" else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path")
    ap.add_argument("--by", choices=["params", "device"])
    ap.add_argument("--value", default="median_ns")
    ap.add_argument("--status", default="ok", help="rows of this status only (default ok)")
    ap.add_argument("--csv", metavar="DIR", help="also write pivot_<scenario>.csv files")
    a = ap.parse_args()

    rows, merged = load(a.path)
    if rows and a.value not in rows[0]:
        sys.exit(f"no column {a.value!r}; columns: {', '.join(rows[0].keys())}")
    rows = [r for r in rows if r.get("status") == a.status]
    if not rows:
        sys.exit(f"no rows with status {a.status!r}")
    device_labels(rows)
    by = a.by or ("device" if merged or len({r["device"] for r in rows}) > 1 else "params")
    index = ["variant"] if by == "params" else ["variant", "params"]
    columns = "params" if by == "params" else "device"
    # A measurement mode (warm/cold) is part of what a row measured: keep modes apart.
    if len({r.get("mode", "") for r in rows}) > 1:
        index.append("mode")

    scale, unit = (1e3, "us") if a.value.endswith("_ns") else (1.0, "")
    label = a.value[:-3] + "_us" if unit else a.value
    if a.csv:
        os.makedirs(a.csv, exist_ok=True)
    for scenario in sorted({r["scenario"] for r in rows}, key=natural):
        g = [r for r in rows if r["scenario"] == scenario]
        cells = {}
        for r in g:
            key = tuple(r.get(k, "") for k in index)
            cells.setdefault((key, r.get(columns, "")), []).append(r.get(a.value, ""))
        shared = sum(len(v) for v in cells.values() if len(v) > 1)
        if shared:
            print(f"note: {scenario}: {shared} rows share a cell (several runs of one device?); "
                  f"showing their median", file=sys.stderr)
        keys = sorted({k for k, _ in cells}, key=lambda k: [natural(x) for x in k])
        cols = sorted({c for _, c in cells}, key=natural)
        table = [list(index) + cols]
        for k in keys:
            table.append(list(k) + [cell(cells.get((k, c), []), scale) for c in cols])
        print(f"== {scenario}: {label} by {' x '.join(index)} / {columns}")
        text = [[fmt(v) for v in row] for row in table]
        width = [max(len(r[i]) for r in text) for i in range(len(text[0]))]
        for row in text:
            print("  ".join(v.ljust(w) if i < len(index) else v.rjust(w)
                            for i, (v, w) in enumerate(zip(row, width))).rstrip())
        print()
        if a.csv:
            with open(os.path.join(a.csv, f"pivot_{scenario}.csv"), "w", newline="") as f:
                w = csv.writer(f)
                for row in table:
                    w.writerow(["" if v == "" else v for v in row])


if __name__ == "__main__":
    main()
