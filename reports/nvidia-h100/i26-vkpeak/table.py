#!/usr/bin/env python3
"""p3lab's peaks against vkpeak's, same GPU, same call:  python3 table.py CALLDIR

CALLDIR holds peak/peaks.csv (p3lab peak) and vkpeak.out(.gz) (vkpeak 0 ...), or vkpeak1.out and
vkpeak2.out (vkpeak before and after p3lab: the higher counts). vkpeak's scalar and vec4 forms of
a unit: the higher counts. Both tools count a multiply-add as 2 operations."""
import csv, glob, gzip, os, sys

d = sys.argv[1]
opn = lambda p: gzip.open(p + '.gz', 'rt') if os.path.exists(p + '.gz') else open(p)
peaks = {r['unit']: r for r in csv.DictReader(opn(os.path.join(d, 'peak', 'peaks.csv')))}
vk = {}
outs = sorted({f[:-3] if f.endswith('.gz') else f for f in glob.glob(os.path.join(d, 'vkpeak*.out*'))})
for out in outs:
    for line in opn(out):
        if '=' in line:
            name, rest = line.split('=')
            vk[name.strip()] = max(vk.get(name.strip(), 0.0), float(rest.split()[0]))
pairs = [('fp32', ['fp32-scalar', 'fp32-vec4']), ('fp16', ['fp16-scalar', 'fp16-vec4']),
         ('fp64', ['fp64-scalar', 'fp64-vec4']), ('int32', ['int32-scalar', 'int32-vec4']),
         ('int16', ['int16-scalar', 'int16-vec4']), ('int64', ['int64-scalar', 'int64-vec4']),
         ('int8_dot', ['int8-dotprod']), ('tensor_f16_f16', ['fp16-matrix']),
         ('tensor_bf16_f32', ['bf16-matrix']), ('tensor_s8_s32', ['int8-matrix'])]
print('| unit | p3lab (G/s) | best variant | vkpeak (G/s) | p3lab / vkpeak |')
print('|---|---|---|---|---|')
for unit, names in pairs:
    v = [vk[n] for n in names if n in vk]
    if unit not in peaks or not v:
        continue
    p = float(peaks[unit]['value'])
    print(f"| {unit} | {p:.0f} | {peaks[unit]['best_variant']} | {max(v):.0f} | {p / max(v):.3f} |")
