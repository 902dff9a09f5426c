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
  --value      the column to pivot (default median_ns; e.g. gbytes_per_s, cv_pct); values
               ending in _ns are printed in microseconds
  --csv DIR    also write one pivot_<scenario>.csv per scenario into DIR (for spreadsheets)

Needs pandas (pip install pandas, or apt-get install python3-pandas).
"""
import argparse
import os
import signal
import sys

# `scripts/pivot.py fleet | head` ends quietly instead of with a BrokenPipeError.
signal.signal(signal.SIGPIPE, signal.SIG_DFL)

try:
    import pandas as pd
except ImportError:  # pragma: no cover
    sys.exit("pivot.py needs pandas: pip install pandas (or apt-get install python3-pandas)")


def load(path):
    """results.csv as a DataFrame, plus whether it came from a merged folder."""
    merged = False
    if os.path.isdir(path):
        merged = os.path.isfile(os.path.join(path, "runs.json"))
        path = os.path.join(path, "results.csv")
    # Only empty cells are missing values: no text ("NA", "null") is ever taken for one.
    df = pd.read_csv(path, keep_default_na=False, na_values=[""])
    versions = sorted(df["schema_version"].dropna().unique().tolist())
    if len(versions) > 1:
        sys.exit(f"{path}: several schema_versions {versions}; pivot each separately")
    return df, merged


def device_labels(df):
    """device_name, with the host added where one device name appears on several hosts."""
    label = df["device_name"].astype(str)
    if "host" in df.columns:
        hosts = df.groupby("device_name")["host"].nunique()
        shared = df["device_name"].map(hosts) > 1
        label = label.where(~shared, label + " @ " + df["host"].astype(str))
    return label


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path")
    ap.add_argument("--by", choices=["params", "device"])
    ap.add_argument("--value", default="median_ns")
    ap.add_argument("--status", default="ok", help="rows of this status only (default ok)")
    ap.add_argument("--csv", metavar="DIR", help="also write pivot_<scenario>.csv files")
    a = ap.parse_args()

    df, merged = load(a.path)
    if a.value not in df.columns:
        sys.exit(f"no column {a.value!r}; columns: {', '.join(df.columns)}")
    df = df[df["status"] == a.status].copy()
    if df.empty:
        sys.exit(f"no rows with status {a.status!r}")
    df["params"] = df["params"].fillna("")
    df["device"] = device_labels(df)
    by = a.by or ("device" if merged or df["device"].nunique() > 1 else "params")

    index = ["variant"] if by == "params" else ["variant", "params"]
    columns = "params" if by == "params" else "device"
    # A measurement mode (warm/cold) is part of what a row measured: keep modes apart.
    if "mode" in df.columns and df["mode"].nunique() > 1:
        index.append("mode")

    scale, unit = (1e3, "us") if a.value.endswith("_ns") else (1.0, "")
    label = a.value[:-3] + "_us" if unit else a.value
    if a.csv:
        os.makedirs(a.csv, exist_ok=True)
    for scenario, g in df.groupby("scenario", sort=True):
        dup = g.duplicated(subset=index + [columns], keep=False)
        if dup.any():
            print(f"note: {scenario}: {int(dup.sum())} rows share a cell (several runs of one "
                  f"device?); showing their median", file=sys.stderr)
        table = g.pivot_table(index=index, columns=columns, values=a.value, aggfunc="median",
                              sort=True) / scale
        print(f"== {scenario}: {label} by {' x '.join(index)} / {columns}")
        with pd.option_context("display.width", 200, "display.max_columns", None,
                               "display.max_rows", None):
            print(table.round(3).to_string())
        print()
        if a.csv:
            table.to_csv(os.path.join(a.csv, f"pivot_{scenario}.csv"))


if __name__ == "__main__":
    main()
