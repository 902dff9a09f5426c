#!/usr/bin/env bash
# Session 47's first device call (issue 39): the candidate kernels of reports/gpu-s47/explore
# for the six peaks whose own counters read under 90 % on the H200 in session 46 (rgba8
# texture_point and texture_fetch, shared_atomic, dram_write, l2_read), timed and counted as
# `p3lab peak` does (each unit's best variant counted again by its own sub-unit metrics).
#   with the device tool, carry [".gpu"]:
#   for f in .gpu/*.deb; do dpkg -x $f /; done; ldconfig; OUT=$OUT bash reports/gpu-s47/call1.sh
set -x
P=$PWD/.gpu/p3lab
O=${OUT:-/tmp/out}
W=/tmp/s47
mkdir -p $W $O
start=$(date +%s)
LIMIT=${LIMIT_S:-420}
left() { echo $(( LIMIT - ($(date +%s) - start) - ${1:-0} )); }
pack() { (cd $W && find "$1" -name '*.csv' -size +200k -exec gzip -9 {} \; ; tar czf $O/$1.tgz "$1"); }
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
  $P --version
} > $O/machine.txt 2>&1
s=$(date +%s)
timeout -s INT $(left 20) $P peak --peaks-dir reports/gpu-s47/explore --out $W/explore -v > $W/explore.txt 2> $W/explore.log
echo "explore: exit $? in $(( $(date +%s) - s )) s" >> $O/machine.txt
cp $W/explore/peaks.csv $O/peaks.csv
mv $W/explore.txt $W/explore.log $W/explore/ 2>/dev/null; pack explore
ls -la $O
