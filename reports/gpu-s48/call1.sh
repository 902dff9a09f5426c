#!/usr/bin/env bash
# Session 48's first device call (issue 42): where the hardware-counter batches' time goes,
# and whether keeping CUPTI's counter data images by size (22583e9) shortens them. The binary
# before (.gpu/p3lab-base, 89fd95f) and after (.gpu/p3lab, 22583e9), each on tiling at one
# size (30 variants) and the cold-mode reduction ladder (42 rows), full size, counters on, the
# peaks of session 47's H200 call 2; order base, new, new, base so a drifting card weighs on
# both. run.json's hw_counters and cost_table say where the time went.
#   with the device tool, carry [".gpu"]:
#   for f in .gpu/*.deb; do dpkg -x $f /; done; ldconfig; OUT=$OUT bash reports/gpu-s48/call1.sh
set -x
O=${OUT:-/tmp/out}
mkdir -p $O
PEAKS=reports/nvidia-h200/s47/peak/peaks.csv
export __GL_SHADER_DISK_CACHE=0
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
  .gpu/p3lab-base --version
  .gpu/p3lab --version
} > $O/machine.txt 2>&1
k=0
for side in base new new base; do
  k=$((k+1))
  P=.gpu/p3lab; [ $side = base ] && P=.gpu/p3lab-base
  for sc in tiling reduction; do
    set_w=""; [ $sc = tiling ] && set_w="--set width=2560"
    s=$(date +%s)
    timeout -s INT 120 $P run scenarios/$sc.toml --profile full $set_w --peaks $PEAKS --out $O/$k-$side-$sc -q > $O/$k-$side-$sc.txt 2>&1
    echo "$k $side $sc: exit $? in $(( $(date +%s) - s )) s" >> $O/machine.txt
    rm -f $O/$k-$side-$sc/samples.csv $O/$k-$side-$sc/metrics.csv
    gzip -9 $O/$k-$side-$sc/results.csv
  done
done
ls -la $O
