#!/usr/bin/env python3
"""Bring results.csv files written before issue 39 to its rule: no unit cell over 100 %.

Before issue 39 p3lab wrote a declared %-of-peak over 100 into its unit cell (`flop_pct`
121.3, ...) and could make it the limiter. Such a figure is impossible: the declaration counts
work the hardware did not do at that level, or the peak was wrong. p3lab since empties the
cell, keeps the figure in `declared_over_units` / `declared_over_peak`, names it in `flags`,
and never makes it the limiter. This script does the same to an old file, in place:

- every declared unit cell (the `column`s of src/units.rs's DECLARED table) over 100 on an ok
  row is emptied; its unit joins `declared_over_units` (`+`-joined), the largest such figure
  goes to `declared_over_peak`, and `flags` names it where it does not yet;
- a `limiter_pct` over 100 (the limiter was such a figure) empties `limiter`, `limiter_pct`
  and `limiter_source`, and `limiter_evidence` says what it was. No other limiter is derived:
  that needs the scenario's declared work and the run's peaks, which p3lab's run had. A
  `declared_limiter_pct` over 100 (the declared second opinion beside a counted limiter)
  empties `declared_limiter` and `declared_limiter_pct`; the counted limiter stands.

Every other cell stays byte for byte (the two columns are added after the others where missing,
before any `param_*` columns, as a newer p3lab's are). A file whose header already has `declared_over_units` was written by a
p3lab that applied the rule and is left alone. Prints what it changed per file.

usage: scripts/upgrade_declared_over.py FILE...   (results.csv or results.csv.gz)"""
import csv, gzip, io, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
src = open(os.path.join(HERE, "..", "src", "units.rs")).read()
table = src[src.index("pub const DECLARED") : src.index("pub const COUNTED")]
UNITS = re.findall(r'name: "(\w+)",\s*column: "(\w+)"', table)
NOTE = "moved out of its cell by scripts/upgrade_declared_over.py (written before issue 39)"


def fix(path):
    gz = path.endswith(".gz")
    raw = (gzip.open if gz else open)(path, "rt", newline="").read()
    rows = list(csv.reader(io.StringIO(raw)))
    head = rows[0]
    if "declared_over_units" in head:
        return f"{path}: already has declared_over_units, left alone"
    # The new columns go before the typed params columns (`param_*`), which end a row.
    at = next((i for i, h in enumerate(head) if h.startswith("param_")), len(head))
    head[at:at] = ["declared_over_units", "declared_over_peak"]
    col = {name: i for i, name in enumerate(head)}
    units_at, peak_at = at, at + 1
    changed = limiters = 0
    for r in rows[1:]:
        r[at:at] = ["", ""]
        if r[col["status"]] != "ok":
            continue
        over = []
        for unit, c in UNITS:
            i = col.get(c)
            if i is not None and r[i] and float(r[i]) > 100:
                over.append((unit, c, float(r[i])))
                r[i] = ""
        flags = [f for f in r[col["flags"]].split("; ") if f] if "flags" in col else []
        for unit, c, v in over:
            if not any(f.startswith(c + " ") for f in flags):
                flags.append(f"{c} {v:.1f} > 100: {NOTE}")
        if over:
            r[units_at] = "+".join(u for u, _, _ in over)
            r[peak_at] = repr(max(v for _, _, v in over))
            changed += 1
        lp = col.get("limiter_pct")
        if lp is not None and r[lp] and float(r[lp]) > 100:
            was = f"{r[col['limiter']]} {float(r[lp]):.1f} %"
            for c in ("limiter", "limiter_pct", "limiter_source"):
                if c in col:
                    r[col[c]] = ""
            if "limiter_evidence" in col:
                r[col["limiter_evidence"]] = (
                    f"before issue 39 p3lab made a declared figure over 100 % the limiter ({was}); "
                    f"{NOTE.replace('moved out of its cell', 'taken out')}, which derives no other"
                )
            limiters += 1
        dp = col.get("declared_limiter_pct")
        if dp is not None and r[dp] and float(r[dp]) > 100:
            r[dp] = ""
            r[col["declared_limiter"]] = ""
            limiters += 1
        if "flags" in col:
            r[col["flags"]] = "; ".join(flags)
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    data = out.getvalue()
    if gz:
        with gzip.open(path, "wt", compresslevel=9, newline="") as f:
            f.write(data)
    else:
        with open(path, "w", newline="") as f:
            f.write(data)
    return f"{path}: {changed} rows with a unit cell over 100 moved, {limiters} limiters taken out"


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for p in sys.argv[1:]:
        print(fix(p))
