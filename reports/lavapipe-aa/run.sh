#!/usr/bin/env bash
# A/A on lavapipe (issue 41): N processes of one scenario with nothing changed, each compared
# with the first as two runs. Every pair should read "no change".
# usage: reports/lavapipe-aa/run.sh [N] [SCENARIO]   (P3LAB: the binary; default release)
set -u
n=${1:-6}
scenario=${2:-scenarios/bank_conflicts.toml}
P3LAB=${P3LAB:-./target/release/p3lab}
out=$(mktemp -d)
for i in $(seq 1 "$n"); do
  "$P3LAB" -q run "$scenario" --out "$out/p$i" > /dev/null 2>&1 || echo "run $i failed" >&2
done
for i in $(seq 2 "$n"); do
  echo "== p1 vs p$i"
  "$P3LAB" compare "$out/p1" "$out/p$i" -o "$out/c$i" 2>/dev/null | head -2
done
rm -rf "$out"
