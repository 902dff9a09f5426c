#!/usr/bin/env bash
# The second device call of session 45, after run.sh's first step (`p3lab peak`) did not end
# within the call's 600 s on an H200: the same steps without the peaks first, each bounded by
# `timeout` and packed as soon as it is done, then the peak run for what time is left, with
# its log (-v) to show where it spends it.
#   with the device tool: for f in .gpu/*.deb; do dpkg -x $f /; done; ldconfig;
#   OUT=$OUT bash reports/gpu-s45/run2.sh
set -x
P=$PWD/.gpu/p3lab
O=${OUT:-/tmp/out}
W=/tmp/s45b
mkdir -p $W $O
pack() { (cd $W && find "$1" -name '*.csv' -size +200k -exec gzip -9 {} \; ; tar czf $O/$1.tgz "$1"); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee $O/gpu.txt
{ time timeout 60 $P calibrate-process --out $W/calib -n 6 ; } > $O/calib.txt 2>&1; pack calib
timeout 60 $P run scenarios/smoke.toml --out $W/trace --trace $W/trace/smoke.trace.json -q > $O/trace.txt 2>&1
$P report $W/trace -o $W/trace/report -q; pack trace
for i in 1 2; do
  { time timeout 170 $P run scenarios/ --profile auto --out $W/aa$i -q > $W/aa$i.summary ; } 2> $O/aa$i.log
  cp $W/aa$i.summary $O/
  pack aa$i
done
$P compare $W/aa1 $W/aa2 -o $W/aa-compare > $O/aa-compare.txt 2>&1
{ time timeout 100 $P peak --out $W/peak -v ; } > $W/peak.log 2>&1; gzip -9 -c $W/peak.log > $O/peak.log.gz
ls -la $O
