#!/usr/bin/env bash
# Session 45's last device call: is the slower suite of run2.sh (126 rows in 170 s on an H200)
# the per-batch GPU-to-host calibration that a3bc3e1 took out of the hot path? The same two
# scenarios at full size with the base binary (4d017e1) and the current one, back to back.
W=/tmp/speed; mkdir -p $W
for b in base new; do
  bin=.gpu/p3lab; [ $b = base ] && bin=.gpu/p3lab-base
  s=$(date +%s.%N)
  timeout 70 $bin run scenarios/bank_conflicts.toml scenarios/coalescing.toml --profile auto --out $W/$b -q > /dev/null 2> $W/$b.log
  e=$(date +%s.%N)
  python3 - "$W/$b/run.json" "$b" "$s" "$e" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); t = {}
for c in j.get('costs', []):
    for k, v in c.items():
        if isinstance(v, (int, float)): t[k] = t.get(k, 0) + v
rows = sum(j.get('rows', {}).values())
print(sys.argv[2], 'process %.1f s' % (float(sys.argv[4]) - float(sys.argv[3])),
      'run wall %.1f s' % (j.get('wall_ns', 0) / 1e9), 'rows', rows,
      ' '.join('%s %.2f' % (k, v / 1e9) for k, v in sorted(t.items()) if v > 1e8))
PY
done
