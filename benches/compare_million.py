#!/usr/bin/env python3
"""compare on two synthetic runs of 4000 variants x 250 timed repetitions each (10^6 sample
rows per run; issue 30: compare must be O(rows + samples)):

    python3 benches/compare_million.py target/release/p3lab [DIR]

Writes the two run folders into DIR (default /tmp/p3lab-compare-million), then times
`p3lab compare A B` and reports wall time and peak memory (GNU time's max RSS when
/usr/bin/time exists, else the child's ru_maxrss)."""
import csv
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

VARIANTS, ROUNDS, REPS = 4000, 10, 25


def write_run(d: Path, run_id: str, seed: int):
    d.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    with open(d / "results.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["schema_version", "run_id", "scenario", "variant", "params", "status", "mode",
                    "median_ns", "rounds", "placements"])
        for v in range(VARIANTS):
            w.writerow([2, run_id, "s", f"v{v}", "n=1", "ok", "warm", 1000 + v, ROUNDS, 1])
    with open(d / "samples.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["run_id", "scenario", "variant", "params", "repetition", "dispatch", "gpu_ns",
                    "mode", "repetition_ns", "round", "round_position", "batch_repetition", "kept",
                    "phase", "placement"])
        for v in range(VARIANTS):
            rep = 0
            for r in range(ROUNDS):
                for b in range(REPS):
                    t = (1000 + v) * (1 + 0.001 * rng.gauss(0, 1))
                    w.writerow([run_id, "s", f"v{v}", "n=1", rep, 0, f"{t:.1f}", "warm", f"{t:.1f}",
                                r, 0, b, 1, "kept", 0])
                    rep += 1


def main():
    p3lab = sys.argv[1]
    root = Path(sys.argv[2] if len(sys.argv) > 2 else "/tmp/p3lab-compare-million")
    a, b = root / "a", root / "b"
    if not (b / "samples.csv").exists():
        write_run(a, "ra", 1)
        write_run(b, "rb", 2)
    cmd = [p3lab, "compare", str(a), str(b), "--out", str(root / "cmp"), "--format", "csv"]
    timer = ["/usr/bin/time", "-f", "%M"] if os.path.exists("/usr/bin/time") else []
    t = time.monotonic()
    out = subprocess.run(timer + cmd, capture_output=True, text=True)
    wall = time.monotonic() - t
    rss_kib = (int(out.stderr.strip().splitlines()[-1]) if timer
               else resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    # `--format csv` prints compare.csv's lines: one per pair and metric, time_ns once a pair.
    pairs = sum(1 for line in out.stdout.splitlines() if ",time_ns," in line)
    print(f"compare of {VARIANTS} variants x {ROUNDS * REPS} samples per run "
          f"({VARIANTS * ROUNDS * REPS} sample rows each): {pairs} pairs, exit {out.returncode}, "
          f"wall {wall:.1f} s, peak memory {rss_kib / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
