#!/usr/bin/env bash
# Session 48's second device call (issue 42): call 1 again for the new binary alone (call 1's
# run folders did not come back: the device tool returns a limited number of files, so this
# call packs everything into one archive): tiling at one size and the cold-mode reduction
# ladder, full size, counters on, -v (the cost table in the log), tiling with --trace.
#   with the device tool, carry [".gpu"]:
#   for f in .gpu/*.deb; do dpkg -x $f /; done; ldconfig; OUT=$OUT bash reports/gpu-s48/call2.sh
set -x
O=${OUT:-/tmp/out}
W=/tmp/s48
mkdir -p $O $W
PEAKS=reports/nvidia-h200/s47/peak/peaks.csv
export __GL_SHADER_DISK_CACHE=0
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
  .gpu/p3lab --version
} > $W/machine.txt 2>&1
for sc in tiling reduction; do
  extra=""; [ $sc = tiling ] && extra="--set width=2560 --trace"
  s=$(date +%s)
  timeout -s INT 120 .gpu/p3lab -v run scenarios/$sc.toml --profile full $extra --peaks $PEAKS --out $W/new-$sc > $W/new-$sc.txt 2> $W/new-$sc.log
  echo "new $sc: exit $? in $(( $(date +%s) - s )) s" >> $W/machine.txt
  rm -f $W/new-$sc/samples.csv
  gzip -9 $W/new-$sc/*.csv $W/new-$sc/*.json $W/new-$sc.log
done
tar czf $O/call2.tgz -C $W .
ls -la $O
