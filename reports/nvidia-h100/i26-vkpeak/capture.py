#!/usr/bin/env python3
"""callI: p3lab's best int64 variants with the capture flags (capture1, capture2) and without
(P3LAB_NO_CAPTURE=1: nocapture1, nocapture2), beside vkpeak:  python3 capture.py CALLDIR"""
import csv, glob, gzip, os, sys

d = sys.argv[1]
vk = []
for f in sorted(glob.glob(os.path.join(d, 'vkpeak*.out.gz'))):
    vk += [float(l.split('=')[1].split()[0]) for l in gzip.open(f, 'rt') if l.startswith('int64-scalar')]
print(f'vkpeak int64-scalar: {", ".join(f"{v:.0f}" for v in vk)} G/s')
print('| run | variant | registers | median (ms) | fastest (ms) | ops / fastest (G/s) | / vkpeak |')
print('|---|---|---|---|---|---|---|')
for run in ('capture1', 'nocapture1', 'capture2', 'nocapture2'):
    for r in csv.DictReader(gzip.open(os.path.join(d, run, 'results.csv.gz'), 'rt')):
        if 'int64' in r['variant']:
            ops, mn = float(r['int64_ops']), float(r['min_ns'])
            print(f"| {run} | {r['variant']} | {r['registers_per_thread'] or '-'} | "
                  f"{float(r['median_ns']) / 1e6:.3f} | {mn / 1e6:.3f} | {ops / mn:.0f} | {ops / mn / max(vk):.4f} |")
