#!/usr/bin/env bash
# NOT RUN in session 48 (no device time was left): the device call that decides whether
# P3LAB_CUPTI_IMAGE=fit can become the default (issue 42). The whole suite at full size by one
# binary twice on one card, images `grow` (the default) then `fit`; each run.json's
# cost_table says what emptying the images cost (session 48, call 4: 14.9 s of 42.1 s with
# `grow`), and `compare` of the two must read no timing moved and every row counted.
#   with the device tool, carry [".gpu"]:
#   for f in .gpu/*.deb; do dpkg -x $f /; done; ldconfig; OUT=$OUT bash reports/gpu-s48/next-fit.sh
set -x
O=${OUT:-/tmp/out}
W=/tmp/s49
mkdir -p $W $O
PEAKS=reports/nvidia-h200/s47/peak/peaks.csv
export __GL_SHADER_DISK_CACHE=0
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
  .gpu/p3lab --version
} > $W/machine.txt 2>&1
for sizing in grow fit; do
  s=$(date +%s)
  P3LAB_CUPTI_IMAGE=$sizing timeout -s INT 250 .gpu/p3lab run scenarios/ --profile auto --peaks $PEAKS --out $W/suite-$sizing -q > $W/suite-$sizing.txt 2> $W/suite-$sizing.log
  echo "suite-$sizing: exit $? in $(( $(date +%s) - s )) s" >> $W/machine.txt
done
timeout 30 .gpu/p3lab compare $W/suite-grow $W/suite-fit -o $W/compare > $W/compare.txt 2>&1
echo "compare: exit $?" >> $W/machine.txt
for sizing in grow fit; do
  rm -f $W/suite-$sizing/samples.csv $W/suite-$sizing/metrics.csv
  gzip -9 $W/suite-$sizing.log $W/suite-$sizing/*.csv $W/suite-$sizing/*.json
done
gzip -9 $W/compare/* $W/compare.txt 2>/dev/null
tar czf $O/next-fit.tgz -C $W .
ls -la $O
