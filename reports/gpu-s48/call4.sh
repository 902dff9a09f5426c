#!/usr/bin/env bash
# Session 48's fourth device call (issue 42): the whole suite at full size by the binary of
# this session's counter changes as they stand after call 3 (the image changes taken back;
# the first-sample clock rule and the cost table's counter parts kept), with session 47's H200
# peaks and the driver's shader disk cache off, as call 3's sides ran. Device time left for
# one suite only: its `compare` is against call 3's base (another card, perhaps).
#   with the device tool, carry [".gpu"]:
#   for f in .gpu/*.deb; do dpkg -x $f /; done; ldconfig; OUT=$OUT bash reports/gpu-s48/call4.sh
set -x
O=${OUT:-/tmp/out}
W=/tmp/s48
mkdir -p $W $O
PEAKS=reports/nvidia-h200/s47/peak/peaks.csv
export __GL_SHADER_DISK_CACHE=0
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
  .gpu/p3lab --version
} > $W/machine.txt 2>&1
s=$(date +%s)
timeout -s INT 220 .gpu/p3lab run scenarios/ --profile auto --peaks $PEAKS --out $W/suite-new -q > $W/suite-new.txt 2> $W/suite-new.log
echo "suite-new: exit $? in $(( $(date +%s) - s )) s" >> $W/machine.txt
rm -f $W/suite-new/samples.csv $W/suite-new/metrics.csv
gzip -9 $W/suite-new.log $W/suite-new/*.csv $W/suite-new/*.json
tar czf $O/call4.tgz -C $W .
ls -la $O
