#!/usr/bin/env python3
"""Do two run folders hold the same measurement, apart from what depends on time?

    scripts/same_output.py RUN_A RUN_B

Compares results.csv, samples.csv and metrics.csv cell by cell (same header, same rows in the
same order) and run.json key by key, leaving out the columns and keys whose values depend on
when and how fast the run went (timings and their statistics, clocks, counters, ids, dates,
wall-time costs) and saying which ones it left out. samples.csv is compared over the rounds
both runs have: the leading rounds left out as warm-up (a timing decision) are made up for by
more rounds, so one run may hold more of a variant's rounds than the other. Exit 0 when everything else is
byte-identical, 1 with the first differences otherwise. For a refactoring (issue 43) or an
overlap of host work (issue 42): run the same command with a fixed number of rounds
(`--rounds N --max-rounds N --seed S`) before and after, then compare the folders. Standard
library only.
"""
import csv
import json
import re
import sys
from pathlib import Path

# results.csv / metrics.csv / samples.csv columns whose values follow the timings.
TIME_COLUMNS = re.compile(
    r"(^run_id$|_ns$|_ns_|^n$|^mean|^median|^stddev|^cv|^mad|^p5|^p95|_pct$|per_s$|^rounds|"
    r"stop_reason|^trend|clock|^limiter|^declared_limiter|^declared_over|^top_unit|^flags$|"
    r"^reason$|^hw_|^achieved_|^placement|^ci_|^rerun|^kept$|^phase$|^value$|^memory_level$|"
    r"^outlier|^drift|^warmup|^clock)"
)
# metrics.csv rows whose value is a timing, a count of rounds or a counter.
TIME_METRIC_SOURCES = {"runner", "hw_counters", "cupti-pm-sampling", "vk-performance-query",
                       "warmup", "clock", "timing"}
# run.json keys that are times, ids, costs or what the timings decided.
TIME_KEYS = {"run_id", "started_utc", "finished_utc", "command_line", "resume_command_lines",
             "git_revision", "costs", "cases", "rounds", "clock_gauge", "timestamp_rate",
             "hw_counters", "compile_cache", "setup_ns", "host", "cache_dir", "wall_ns",
             "gpu_share", "assets_hash", "peaks_file", "scenarios", "args", "timeline",
             "warmups", "cost_table"}
# samples.csv: a variant's leading rounds still warming up are left out of its statistics and
# made up for by more rounds (measure/left_out.rs); how many follows the timings, so two runs
# may hold a different number of rounds of a variant. Its rows are compared over the rounds
# both runs have, and the rest is counted as time-dependent.
SAMPLE_GROUP = ("scenario", "variant", "params", "mode")


def table(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def compare_csv(name, a, b, out):
    pa, pb = Path(a) / name, Path(b) / name
    if not pa.exists() and not pb.exists():
        return
    ha, ra = table(pa)
    hb, rb = table(pb)
    if ha != hb:
        out.append(f"{name}: headers differ: {sorted(set(ha) ^ set(hb))}")
        return
    keep = [i for i, h in enumerate(ha) if not TIME_COLUMNS.search(h)]
    left_out = [h for h in ha if TIME_COLUMNS.search(h)]
    src = ha.index("source") if name == "metrics.csv" and "source" in ha else None
    if src is not None:
        ra = [r for r in ra if r[src] not in TIME_METRIC_SOURCES]
        rb = [r for r in rb if r[src] not in TIME_METRIC_SOURCES]
    extra = 0
    pairs = list(enumerate(zip(ra, rb)))
    if name == "samples.csv":
        cols = [ha.index(c) for c in SAMPLE_GROUP]
        ga, gb = {}, {}
        for g, rows in ((ga, ra), (gb, rb)):
            for r in rows:
                g.setdefault(tuple(r[c] for c in cols), []).append(r)
        if list(ga) != list(gb):
            out.append(f"{name}: the variants' rows differ: {sorted(set(ga) ^ set(gb))[:5]}")
            return
        pairs = []
        for key in ga:
            n = min(len(ga[key]), len(gb[key]))
            extra += abs(len(ga[key]) - len(gb[key]))
            pairs.extend((len(pairs), xy) for xy in zip(ga[key][:n], gb[key][:n]))
        if extra:
            # A variant that ran more rounds is alone in the rounds after the others
            # stopped: the slots of a round's order follow the same timing.
            drop = ha.index("round_position")
            keep = [k for k in keep if k != drop]
            left_out.append("round_position")
    elif len(ra) != len(rb):
        out.append(f"{name}: {len(ra)} rows against {len(rb)}")
        return
    diffs = 0
    for i, (x, y) in pairs:
        for k in keep:
            if x[k] != y[k]:
                diffs += 1
                if diffs <= 5:
                    out.append(f"{name} row {i + 2} `{ha[k]}`: {x[k]!r} against {y[k]!r}")
    more = (f" (over the rounds both runs have; {extra} rows of rounds one run added after "
            f"leaving warm-up rounds out, which follows timing)" if extra else "")
    print(f"{name}: {len(pairs)} rows{more}, {len(keep)} columns compared; left out (time): "
          f"{', '.join(left_out)}")
    if diffs > 5:
        out.append(f"{name}: {diffs} differing cells in all")


def compare_json(a, b, out):
    ja = json.loads((Path(a) / "run.json").read_text())
    jb = json.loads((Path(b) / "run.json").read_text())
    keys = sorted(set(ja) | set(jb))
    timed = re.compile(r"(_ns|_ms|_share|_s)$")
    compared = [k for k in keys if k not in TIME_KEYS and not timed.search(k)]
    for k in compared:
        if ja.get(k) != jb.get(k):
            out.append(f"run.json `{k}`: {json.dumps(ja.get(k))[:200]} against "
                       f"{json.dumps(jb.get(k))[:200]}")
    print(f"run.json: {len(compared)} keys compared; left out (time): "
          f"{', '.join(k for k in keys if k not in compared)}")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    a, b = sys.argv[1], sys.argv[2]
    out = []
    for name in ["results.csv", "samples.csv", "metrics.csv"]:
        compare_csv(name, a, b, out)
    compare_json(a, b, out)
    if out:
        print("DIFFERENT:\n  " + "\n  ".join(out))
        sys.exit(1)
    print("same: every compared cell and key is byte-identical")


if __name__ == "__main__":
    main()
