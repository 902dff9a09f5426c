#!/usr/bin/env bash
# Session 46's third device call (the second's peak and suite died of SIGSEGV after CUPTI and the CUDA driver were unloaded under their own threads; fixed by RTLD_NODELETE): `p3lab peak` (each unit's own sub-unit counters counted on
# its best variant, OUT/own/), the whole suite at full size with those peaks (suite-c), then
# issue 40's real-world example (reports/gpu-i40/run.sh) with them, each step bounded by what
# is left of the call and packed as soon as it is done.
#   with the device tool, carry [".gpu"]:
#   for f in .gpu/*.deb; do dpkg -x $f /; done; ldconfig; OUT=$OUT bash reports/gpu-s46/call3.sh
set -x
P=$PWD/.gpu/p3lab
O=${OUT:-/tmp/out}
W=/tmp/s46
mkdir -p $W $O
start=$(date +%s)
LIMIT=${LIMIT_S:-580}
left() { echo $(( LIMIT - ($(date +%s) - start) - ${1:-0} )); }
pack() { (cd $W && find "$1" -name '*.csv' -size +200k -exec gzip -9 {} \; ; tar czf $O/$1.tgz "$1"); }
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
  $P --version
} > $O/machine.txt 2>&1
s=$(date +%s)
timeout -s INT $(left 150) $P peak --out $W/peak -v > $W/peak.txt 2> $W/peak.log
echo "peak: exit $? in $(( $(date +%s) - s )) s" >> $O/machine.txt
cp $W/peak/peaks.csv $O/peaks.csv
mv $W/peak.txt $W/peak.log $W/peak/ 2>/dev/null; pack peak
s=$(date +%s)
t=$(left 60); [ $t -gt 190 ] && t=190
timeout -s INT $t $P run scenarios/ --profile auto --out $W/suite-c -q > $W/suite-c.txt 2> $W/suite-c.log
echo "suite-c: exit $? in $(( $(date +%s) - s )) s" >> $O/machine.txt
mv $W/suite-c.txt $W/suite-c.log $W/suite-c/ 2>/dev/null; pack suite-c
t=$(left 10)
if [ $t -gt 40 ]; then
  s=$(date +%s)
  timeout -s INT $t bash reports/gpu-i40/run.sh $W .gpu/p3lab $W/peak/peaks.csv > $W/i40.out 2>&1
  echo "i40: exit $? in $(( $(date +%s) - s )) s" >> $O/machine.txt
  cp $W/i40.tgz $O/ 2>/dev/null || { mv $W/i40.out $W/i40/ 2>/dev/null; pack i40; }
fi
ls -la $O
