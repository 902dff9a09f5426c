#!/usr/bin/env bash
# The A/A comparison, the placement check's agreement and the known effects, from the runs
# run-aa.sh made (RUNS="a b"; no GPU needed):
#   PYTHON=python3-with-pandas bash reports/nvidia-h200/aa-compare.sh [P3LAB] > reports/nvidia-h200/aa/compare.txt
# samples.csv is committed gzipped; it is unpacked for `p3lab compare` and removed after (the
# tree that travels to the GPU machine must stay under 64 MiB). compare.csv is kept gzipped.
set -u
P=${1:-target/release/p3lab}
D=reports/nvidia-h200/aa
for r in a b; do [ -f $D/$r/samples.csv ] || gunzip -k $D/$r/samples.csv.gz; done
${PYTHON:-python3} scripts/aa_figures.py $D/a $D/b
for pair in "a b" "b a"; do
  set -- $pair
  echo "== p3lab compare $D/$1 $D/$2"
  $P compare $D/$1 $D/$2 --out $D/compare-$1-$2 2>&1 | grep -iE "pairs:|(improved|regressed)( \[[a-z-]+\])*$|marked \["
  gzip -f $D/compare-$1-$2/compare.csv $D/compare-$1-$2/compare.md
done
for pair in nreg16-smem0=nreg24-smem0 float-pad0=float-pad1 stride64=stride1; do
  echo "== p3lab compare $D/a --pair $pair"
  $P compare $D/a --pair $pair 2>&1 | grep -E " -> |time |marked \["
  $P compare $D/a --pair $pair --format csv 2>/dev/null | PAIR=$pair ${PYTHON:-python3} -c "
import csv, os, sys
for r in csv.DictReader(sys.stdin):
    print(f'  {os.environ[\"PAIR\"]} [{r[\"params\"]}]: ratio with the data moved {float(r[\"ratio_moved\"]):.3f}' if r['ratio_moved'] else '  no placement round', '|', r['placement'] or 'no placement mark')"
done
rm -f $D/a/samples.csv $D/b/samples.csv $D/a/compare.csv $D/a/compare.md
