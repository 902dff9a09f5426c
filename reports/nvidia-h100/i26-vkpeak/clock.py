#!/usr/bin/env python3
"""The SM clock, power and throttle reasons nvidia-smi sampled (every 20 ms) while vkpeak and
p3lab ran, from run-int64-clock.sh's output:  python3 clock.py CALLDIR

Each phase between its marks (marks.txt); `busy` are the samples over 200 W (a kernel running)."""
import csv, datetime, gzip, os, statistics as st, sys

d = sys.argv[1]
fmt = '%Y/%m/%d %H:%M:%S.%f'
marks = {}
for line in open(os.path.join(d, 'marks.txt')):
    k, day, t = line.split()
    marks[k] = datetime.datetime.strptime(f'{day} {t}', fmt)
data = []
for r in list(csv.reader(gzip.open(os.path.join(d, 'smi.csv.gz'), 'rt')))[1:]:
    try:
        data.append((datetime.datetime.strptime(r[0].strip(), fmt), float(r[1].split()[0]),
                     float(r[2].split()[0]), r[4].strip()))
    except (ValueError, IndexError):
        pass
print('| phase | samples | busy samples | SM clock min / median / max (MHz) | power median (W) | throttle reasons |')
print('|---|---|---|---|---|---|')
for ph in [k[:-6] for k in marks if k.endswith('-start')]:
    s = [x for x in data if marks[ph + '-start'] <= x[0] <= marks[ph + '-end']]
    b = [x for x in s if x[2] > 200]
    if not b:
        print(f'| {ph} | {len(s)} | 0 | | | |')
        continue
    c = [x[1] for x in b]
    print(f'| {ph} | {len(s)} | {len(b)} | {min(c):.0f} / {st.median(c):.0f} / {max(c):.0f} | '
          f'{st.median(x[2] for x in b):.0f} | {" ".join(sorted({x[3] for x in b}))} |')
