#!/usr/bin/env bash
# Session 46's first device call (issue 39 on an H200, and issue 42's "before"): the chip's
# PM-sampling metric list, `p3lab peak` with each unit's own sub-unit counters
# (src/peaks/verify.rs), then the whole suite at full size with counters, each step bounded
# by `timeout` and packed as soon as it is done (the device returns at most 8 files).
#   with the device tool, carry [".gpu"]:
#   for f in .gpu/*.deb; do dpkg -x $f /; done; ldconfig; OUT=$OUT bash reports/gpu-s46/call1.sh
set -x
P=$PWD/.gpu/p3lab
O=${OUT:-/tmp/out}
W=/tmp/s46
mkdir -p $W $O
pack() { (cd $W && find "$1" -name '*.csv' -size +200k -exec gzip -9 {} \; ; tar czf $O/$1.tgz "$1"); }
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
  $P --version
  $P devices
} > $O/machine.txt 2>&1
$P counters --format csv > $W/counters.csv 2> $W/counters.err; gzip -9 -c $W/counters.csv > $O/counters.csv.gz
s=$(date +%s)
timeout -s INT ${PEAK_S:-360} $P peak --out $W/peak -v > $W/peak.txt 2> $W/peak.log
echo "peak: exit $? in $(( $(date +%s) - s )) s" >> $O/machine.txt
mv $W/peak.txt $W/peak.log $W/peak/ 2>/dev/null; pack peak
s=$(date +%s)
timeout -s INT ${SUITE_S:-190} $P run scenarios/ --profile auto --out $W/suite-a -q > $W/suite-a.txt 2> $W/suite-a.log
echo "suite-a: exit $? in $(( $(date +%s) - s )) s" >> $O/machine.txt
mv $W/suite-a.txt $W/suite-a.log $W/suite-a/ 2>/dev/null; pack suite-a
ls -la $O
