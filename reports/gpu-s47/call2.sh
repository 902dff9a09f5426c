#!/usr/bin/env bash
# Session 47's second device call (issue 39): `p3lab peak` with this tree's calibrations (the
# one-channel rgba8 texture kernels among them; each unit's own sub-unit counters counted on
# its best variant, OUT/own/), then the whole suite at full size with those peaks (`suite`),
# each step bounded by what is left of the call and packed as soon as it is done.
#   with the device tool, carry [".gpu"]:
#   for f in .gpu/*.deb; do dpkg -x $f /; done; ldconfig; OUT=$OUT bash reports/gpu-s47/call2.sh
set -x
P=$PWD/.gpu/p3lab
O=${OUT:-/tmp/out}
W=/tmp/s47
mkdir -p $W $O
start=$(date +%s)
LIMIT=${LIMIT_S:-580}
left() { echo $(( LIMIT - ($(date +%s) - start) - ${1:-0} )); }
pack() { (cd $W && find "$1" -name '*.csv' -size +100k -exec gzip -9 {} \; ; tar czf $O/$1.tgz "$1"); }
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
  $P --version
} > $O/machine.txt 2>&1
s=$(date +%s)
timeout -s INT $(left 170) $P peak --out $W/peak -v > $W/peak.txt 2> $W/peak.log
echo "peak: exit $? in $(( $(date +%s) - s )) s" >> $O/machine.txt
cp $W/peak/peaks.csv $O/peaks.csv
mv $W/peak.txt $W/peak.log $W/peak/ 2>/dev/null; pack peak
s=$(date +%s)
timeout -s INT $(left 10) $P run scenarios/ --profile auto --out $W/suite -q > $W/suite.txt 2> $W/suite.log
echo "suite: exit $? in $(( $(date +%s) - s )) s" >> $O/machine.txt
mv $W/suite.txt $W/suite.log $W/suite/ 2>/dev/null; pack suite
ls -la $O
