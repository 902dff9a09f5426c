#!/usr/bin/env python3
"""callN: the H100 of that call ran batches at two boost steps, and so did vkpeak's runs. Sets
each int32/int64 variant's rate per clock-gauge reading (samples.csv: the batches of placement 0
kept for the statistics; the gauge reads about 0.5 % under nvidia-smi's MHz) beside vkpeak's
results, and vkpeak's at the other step (x 1980/1995 or 1995/1980).
    python3 steps.py CALLDIR"""
import collections, csv, gzip, os, sys

d = sys.argv[1]
res = {(r['variant'], r['params']): r
       for r in csv.DictReader(gzip.open(os.path.join(d, 'peak', 'results.csv.gz'), 'rt'))}
times = collections.defaultdict(list)
for s in csv.DictReader(gzip.open(os.path.join(d, 'peak', 'samples.csv.gz'), 'rt')):
    v = s['variant']
    if s['kept'] != '1' or s['placement'] != '0' or not s['clock_mhz']:
        continue
    if not (v.startswith('int64-vk') or v.startswith('int32-vkx') or v == 'int32-wg1024-c16'):
        continue
    step = 'high' if float(s['clock_mhz']) > 1980 else 'low'
    times[(v, s['params'], step)].append(float(s['repetition_ns']))
print('| variant | params | gauge step | batches x reps | G/s (median of the step) |')
print('|---|---|---|---|---|')
for (v, p, step), ts in sorted(times.items()):
    key = 'int64_ops' if 'int64' in v else 'int_ops'
    ts.sort()
    print(f"| {v} | {p} | {step} | {len(ts)} | {float(res[(v, p)][key]) / ts[len(ts) // 2]:.1f} |")
vk = {}
for f in sorted(os.listdir(d)):
    if f.startswith('vkpeak') and '.out' in f:
        op = gzip.open if f.endswith('.gz') else open
        for line in op(os.path.join(d, f), 'rt'):
            if line.startswith(('int32-', 'int64-scalar')):
                name, val = line.split('=')
                vk.setdefault(name.strip(), []).append(float(val.split()[0]))
r = 1995 / 1980
lim = 64 * 132 * 2 * 1.98  # int32: 64 IMAD per clock per SM, 132 SMs, 2 ops, 1.98 GHz
print(f'\nint32 limit at 1980 MHz: {lim:.0f} G/s, at 1995: {lim * r:.0f}')
for name, vals in vk.items():
    print(f"vkpeak {name}: " + ', '.join(f'{x:.1f} (x 1980/1995: {x / r:.1f})' for x in vals))
