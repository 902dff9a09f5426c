#!/usr/bin/env bash
# The A/A comparison and the known effects, from the runs run-aa.sh made (no GPU needed):
#   bash reports/nvidia-h200/aa-compare.sh [P3LAB]  > reports/nvidia-h200/aa/compare.txt
set -u
P=${1:-target/release/p3lab}
D=reports/nvidia-h200/aa
python3 scripts/aa_figures.py $D/a $D/b $D/cache
for pair in "a b" "b a" "cache a" "cache b"; do
  set -- $pair
  echo "== p3lab compare $D/$1 $D/$2"
  $P compare $D/$1 $D/$2 --out $D/compare-$1-$2 2>&1 | grep -E "pairs:|IMPROVED|REGRESSED"
done
for pair in nreg16-smem0=nreg24-smem0 float-pad0=float-pad1 stride64=stride1; do
  echo "== p3lab compare $D/a --pair $pair"
  $P compare $D/a --pair $pair 2>&1 | grep -E " -> |time "
done
