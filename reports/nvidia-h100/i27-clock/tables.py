#!/usr/bin/env python3
"""Tables of reports/nvidia-h100/i27-clock: python3 tables.py CALLDIR (call1, call2, ...).

For each kind (suite: coalescing + write_pattern; fma: peaks/fma.toml at its small size) and
each process (old-1, new-2, old-3, new-4: binary and order), the per-row medians, the gauge's
clock (new binary), the counters' SM clock, and the ratio between the two processes of one
binary; then nvidia-smi's SM clock over each process's run (steps.txt gives the times)."""
import csv, gzip, io, json, os, sys, statistics

d = sys.argv[1]


def opn(p):
    return gzip.open(p + '.gz', 'rt') if os.path.exists(p + '.gz') else open(p)


def rows(p):
    return {(r['scenario'], r['variant'], r['params'], r['mode']): r
            for r in csv.DictReader(opn(os.path.join(p, 'results.csv')))}


runs = ['old-1', 'new-2', 'old-3', 'new-4']
for kind in ['suite', 'fma']:
    R = {n: rows(os.path.join(d, f'{kind}-{n}')) for n in runs}
    print(f'## {kind}\n')
    for n in runs:
        j = json.load(opn(os.path.join(d, f'{kind}-{n}', 'run.json')))
        g = j.get('clock_gauge')
        extra = ''
        if g:
            extra = (f" gauge highest {g['highest_mhz']:.0f} MHz, batches {g['batches']}, redone {g['redone']}"
                     f" ({g['redone_ms']:.0f} ms), kept low {g['kept_low']}, own clock {len(g['own_clock'])}")
        print(f"- {n}: {j.get('git_revision', '')[:7]} wall {j['wall_ns'] / 1e9:.1f} s{extra}")
    print()
    print('| row | old-1 µs | old-3 µs | new-2 µs | new-4 µs | old-1/old-3 | new-2/new-4 | gauge MHz new-2 / new-4 | counted MHz old-1 / old-3 / new-2 / new-4 |')
    print('|---|---|---|---|---|---|---|---|---|')
    spread = {'old': [], 'new': []}
    for k in sorted(R['old-1']):
        if any(R[n].get(k, {}).get('status') != 'ok' for n in runs):
            continue
        m = {n: float(R[n][k]['median_ns']) / 1e3 for n in runs}
        a, b = m['old-1'] / m['old-3'], m['new-2'] / m['new-4']
        spread['old'].append(abs(a - 1))
        spread['new'].append(abs(b - 1))
        g = ' / '.join(f"{float(R[n][k]['clock_mhz']):.0f}" if R[n][k].get('clock_mhz') else '' for n in ['new-2', 'new-4'])
        h = ' / '.join(f"{float(R[n][k]['hw_sm_clock_mhz']):.0f}" if R[n][k].get('hw_sm_clock_mhz') else '' for n in runs)
        print(f"| {k[1]} {k[2]} | {m['old-1']:.2f} | {m['old-3']:.2f} | {m['new-2']:.2f} | {m['new-4']:.2f} | {a:.3f} | {b:.3f} | {g} | {h} |")
    for b in ['old', 'new']:
        v = spread[b]
        if v:
            print(f"\n{b}: |ratio - 1| between its two processes: median {100 * statistics.median(v):.1f} %, max {100 * max(v):.1f} %")
    print()

# nvidia-smi over each process
steps = [l.split() for l in open(os.path.join(d, 'steps.txt'))]
smi = []
for r in csv.reader(opn(os.path.join(d, 'smi.csv'))):
    if r[0].startswith('timestamp'):
        continue
    t = r[0].split()[1]
    smi.append((t, int(r[1].split()[0])))
print('## nvidia-smi SM clock during each step (20 ms samples)\n')
print('| step | samples | min MHz | median MHz | share at 1980 MHz |')
print('|---|---|---|---|---|')
for i, s in enumerate(steps[:-1]):
    t0, t1 = s[0], steps[i + 1][0]
    c = [x for t, x in smi if t0 <= t < t1]
    if c:
        print(f"| {' '.join(s[1:])} | {len(c)} | {min(c)} | {statistics.median(c):.0f} | {sum(1 for x in c if x >= 1980) / len(c):.0%} |")
