#!/usr/bin/env bash
# Session 47's third device call (issue 42): the whole suite at full size by the binary before
# this session's time savings (.gpu/p3lab-base, 043ce29) and after (.gpu/p3lab), in one call on
# one card, with the driver's shader disk cache off so that neither side compiles into the
# other's cache, and the peaks of call 2 (reports/nvidia-h200/s47/peak/peaks.csv, another
# card of this model and driver). Then `compare` of the two: the same rows should read
# "no change" (the savings must not move a timing).
#   with the device tool, carry [".gpu"]:
#   for f in .gpu/*.deb; do dpkg -x $f /; done; ldconfig; OUT=$OUT bash reports/gpu-s47/call3.sh
set -x
O=${OUT:-/tmp/out}
W=/tmp/s47
mkdir -p $W $O
start=$(date +%s)
LIMIT=${LIMIT_S:-570}
left() { echo $(( LIMIT - ($(date +%s) - start) - ${1:-0} )); }
pack() { (cd $W && find "$1" -name '*.csv' -size +100k -exec gzip -9 {} \; ; tar czf $O/$1.tgz "$1"); }
PEAKS=reports/nvidia-h200/s47/peak/peaks.csv
export __GL_SHADER_DISK_CACHE=0
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
  .gpu/p3lab-base --version
  .gpu/p3lab --version
} > $O/machine.txt 2>&1
for side in base new; do
  P=.gpu/p3lab; [ $side = base ] && P=.gpu/p3lab-base
  s=$(date +%s)
  t=$(left 25); [ $t -gt 270 ] && t=270
  timeout -s INT $t $P run scenarios/ --profile auto --peaks $PEAKS --out $W/suite-$side -q > $W/suite-$side.txt 2> $W/suite-$side.log
  echo "suite-$side: exit $? in $(( $(date +%s) - s )) s" >> $O/machine.txt
done
timeout 20 .gpu/p3lab compare $W/suite-base $W/suite-new -o $W/compare > $W/compare.txt 2>&1
echo "compare: exit $?" >> $O/machine.txt
for side in base new; do mv $W/suite-$side.txt $W/suite-$side.log $W/suite-$side/ 2>/dev/null; done
mv $W/compare.txt $W/compare/ 2>/dev/null
for d in suite-base suite-new compare; do rm -f $W/$d/samples.csv; pack $d; done
ls -la $O
