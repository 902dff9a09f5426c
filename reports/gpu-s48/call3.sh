#!/usr/bin/env bash
# Session 48's third device call (issue 42): the whole suite at full size by the binary before
# this session's counter-batch savings (.gpu/p3lab-base, 89fd95f) and after (.gpu/p3lab), one
# after the other on one card, the driver's shader disk cache off (neither side compiles into
# the other's cache), both with session 47's H200 peaks; then `compare` of the two (the same
# rows should read "no change": the savings must not move a timing). Everything is packed
# into one archive (the device tool returns a limited number of files).
#   with the device tool, carry [".gpu"]:
#   for f in .gpu/*.deb; do dpkg -x $f /; done; ldconfig; OUT=$OUT bash reports/gpu-s48/call3.sh
set -x
O=${OUT:-/tmp/out}
W=/tmp/s48
mkdir -p $W $O
start=$(date +%s)
LIMIT=${LIMIT_S:-560}
left() { echo $(( LIMIT - ($(date +%s) - start) - ${1:-0} )); }
PEAKS=reports/nvidia-h200/s47/peak/peaks.csv
export __GL_SHADER_DISK_CACHE=0
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
  .gpu/p3lab-base --version
  .gpu/p3lab --version
} > $W/machine.txt 2>&1
for side in base new; do
  P=.gpu/p3lab; [ $side = base ] && P=.gpu/p3lab-base
  s=$(date +%s)
  t=$(left 30); [ $t -gt 260 ] && t=260
  timeout -s INT $t $P run scenarios/ --profile auto --peaks $PEAKS --out $W/suite-$side -q > $W/suite-$side.txt 2> $W/suite-$side.log
  echo "suite-$side: exit $? in $(( $(date +%s) - s )) s" >> $W/machine.txt
done
timeout 20 .gpu/p3lab compare $W/suite-base $W/suite-new -o $W/compare > $W/compare.txt 2>&1
echo "compare: exit $?" >> $W/machine.txt
for side in base new; do
  rm -f $W/suite-$side/samples.csv $W/suite-$side/metrics.csv
  gzip -9 $W/suite-$side.log
  gzip -9 $W/suite-$side/*.csv $W/suite-$side/*.json
done
gzip -9 $W/compare/* $W/compare.txt 2>/dev/null
tar czf $O/call3.tgz -C $W .
ls -la $O
