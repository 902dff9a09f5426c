#!/bin/bash
# Issue 26: p3lab's peaks (every unit, at full size) and vkpeak on the same GPU in one call.
#   for f in .gpu/*.deb; do dpkg -x $f /; done; ldconfig; bash reports/nvidia-h100/i26-vkpeak/run.sh /tmp/i26v
# .gpu/vkpeak is built as BUILD.md says.
O=${1:-/tmp/i26v}; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $O/nvidia-smi.csv
.gpu/p3lab devices > $O/devices.txt 2>&1
s=$(date +%s%N)
.gpu/p3lab peak --profile full --out $O/peak --cache-dir $O/cache -v > $O/peak.out 2> $O/peak.log
echo "peak: exit $?, wall $(( ($(date +%s%N) - s) / 1000000 )) ms" >> $O/walls.txt
s=$(date +%s%N)
.gpu/vkpeak 0 > $O/vkpeak.out 2> $O/vkpeak.log
echo "vkpeak: exit $?, wall $(( ($(date +%s%N) - s) / 1000000 )) ms" >> $O/walls.txt
rm -rf $O/cache
gzip -9 $O/*/samples.csv $O/*/metrics.csv $O/*.log 2>/dev/null
