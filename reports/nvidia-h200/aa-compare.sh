#!/usr/bin/env bash
# The A/A comparison, the placement check's agreement and the known effects, from the runs
# run-aa.sh made (RUNS="a b"; no GPU needed):
#   PYTHON=python3-with-pandas bash reports/nvidia-h200/aa-compare.sh [P3LAB] > reports/nvidia-h200/aa/compare.txt
# D (default reports/nvidia-h200/aa) names another device's runs, RUNS (default "a b") the
# runs: every pair of them is compared both ways, and the known effects are read from the first.
# samples.csv and metrics.csv are committed gzipped (the tree that travels to the GPU machine
# must stay under 64 MiB); `p3lab compare` reads them so. compare.csv is kept gzipped.
set -u
P=${1:-target/release/p3lab}
D=${D:-reports/nvidia-h200/aa}
RUNS=(${RUNS:-a b})
A=${RUNS[0]}
B=${RUNS[1]}
${PYTHON:-python3} scripts/aa_figures.py ${RUNS[@]/#/$D/}
PAIRS=()
for ((i = 0; i < ${#RUNS[@]}; i++)); do for ((j = i + 1; j < ${#RUNS[@]}; j++)); do
  PAIRS+=("${RUNS[i]} ${RUNS[j]}" "${RUNS[j]} ${RUNS[i]}")
done; done
for pair in "${PAIRS[@]}"; do
  set -- $pair
  echo "== p3lab compare $D/$1 $D/$2"
  $P compare $D/$1 $D/$2 --out $D/compare-$1-$2 2>&1 | grep -iE "pairs:|(improved|regressed)( \[[a-z-]+\])*$|marked \["
  gzip -nf $D/compare-$1-$2/compare.csv $D/compare-$1-$2/compare.md
done
# compare re-derives each side's placement verdict from samples.csv (and run.json, for runs
# written before samples.csv had `phase`): it must mark exactly the pairs with a side the
# runner flagged in results.csv's `reason`.
$P compare $D/$A $D/$B --format csv --out $D/compare-$A-$B 2>/dev/null | ${PYTHON:-python3} -c "
import csv, sys
flag = lambda run: {(r['scenario'], r['variant'], r['params'], r['mode']) for r in csv.DictReader(open(run + '/results.csv')) if 'where its data sits' in r['reason']}
runner = flag('$D/$A') | flag('$D/$B')
pairs = list(csv.DictReader(sys.stdin))
marked = {(p['scenario'], p['variant_base'], p['params'], p['mode']) for p in pairs if 'moved' in p['placement']}
print(f'compare $A $B: {len(marked)} pairs with a side marked as moving with its data, the runner flagged {len(runner)} rows in $A or $B; they differ in {len(marked ^ runner)} of {len(pairs)} pairs')"
for pair in nreg16-smem0=nreg24-smem0 float-pad0=float-pad1 stride64=stride1; do
  echo "== p3lab compare $D/$A --pair $pair"
  $P compare $D/$A --pair $pair 2>&1 | grep -E " -> |time |marked \["
  $P compare $D/$A --pair $pair --format csv 2>/dev/null | PAIR=$pair ${PYTHON:-python3} -c "
import csv, os, sys
for r in csv.DictReader(sys.stdin):
    print(f'  {os.environ[\"PAIR\"]} [{r[\"params\"]}]: ratio with the data moved {float(r[\"ratio_moved\"]):.3f}' if r['ratio_moved'] else '  no placement round', '|', r['placement'] or 'no placement mark')"
done
rm -f $D/$A/compare.csv $D/$A/compare.md $D/compare-$A-$B/compare.csv $D/compare-$A-$B/compare.md
