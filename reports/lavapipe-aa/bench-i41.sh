#!/usr/bin/env bash
# Issue 41's lavapipe benchmark: N pairs of separate processes of bank_conflicts, smoke and
# reduction (their defaults), each pair compared as two runs, once with the process SD that
# `p3lab calibrate-process` measured on this device and once without it (the conservative
# 6 % of a CPU device); plus a change of 10 % made on purpose (slow10.toml: `base` of one
# process against `slow10` of the next), which must still be found.
#
# usage: reports/lavapipe-aa/bench-i41.sh [N] [OUT]
#   N    pairs of processes per scenario (default 10)
#   OUT  where the results go (default reports/lavapipe-aa/i41): env.txt, calibration.txt,
#        process_sd.json, compare.tar.xz (compare/NAME.json, one per comparison), summary.md
#   P3LAB  the binary (default ./target/release/p3lab; lavapipe's times are its own C code's,
#          so a debug p3lab measures the same kernels, only its host side is slower)
# Runs from the repository root. Nothing else should run on the machine meanwhile: the
# processes' spread is what is measured.
set -u
n=${1:-10}
out=${2:-reports/lavapipe-aa/i41}
P3LAB=${P3LAB:-./target/release/p3lab}
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out/compare"
# A cache of its own: this benchmark's calibration, and no other run's peaks or process SD.
export P3LAB_CACHE_DIR="$work/cache"
{
  echo "date: $(date -u +%FT%TZ)"
  echo "p3lab: $("$P3LAB" --version)"
  echo "command: P3LAB=$P3LAB bash $0 $*"
  echo "nproc: $(nproc)"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out/env.txt"

# 1. The device's process-level SD, and what it cost.
start=$(date +%s)
"$P3LAB" calibrate-process -o "$work/calibration" -n 6 > "$out/calibration.txt" 2> "$work/calibration.err" \
  || { cat "$work/calibration.err" >&2; exit 1; }
echo "calibration: $(( $(date +%s) - start )) s for 6 processes" >> "$out/env.txt"
cp "$work/calibration/process_sd.json" "$out/process_sd.json"

# 2. N pairs of processes per scenario, interleaved so that the machine's drift hits all alike.
scenarios="bank_conflicts smoke reduction"
start=$(date +%s)
for i in $(seq 1 "$n"); do
  for side in a b; do
    for s in $scenarios; do
      "$P3LAB" -q run "scenarios/$s.toml" --out "$work/$s-$side$i" > /dev/null 2>&1 \
        || echo "run $s-$side$i failed" >&2
    done
    "$P3LAB" -q run "$here/slow10.toml" --out "$work/slow10-$side$i" > /dev/null 2>&1 \
      || echo "run slow10-$side$i failed" >&2
  done
done
echo "runs: $(( $(date +%s) - start )) s for $(( n * 8 )) processes" >> "$out/env.txt"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/env.txt"

# 3. Each pair compared as two runs: with the measured SD (the cache), and without (a cache
# with none: the conservative value). The slow10 runs: A/A (every variant against itself),
# base of one process against slow10 of the other, and the same within one run.
cmp() { # NAME CACHE ARGS...
  local name=$1 cache=$2
  shift 2
  P3LAB_CACHE_DIR=$cache "$P3LAB" compare "$@" --format json -o "$work/c-$name" \
    > "$out/compare/$name.json" 2> /dev/null || echo "compare $name failed" >&2
}
for i in $(seq 1 "$n"); do
  for s in $scenarios slow10; do
    cmp "$s-$i-measured" "$work/cache" "$work/$s-a$i" "$work/$s-b$i"
    cmp "$s-$i-conservative" "$work/empty" "$work/$s-a$i" "$work/$s-b$i"
  done
  cmp "slow10-$i-change-measured" "$work/cache" "$work/slow10-a$i" "$work/slow10-b$i" --pair base=slow10
  cmp "slow10-$i-change-conservative" "$work/empty" "$work/slow10-a$i" "$work/slow10-b$i" --pair base=slow10
  cmp "slow10-$i-change-one-run" "$work/cache" "$work/slow10-b$i" --pair base=slow10
done

python3 "$here/summarize-i41.py" "$out" > "$out/summary.md"
# One archive: the 110 similar JSONs compress to 125 KB together, 440 KB gzipped one by one.
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$out" -cf - compare \
  | xz -9e > "$out/compare.tar.xz" && rm -r "$out/compare"
cat "$out/summary.md"
