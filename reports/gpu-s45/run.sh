#!/usr/bin/env bash
# One device call (2026-11-27, session 45): this GPU's peaks, issue 43's trace and roofline,
# issue 41's process-level SD, and two processes of the whole suite at full size (issue 39's
# figures and the A/A judged with the measured SD). Each step's folder goes back as one
# archive as soon as it is done (the device returns a limited number of files).
#   with the device tool: for f in .gpu/*.deb; do dpkg -x $f /; done; ldconfig;
#   OUT=$OUT bash reports/gpu-s45/run.sh
set -x
P=$PWD/.gpu/p3lab
O=${OUT:-/tmp/out}
W=/tmp/s45
mkdir -p $W $O
pack() { (cd $W && find "$1" -name '*.csv' -size +200k -exec gzip -9 {} \; ; tar czf $O/$1.tgz "$1"); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee $O/gpu.txt
# 1. The peaks of this GPU (cached for the runs below), counted.
{ time $P peak --out $W/peak -q ; } > $W/peak.txt 2>&1; cp $W/peak.txt $O/; pack peak
# 2. The process-level SD: 6 fresh processes of the built-in reference set.
{ time $P calibrate-process --out $W/calib -n 6 ; } > $O/calib.txt 2>&1; pack calib
# 3. A timeline trace (smoke, counters on) and its report.
$P run scenarios/smoke.toml --out $W/trace --trace $W/trace/smoke.trace.json -q > $O/trace.txt 2>&1
$P report $W/trace -o $W/trace/report -q; pack trace
# 4. Two processes of the whole suite at full size, then their A/A comparison.
for i in 1 2; do
  { time $P run scenarios/ --profile auto --out $W/aa$i -q > $W/aa$i.summary ; } 2> $O/aa$i.log
  cp $W/aa$i.summary $O/
  [ $i = 1 ] && $P report $W/aa1 -o $W/aa1/report -q
  pack aa$i
done
$P compare $W/aa1 $W/aa2 -o $W/aa-compare > $O/aa-compare.txt 2>&1
ls -la $O
