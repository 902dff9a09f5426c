#!/usr/bin/env python3
"""Where a suite run's wall time went, per scenario, from run.json `cases` (and `hw_counters`,
`compile_cache`, `clock_gauge`), for two or more runs side by side:

    python3 reports/aa3/walls.py RUN_DIR [RUN_DIR ...]

e.g. reports/aa3/nvidia-h200/run6/a (counters on) against run6/nc (counters off), both with a
cold SPIR-V cache."""
import collections, gzip, json, os, sys


def load(d):
    p = os.path.join(d, 'run.json')
    return json.load(gzip.open(p + '.gz', 'rt') if os.path.exists(p + '.gz') else open(p))


runs = [(d, load(d)) for d in sys.argv[1:]]
scen = collections.OrderedDict()
for _, j in runs:
    for c in j['cases']:
        scen.setdefault(c['scenario'], None)
print('| scenario | ' + ' | '.join(os.path.relpath(d) for d, _ in runs) + ' |')
print('|---|' + '---|' * len(runs))
for s in scen:
    cells = []
    for _, j in runs:
        t = sum(c['total_ms'] for c in j['cases'] if c['scenario'] == s) / 1e3
        cells.append(f'{t:.1f} s')
    print(f'| {s} | ' + ' | '.join(cells) + ' |')
rows = [
    ('cases, all', lambda j: sum(c['total_ms'] for c in j['cases']) / 1e3),
    ('of which inputs (host-side data)', lambda j: sum(c.get('inputs_ms', 0) for c in j['cases']) / 1e3),
    ('of which rounds', lambda j: sum(c.get('rounds_ms', 0) for c in j['cases']) / 1e3),
    ('of which check phase', lambda j: sum(c.get('check_phase_ms', 0) for c in j['cases']) / 1e3),
    ('hardware-counter batches', lambda j: (j.get('hw_counters') or {}).get('wall_ms', 0) / 1e3),
    ('shader compiles', lambda j: j['compile_cache']['compile_ns'] / 1e9),
    ('timed again for a low clock', lambda j: (j.get('clock_gauge') or {}).get('redone_ms', 0) / 1e3),
    ('run wall', lambda j: j['wall_ns'] / 1e9),
]
for name, f in rows:
    print(f'| **{name}** | ' + ' | '.join(f'{f(j):.1f} s' for _, j in runs) + ' |')
