#!/usr/bin/env bash
# Issue 41's lavapipe benchmark, across processes: `p3lab ab` (pairs of fresh processes in the
# order ABBA, each row judged over the pairs) on slowab.toml, once A/A (both sides ITERS=200)
# and once with the 10 % change made on purpose (new side ITERS=220), REPEAT times each. Two
# processes cannot resolve 10 % on a device whose processes differ by about 5 % (bench-i41.sh);
# N pairs judged over the pairs can, and this measures how often.
#
# usage: reports/lavapipe-aa/ab-i41.sh [PAIRS] [REPEAT] [OUT]   (defaults 6, 5, reports/lavapipe-aa/ab)
#   P3LAB  the binary (default ./target/release/p3lab)
# Runs from the repository root; nothing else should run on the machine meanwhile.
set -u
pairs=${1:-6}
repeat=${2:-5}
out=${3:-reports/lavapipe-aa/ab}
P3LAB=${P3LAB:-./target/release/p3lab}
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
{
  echo "date: $(date -u +%FT%TZ)"
  echo "p3lab: $("$P3LAB" --version)"
  echo "command: P3LAB=$P3LAB bash $0 $*"
  echo "nproc: $(nproc)"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out/env.txt"
start=$(date +%s)
for i in $(seq 1 "$repeat"); do
  for kind in aa slow10; do
    new=200; [ "$kind" = slow10 ] && new=220
    "$P3LAB" --color never ab --out "$work/$kind-$i" --pairs "$pairs" \
      --base-set ITERS=200 --new-set ITERS=$new -- "$here/slowab.toml" \
      > "$out/$kind-$i.txt" 2> "$work/$kind-$i.err" || echo "ab $kind-$i: exit $?" >> "$out/env.txt"
    cp "$work/$kind-$i/ab.csv" "$out/$kind-$i.ab.csv" 2>/dev/null
  done
done
echo "ab: $(( $(date +%s) - start )) s for $(( repeat * 2 )) ab runs of $pairs pairs" >> "$out/env.txt"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/env.txt"
# One line per ab run: its verdict row and headline.
{
  echo "| run | row verdict | ratio new ÷ base [95 % CI] |"
  echo "|---|---|---|"
  for f in "$out"/*.ab.csv; do
    python3 - "$f" <<'PY'
import csv, sys, os
rows = list(csv.DictReader(open(sys.argv[1])))
name = os.path.basename(sys.argv[1]).replace('.ab.csv', '')
for r in rows:
    ratio = r.get('ratio') or r.get('ratio_new_over_base') or ''
    lo = r.get('ratio_ci_low') or r.get('ci_low') or ''
    hi = r.get('ratio_ci_high') or r.get('ci_high') or ''
    print(f"| {name} {r.get('variant','')} | {r.get('verdict','')} | {ratio} [{lo}, {hi}] |")
PY
  done
} > "$out/summary.md"
cat "$out/summary.md"
