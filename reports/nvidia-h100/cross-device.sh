#!/usr/bin/env bash
# The same suite on two devices, from the committed runs (no GPU needed):
#   bash reports/nvidia-h100/cross-device.sh [P3LAB] > reports/nvidia-h100/cross-device.txt
# `compare` refuses runs from different devices; --allow-cross-device compares them and marks
# every pair. Memory-bound rows should differ by about the two memories' bandwidth ratio.
set -u
P=${1:-target/release/p3lab}
H200=reports/nvidia-h200/aa/a
H100=reports/nvidia-h100/aa/a
O=$(mktemp -d)
echo "== p3lab compare $H200 $H100"
$P compare $H200 $H100 --out $O 2>&1 | sed "s|$O|OUT|"
echo "exit ${PIPESTATUS[0]}"
echo "== p3lab compare $H200 $H100 --allow-cross-device"
$P compare $H200 $H100 --allow-cross-device --out $O 2>&1 | grep -E "pairs:|cross-device\]:" | sed "s|$O|OUT|"
echo "== the 8 rows with the highest declared bandwidth on the H200 (gbytes_per_s): memory-bound"
echo "   rows; their H100 time / H200 time against the memories' 4.8 / 3.35 TB/s = 1.43"
${PYTHON:-python3} -c "
import csv, gzip, os
def ok(run):
    p = run + '/results.csv'
    f = open(p) if os.path.exists(p) else gzip.open(p + '.gz', 'rt')
    return {(r['scenario'], r['variant'], r['params'], r['mode']): r for r in csv.DictReader(f) if r['status'] == 'ok' and r['gbytes_per_s']}
a, b = ok('$H200'), ok('$H100')
top = sorted((k for k in a if k in b), key=lambda k: -float(a[k]['gbytes_per_s']))[:8]
for k in top:
    x, y = a[k], b[k]
    print(f'  {k[0]}/{k[1]} [{k[2]}] ({k[3]}): H200 {float(x[\"gbytes_per_s\"]):.0f} GB/s, H100 {float(y[\"gbytes_per_s\"]):.0f} GB/s, time ratio {float(y[\"median_ns\"]) / float(x[\"median_ns\"]):.3f}')"
rm -rf $O
